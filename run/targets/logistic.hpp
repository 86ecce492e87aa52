#pragma once
// The `logistic` target: Bayesian logistic regression (models/logistic.hpp), θ ~ N(0, prior_sd²I), by
// minibatches, on a CSV of examples (the features, then a 0/1 label in the last column; a header row
// allowed: its columns name the coefficients, run/targets/coefficient_names.hpp) or on data generated on the fly (`"data": {"examples": N, "features": d, "seed": s}`:
// data::synthetic_logistic_rows, nothing stored on disk). On euclidean space of the data's feature
// columns: the manifold's `dim` when it gives none. The file is read once, here; its errors name
// /target/data and the file's row. The gradient: any of the estimators (run/targets/estimator.hpp).
//
// Sharded (`distributed.shards` > 1, docs/distributed.md): each rank of a chain group reads only its
// part of the file (the lines that start in its byte range) or generates only its rows, and the model
// answers for the whole set through models::Shard, the group adding up the parts of every gradient.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/shard.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/targets/coefficient_names.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

namespace targets {

/// This rank's rows of the logistic target's data, with where they sit in the whole set.
struct LogisticRows {
  data::Dataset<double> rows;
  std::uint64_t first = 0, total = 0;
  json record;  ///< the `data` field as the run record keeps it
  std::optional<DataFile> file;  ///< the file read, if any
};

/// Reads (or generates) this shard's rows. The field checks come first and are the same on every rank;
/// a file error on any rank of the group fails all of them with that rank's message.
inline LogisticRows logistic_rows(Fields& f, const distributed::Shard& shard) {
  LogisticRows out;
  const json& source = f.get("data");
  std::optional<std::string> error;
  if (source.is_object()) {
    Fields g(source, f.at("data"));
    const std::uint64_t n = as_count(g.get("examples"), g.at("examples"), 1);
    if (n >= 0xffffffffull) fail(g.at("examples"), fmt::format("expected fewer than 2^32 − 1 generated examples, got {}", n));
    const std::uint64_t d = as_count(g.get("features"), g.at("features"), 1);
    if (d > 100'000) fail(g.at("features"), fmt::format("expected at most 100000 generated features, got {}", d));
    const std::uint64_t seed = g.count("seed", 0, 0);
    g.finish();
    if (n < static_cast<std::uint64_t>(shard.count))
      fail(g.at("examples"), fmt::format("{} examples cannot be split over {} shards", n, shard.count));
    // 2³¹ numbers (16 GiB) per rank at most: a mistyped size is an error, not the machine's memory taken.
    if (static_cast<double>(n) / shard.count * static_cast<double>(d + 1) > 2147483648.0)
      fail(f.at("data"), fmt::format("{} examples of {} features would take {:.3g} GB per rank: shard them over more ranks "
                                     "(distributed.shards) or generate fewer", n, d,
                                     8e-9 * static_cast<double>(n) / shard.count * static_cast<double>(d + 1)));
    const auto parts = static_cast<std::uint64_t>(shard.count), k = static_cast<std::uint64_t>(shard.index);
    out.first = data::part_start(n, k, parts);
    out.total = n;
    out.rows = data::synthetic_logistic_rows(out.first, data::part_start(n, k + 1, parts) - out.first, n,
                                             static_cast<Eigen::Index>(d), seed).data;
    out.record = {{"examples", n}, {"features", d}, {"seed", seed}};
    return out;
  }
  const std::string path = f.string("data");
  out.record = path;
  try {
    out.rows = shard.sharded() ? data::load_labelled_csv_part(path, static_cast<std::uint64_t>(shard.index), static_cast<std::uint64_t>(shard.count))
                               : data::load_labelled_csv(path);
  } catch (const Error& e) {
    error = e.what();
  }
  if (const auto e = shard.first_error(error)) fail(f.at("data"), *e);
  out.file = read_data_file(f, "data", path);  // every rank: each checks the whole file on resume
  out.total = out.rows.size();
  if (!shard.sharded()) return out;
  // Each part's rows and columns, summed over the group: every rank learns where its rows start.
  const auto parts = static_cast<Eigen::Index>(shard.count);
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(2 * parts);
  counts[shard.index] = static_cast<double>(out.rows.size());
  counts[parts + shard.index] = static_cast<double>(out.rows.dim());
  shard.sum(counts);
  out.total = 0;
  for (Eigen::Index k = 0; k < parts; ++k) {
    if (counts[parts + k] != counts[parts])
      fail(f.at("data"), fmt::format("{}: part {} of the file has {} feature columns, part 1 has {}", printable(path, 200), k + 1, counts[parts + k], counts[parts]));
    if (k < shard.index) out.first += static_cast<std::uint64_t>(counts[k]);
    out.total += static_cast<std::uint64_t>(counts[k]);
  }
  return out;
}

inline TargetChoice logistic_choice(Fields& f, const ManifoldChoice& manifold, const distributed::Shard& shard) {
  const std::string name = "logistic";
  // The data first: a missing or malformed file is named before the other fields are checked.
  LogisticRows d = logistic_rows(f, shard);
  const std::string what = d.record.is_string() ? printable(d.record.get<std::string>(), 200) : std::string("the generated data");
  require_manifold(f, name, manifold.geometry.flat, "euclidean space", "euclidean");
  if (const auto dim = manifold.dim(); dim && d.rows.dim() != *dim)
    fail(f.at("data"), fmt::format("{} has {} feature columns but the manifold has {} coordinates", what, d.rows.dim(), *dim));
  const Eigen::Index own = d.rows.dim();
  check_size(f, "data", manifold, static_cast<double>(own), what);
  const double prior_sd = f.number("prior_sd", 1.0, Range::positive);
  const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.total), 1);
  if (batch > d.total) fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.total, what, batch));
  const bool replace = f.boolean("with_replacement", false);
  // Both the CSV loader and the generator put the examples in storage advised onto transparent huge
  // pages (data::detail::advise_huge_pages): a minibatch step gathers ~100 random columns, and on 4 KiB
  // pages nearly every one also misses the TLB (docs/benchmarks.md, "CLI against the library").
  models::LogisticRegression local{std::make_shared<const data::Dataset<double>>(std::move(d.rows)), prior_sd};
  json out = {{"name", name}, {"data", d.record}, {"prior_sd", prior_sd}, {"batch_size", batch}, {"with_replacement", replace}};
  // A headed CSV names the coefficients b_<column> (unless `names` does).
  std::optional<output::Parameters> names;
  if (d.record.is_string() && !f.find("names")) names = coefficient_names(f, "data", d.record.get<std::string>(), own);
  const DataSpace space{own, true, 0, shard.sum, std::move(names)};
  TargetChoice c = [&] {
    if (!shard.sharded())
      return make_estimated_choice(f, name, models::minibatch(std::move(local), batch, sampling(replace)), std::move(out), space);
    models::Shard<models::LogisticRegression> part{std::move(local), d.first, d.total, shard.index == 0};
    return make_estimated_choice(f, name, models::minibatch(std::move(part), batch, sampling(replace)), std::move(out), space);
  }();
  if (d.file) c.files.push_back(std::move(*d.file));
  return c;
}

}  // namespace targets

inline TargetEntry logistic_target() {
  return {{"logistic"},
          "Bayesian logistic regression on a CSV (features, then a 0/1 label) or generated data: data, prior_sd 1, batch_size min(100, N), estimator minibatch",
          [](Fields& f, const ManifoldChoice& manifold) { return targets::logistic_choice(f, manifold, {}); },
          targets::logistic_choice};
}

}  // namespace sgmcmc::run
