#pragma once
// The data readers' fuzz targets (docs/reliability.md, "Fuzzing the data readers"), compiled once
// (tests/fuzz/entries.cpp) for the libFuzzer program (tests/fuzz/libfuzzer/) and the replay test
// (tests/fuzz/test_fuzz_replay_data.cpp).
// The same contract as tests/fuzz/targets.hpp: each returns or throws sgmcmc::Error whose message
// passes names_a_place (it starts with the file's name, /proc/self/fd/N of the bytes' MemFile); any
// other exception, a crash, a sanitizer report or a hang is a finding.
//
//   fuzz_labelled_csv(bytes): differential. The logistic target's CSV read three ways — the file in
//     4 MB chunks with the fast path for plain rows (data::load_labelled_csv), the same with chunks of
//     1–61 bytes (so small inputs cross chunk boundaries), and the general table parser on the whole
//     text (data::parse_csv, no fast path) with the labelled reader's checks after it. All three must
//     accept with the same rows, bit for bit, or all refuse with an Error; a disagreement is thrown as
//     std::logic_error (a finding).
//   fuzz_idx(bytes): the bytes (gzip or not: zlib reads both) as an IDX image file and as an IDX label
//     file; an Error (the image reader's) when both refuse them.
//   fuzz_ratings(bytes): the bytes as a ratings CSV (data::load_ratings_csv), then both splits.
//   fuzz_text_corpora(bytes): the topic experiments' corpus readers (experiments/topics/loaders.hpp): the bytes as
//     a mail (MIME), a Brown-corpus file (whole and by paragraph) and the King James Bible text, then a
//     vocabulary, a bag-of-words corpus and tf-idf over the documents they gave.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/data/idx.hpp>
#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/text/corpus.hpp>

#include "../../experiments/topics/loaders.hpp"
#include "targets.hpp"

namespace sgmcmc::fuzz {

namespace detail {

// The labelled reader's acceptance, rebuilt on the general table parser: a table of at least two
// columns, 0/1 labels in the last, finite features (Dataset::validate).
inline data::Dataset<double> labelled_from_table(std::string_view text, const std::string& name) {
  const data::Table t = data::parse_csv(text, name);
  if (t.cols < 2) throw Error(name + ": expected at least one feature column and a label column");
  data::Dataset<double> d;
  d.x.resize(static_cast<Eigen::Index>(t.cols - 1), static_cast<Eigen::Index>(t.rows));
  d.y.resize(static_cast<Eigen::Index>(t.rows));
  for (std::size_t r = 0; r < t.rows; ++r) {
    for (std::size_t c = 0; c + 1 < t.cols; ++c) d.x(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(r)) = t(r, c);
    const double l = t(r, t.cols - 1);
    if (!data::detail::is_binary_label(l)) throw Error(name + ": a label that is not 0 or 1");
    d.y[static_cast<Eigen::Index>(r)] = static_cast<int>(l);
  }
  d.validate();
  return d;
}

// An outcome: the data set read, or the Error's message.
struct Outcome {
  bool ok = false;
  data::Dataset<double> d;
  std::string error;
};

template <class Read>
Outcome outcome(Read read) {
  Outcome o;
  try {
    o.d = read();
    o.ok = true;
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

inline bool same_bits(const data::Dataset<double>& a, const data::Dataset<double>& b) {
  return a.x.rows() == b.x.rows() && a.x.cols() == b.x.cols() && a.y == b.y &&
         std::memcmp(a.x.data(), b.x.data(), sizeof(double) * static_cast<std::size_t>(a.x.size())) == 0;
}

}  // namespace detail

inline void fuzz_labelled_csv(std::string_view bytes) {
  const MemFile file(bytes);
  const std::string& path = file.path();
  const detail::Outcome chunked = detail::outcome([&] { return data::load_labelled_csv(path); });
  const std::size_t small = 1 + bytes.size() % 61;
  const detail::Outcome tiny = detail::outcome([&] {
    return data::detail::load_features_and_label(path, data::detail::is_binary_label, "a 0/1 label", small);
  });
  const detail::Outcome general = detail::outcome([&] { return detail::labelled_from_table(bytes, path); });
  const auto differ = [&](const detail::Outcome& a, const detail::Outcome& b, const char* what) {
    if (a.ok != b.ok || (a.ok && !detail::same_bits(a.d, b.d)))
      throw std::logic_error(fmt::format("fuzz_labelled_csv: {} disagree ({} / {}; chunks of {} bytes)", what,
                                         a.ok ? "accepted" : a.error, b.ok ? "accepted" : b.error, small));
  };
  differ(chunked, general, "the chunked reader with its fast path and the general table parser");
  differ(chunked, tiny, "4 MB chunks and small chunks");
  if (!chunked.ok) throw Error(chunked.error);
}

inline void fuzz_idx(std::string_view bytes) {
  const MemFile file(bytes);
  std::string error;  // a file is one kind or the other: an Error only when both readings refuse it
  bool read = false;
  try {
    const Eigen::MatrixXf x = data::read_idx_images(file.path());
    if (x.size() > 0 && !(x.minCoeff() >= 0.0f && x.maxCoeff() <= 1.0f)) throw std::logic_error("fuzz_idx: a pixel outside [0, 1]");
    read = true;
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    const Eigen::VectorXi y = data::read_idx_labels(file.path());
    if (y.size() > 0 && !(y.minCoeff() >= 0 && y.maxCoeff() <= 255)) throw std::logic_error("fuzz_idx: a label outside 0..255");
    read = true;
  } catch (const Error&) {
  }
  if (!read) throw Error(error);
}

inline void fuzz_ratings(std::string_view bytes) {
  const MemFile file(bytes);
  const data::Ratings r = data::load_ratings_csv(file.path());
  if (r.user.size() != r.size() || r.item.size() != r.size() || (!r.time.empty() && r.time.size() != r.size()))
    throw std::logic_error("fuzz_ratings: columns of different lengths");
  for (std::size_t k = 0; k < r.size(); ++k)
    if (r.user[k] >= r.n_users || r.item[k] >= r.n_items || !std::isfinite(r.rating[k]))
      throw std::logic_error("fuzz_ratings: an index outside its range or a non-finite rating");
  const auto [train, test] = data::split(r, 0.25, 1);
  if (train.size() + test.size() != r.size()) throw std::logic_error("fuzz_ratings: the split lost ratings");
  if (!r.time.empty()) {
    const auto [early, late] = data::split_by_time(r, 0.25);
    if (early.size() + late.size() != r.size()) throw std::logic_error("fuzz_ratings: the time split lost ratings");
  }
}

inline void fuzz_text_corpora(std::string_view bytes) {
  const MemFile file(bytes);
  text::TextReport report;
  std::vector<text::RawDocument> docs;
  (void)text::looks_like_text(bytes);
  (void)text::mail_list_id(bytes);
  docs.push_back(text::parse_mail(bytes, file.path(), report));
  text::parse_brown(bytes, file.path(), 1, false, docs, report);
  text::parse_brown(bytes, file.path(), 2, true, docs, report);
  std::string error;
  try {
    for (auto& d : text::load_kjv(file.path(), report)) docs.push_back(std::move(d));
  } catch (const Error& e) {
    error = e.what();
  }
  std::vector<std::size_t> all(docs.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const text::Vocabulary vocab = text::Vocabulary::fit(docs, all, 64);
  const text::Corpus corpus = text::to_corpus(docs, all, vocab, report);
  if (corpus.size() > 0) {
    const text::TfIdf tfidf{text::TfIdf::fit_idf(corpus)};
    for (double v : tfidf.transform(corpus))
      if (!std::isfinite(v)) throw std::logic_error("fuzz_text_corpora: a non-finite tf-idf value");
  }
  if (!error.empty()) throw Error(error);
}

}  // namespace sgmcmc::fuzz
