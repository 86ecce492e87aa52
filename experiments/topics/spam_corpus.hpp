#pragma once
// The SpamAssassin corpora of the topic-model experiments (shared/DATA.md; in place of 20 Newsgroups and
// Wikipedia): load a named set, split it 80/20 with a fixed seed, fit the top-V vocabulary on the training
// documents and build both corpora, counting what was dropped. One preparation for lda.cpp and sam.cpp,
// so their documents, split and vocabulary are the same.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sgmcmc/models/text/corpus.hpp>
#include <sgmcmc/models/text/loaders.hpp>

namespace sgmcmc::experiments {

struct SpamCorpus {
  std::size_t documents = 0;  ///< mails loaded
  text::Vocabulary vocab;
  text::Corpus train, test;
  text::TextReport load, train_report, test_report;  ///< what was skipped or dropped at each stage

  nlohmann::json report() const {
    return {{"load", load.summary()}, {"train", train_report.summary()}, {"test", test_report.summary()}};
  }
};

/// `set`: "three-groups" (the ham mails of three mailing lists; 20News-different's stand-in) or
/// "all-spam" (every SpamAssassin folder; the large set).
inline SpamCorpus load_spam_corpus(const std::filesystem::path& root, const std::string& set, std::size_t V = 5000) {
  SpamCorpus c;
  const auto docs = set == "three-groups"
                        ? text::load_spam_three_groups(root, c.load)
                        : text::load_spam_assassin(root, {"easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"}, {}, c.load);
  c.documents = docs.size();
  const auto sp = text::split(docs.size(), 0.2, 2024);
  c.vocab = text::Vocabulary::fit(docs, sp.train, V, 2);
  c.train = text::to_corpus(docs, sp.train, c.vocab, c.train_report);
  c.test = text::to_corpus(docs, sp.test, c.vocab, c.test_report);
  return c;
}

}  // namespace sgmcmc::experiments
