#pragma once
// The corpora of the topic-model experiments (docs/data.md; in place of 20 Newsgroups and Wikipedia):
// load a named set, split it 80/20 with a fixed seed, fit the top-V vocabulary on the training documents
// and build both corpora, counting what was dropped. One preparation for lda.cpp and sam.cpp, so their
// documents, split and vocabulary are the same.
#include <cstddef>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/models/text/corpus.hpp>

#include "loaders.hpp"

namespace sgmcmc::experiments {

struct SpamCorpus {
  std::size_t documents = 0;  ///< mails loaded
  text::Vocabulary vocab;
  text::Corpus train, test;
  text::TextReport load, train_report, test_report;  ///< what was skipped or dropped at each stage
  nlohmann::json sources = nlohmann::json::object();  ///< documents loaded from each corpus

  nlohmann::json report() const {
    return {{"load", load.summary()}, {"train", train_report.summary()}, {"test", test_report.summary()}, {"sources", sources}};
  }
};

/// Where scripts/text_data.sh puts a corpus beside the SpamAssassin one: `spam_root` is
/// DATA/spam-assassin/package/data, the result DATA/`relative`.
inline std::filesystem::path sibling_corpus(const std::filesystem::path& spam_root, const std::string& relative) {
  auto p = spam_root.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.parent_path().parent_path().parent_path() / relative;
}

/// What a set stands in for, for the experiments' JSON (one wording for lda.cpp and sam.cpp).
inline std::string set_note(const std::string& set) {
  if (set == "three-groups")
    return "SpamAssassin three-groups set in place of the paper's 20News-different (20 Newsgroups not available here)";
  if (set == "all-spam") return "all SpamAssassin mails (ham and spam): a 3x larger set";
  return "pooled corpora (all SpamAssassin mails, Brown paragraphs, KJV chapters) in place of the paper's Wikipedia set "
         "(not available here)";
}

/// OUT/<model>_<set>.json, or OUT/<model>_<set>_<tag>.json with a tag.
inline std::filesystem::path result_file(const std::filesystem::path& out, const std::string& model, const std::string& set,
                                         const std::string& tag) {
  return out / fmt::format("{}_{}{}.json", model, set, tag.empty() ? "" : "_" + tag);
}

/// `set`: "three-groups" (the ham mails of three mailing lists; 20News-different's stand-in), "all-spam"
/// (every SpamAssassin folder) or "pooled" (all SpamAssassin mails, the Brown corpus's paragraphs and the
/// King James Bible's chapters: the pooled stand-in for Wikipedia, 11x the three-groups set). The
/// pooled set reads Brown from `brown` and the Bible from `kjv` (default: their scripts/text_data.sh places
/// beside `root`).
inline SpamCorpus load_spam_corpus(const std::filesystem::path& root, const std::string& set, std::size_t V = 5000,
                                   std::filesystem::path brown = {}, std::filesystem::path kjv = {}) {
  if (set != "three-groups" && set != "all-spam" && set != "pooled")
    throw Error(fmt::format("--set: expected three-groups, all-spam or pooled, got {}", set));
  SpamCorpus c;
  std::vector<text::RawDocument> docs;
  if (set == "three-groups") {
    docs = text::load_spam_three_groups(root, c.load);
    c.sources["spam-assassin three groups"] = docs.size();
  } else {
    docs = text::load_spam_assassin(root, {"easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"}, {}, c.load);
    c.sources["spam-assassin mails"] = docs.size();
  }
  if (set == "pooled") {
    if (brown.empty()) brown = sibling_corpus(root, "brown/package");
    if (kjv.empty()) kjv = sibling_corpus(root, "kjv/kjv.txt");
    auto paragraphs = text::load_brown(brown, /*by_paragraph=*/true, c.load);
    auto chapters = text::load_kjv(kjv, c.load);
    c.sources["brown paragraphs"] = paragraphs.size(), c.sources["kjv chapters"] = chapters.size();
    for (auto* part : {&paragraphs, &chapters}) docs.insert(docs.end(), std::make_move_iterator(part->begin()), std::make_move_iterator(part->end()));
  }
  c.documents = docs.size();
  const auto sp = text::split(docs.size(), 0.2, 2024);
  c.vocab = text::Vocabulary::fit(docs, sp.train, V, 2);
  c.train = text::to_corpus(docs, sp.train, c.vocab, c.train_report);
  c.test = text::to_corpus(docs, sp.test, c.vocab, c.test_report);
  return c;
}

}  // namespace sgmcmc::experiments
