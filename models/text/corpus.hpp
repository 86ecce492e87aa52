#pragma once
// The text pipeline of the topic models (issue #6): tokenising (lowercase, alphabetic, stop words
// removed), a vocabulary of the top V words fitted on training documents, a sparse bag-of-words corpus
// in CSR form, tf-idf with L2 normalisation (documents as points on S^{V-1}), seeded train/test splits
// and streaming minibatches of documents.
//
// Memory is proportional to the corpus's non-zeros: a document is stored as its distinct (word, count)
// pairs; the raw text is tokenised one document at a time and never kept. Bad input is counted in a
// `TextReport` (unreadable or non-text files, documents empty after cleaning, out-of-vocabulary words),
// never a crash; a corpus that ends up empty is an Error naming where it came from.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/permutation.hpp>

namespace sgmcmc::text {

/// A small English stop-word list (function words, auxiliaries, pronouns; the classic SMART/NLTK core).
inline const std::unordered_set<std::string_view>& stop_words() {
  static const std::unordered_set<std::string_view> words = {
      "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
      "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did",
      "do", "does", "doing", "down", "during", "each", "even", "ever", "every", "few", "for", "from", "further",
      "get", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his",
      "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "like", "may", "me",
      "might", "more", "most", "much", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
      "one", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "said", "same", "say", "says",
      "shall", "she", "should", "since", "so", "some", "still", "such", "than", "that", "the", "their", "theirs",
      "them", "themselves", "then", "there", "these", "they", "this", "those", "though", "through", "thus", "to",
      "too", "under", "until", "up", "upon", "us", "very", "was", "we", "well", "were", "what", "when", "where",
      "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "would",
      "yet", "you", "your", "yours", "yourself", "yourselves", "re", "ll", "ve", "don", "didn", "doesn", "isn",
      "wasn", "aren", "won", "wouldn", "couldn", "shouldn", "hasn", "haven", "hadn", "many", "made", "make", "two",
      "new", "way", "use", "used", "using", "put", "see", "know", "take", "go", "going", "come", "want", "think",
      "really", "thing", "things", "something", "anything", "nothing", "www", "http", "com", "net", "org", "html"};
  return words;
}

/// Calls `emit(word)` for every token of `text`: maximal runs of ASCII letters, lowercased, of at least
/// `min_length` letters, not a stop word. Non-letters (digits, punctuation, bytes ≥ 0x80) separate tokens.
template <class F>
void tokenize(std::string_view text, F&& emit, std::size_t min_length = 2) {
  const auto& stop = stop_words();
  std::string word;
  auto flush = [&] {
    if (word.size() >= min_length && !stop.contains(std::string_view(word))) emit(std::string_view(word));
    word.clear();
  };
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 'A' && c <= 'Z') word.push_back(static_cast<char>(c - 'A' + 'a'));
    else if (c >= 'a' && c <= 'z') word.push_back(static_cast<char>(c));
    else if (!word.empty()) flush();
  }
  if (!word.empty()) flush();
}

/// What the pipeline dropped, and why. Printed by the experiments; nothing here is silent.
struct TextReport {
  std::size_t files_read = 0;            ///< files opened and parsed
  std::size_t unreadable_files = 0;      ///< could not be opened or read
  std::size_t non_text_files = 0;        ///< binary content (NUL bytes or mostly non-printable)
  std::size_t empty_documents = 0;       ///< no token left after cleaning (or none in the vocabulary)
  std::size_t skipped_parts = 0;         ///< MIME parts skipped (base64, non-text)
  std::size_t tokens = 0;                ///< tokens kept (in the vocabulary)
  std::size_t out_of_vocabulary = 0;     ///< tokens dropped: not in the vocabulary
  std::vector<std::string> examples;     ///< up to 5 offending file names, for the message
  void note(const std::string& name) {
    if (examples.size() < 5) examples.push_back(name);
  }
  std::string summary() const {
    return fmt::format("{} files read, {} unreadable, {} non-text, {} MIME parts skipped, {} empty documents, "
                       "{} tokens kept, {} out-of-vocabulary tokens dropped{}{}",
                       files_read, unreadable_files, non_text_files, skipped_parts, empty_documents, tokens,
                       out_of_vocabulary, examples.empty() ? "" : "; e.g. ", fmt::join(examples, ", "));
  }
};

/// True when `bytes` looks like text: no NUL byte and at most 10% control/high bytes in the first 4 KiB
/// (mails carry some 8-bit characters; a binary file carries many).
inline bool looks_like_text(std::string_view bytes) {
  const std::size_t n = std::min<std::size_t>(bytes.size(), 4096);
  std::size_t odd = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) return false;
    if ((c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f') || c == 127) ++odd;
  }
  return odd * 10 <= n;
}

/// A tokenised document before a vocabulary exists: its tokens as strings, and a label.
struct RawDocument {
  std::vector<std::string> tokens;
  std::string name;   ///< file or section it came from
  int label = -1;     ///< group or category index (−1 if none)
};

/// The top-V vocabulary, fitted on training documents: words ranked by total count, ties broken
/// alphabetically (deterministic), optionally only words in at least `min_documents` documents.
struct Vocabulary {
  std::vector<std::string> words;
  std::unordered_map<std::string, std::uint32_t> index;

  std::size_t size() const { return words.size(); }
  /// The id of `w`, or −1.
  std::int64_t find(std::string_view w) const {
    const auto it = index.find(std::string(w));
    return it == index.end() ? -1 : static_cast<std::int64_t>(it->second);
  }

  static Vocabulary fit(const std::vector<RawDocument>& docs, const std::vector<std::size_t>& train, std::size_t V,
                        std::size_t min_documents = 1) {
    require(V >= 1, "vocabulary_size: expected a positive integer");
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> counts;  // word -> (count, docs)
    std::unordered_set<std::string_view> seen;
    for (std::size_t d : train) {
      seen.clear();
      for (const auto& t : docs[d].tokens) {
        auto& c = counts[t];
        ++c.first;
        if (seen.insert(t).second) ++c.second;
      }
    }
    std::vector<std::pair<std::string, std::size_t>> ranked;
    ranked.reserve(counts.size());
    for (auto& [w, c] : counts)
      if (c.second >= min_documents) ranked.emplace_back(w, c.first);
    const std::size_t keep = std::min(V, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                      [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    Vocabulary v;
    v.words.reserve(keep);
    for (std::size_t i = 0; i < keep; ++i) {
      v.index.emplace(ranked[i].first, static_cast<std::uint32_t>(i));
      v.words.push_back(std::move(ranked[i].first));
    }
    return v;
  }
};

/// A sparse bag-of-words corpus in CSR form: document d's distinct words are
/// word[offset[d] .. offset[d+1]) with counts count[...], word ids ascending.
struct Corpus {
  std::size_t vocabulary_size = 0;
  std::vector<std::size_t> offset{0};
  std::vector<std::uint32_t> word;
  std::vector<std::uint32_t> count;
  std::vector<int> label;
  std::vector<std::string> name;

  std::size_t size() const { return offset.size() - 1; }
  std::size_t nonzeros() const { return word.size(); }
  std::size_t length(std::size_t d) const {
    std::size_t n = 0;
    for (std::size_t j = offset[d]; j < offset[d + 1]; ++j) n += count[j];
    return n;
  }
  std::size_t tokens() const {
    std::size_t n = 0;
    for (auto c : count) n += c;
    return n;
  }
  /// Appends a document from (word id, count) pairs (any order, repeats merged). An empty one is refused.
  void add(std::vector<std::pair<std::uint32_t, std::uint32_t>> entries, int lab = -1, std::string nm = {}) {
    require(!entries.empty(), "corpus: a document with no words");
    std::sort(entries.begin(), entries.end());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      require(entries[i].first < vocabulary_size,
              "corpus: word id {} outside the vocabulary of size {}", entries[i].first, vocabulary_size);
      if (i > 0 && entries[i].first == entries[i - 1].first) count.back() += entries[i].second;
      else word.push_back(entries[i].first), count.push_back(entries[i].second);
    }
    offset.push_back(word.size());
    label.push_back(lab);
    name.push_back(std::move(nm));
  }
  /// The documents `ids` of this corpus as a new corpus.
  Corpus subset(const std::vector<std::size_t>& ids) const {
    Corpus c;
    c.vocabulary_size = vocabulary_size;
    for (std::size_t d : ids) {
      require(d < size(), "corpus: document index {} out of range (size {})", d, size());
      for (std::size_t j = offset[d]; j < offset[d + 1]; ++j) c.word.push_back(word[j]), c.count.push_back(count[j]);
      c.offset.push_back(c.word.size());
      c.label.push_back(label[d]);
      c.name.push_back(name[d]);
    }
    return c;
  }
};

/// Maps tokenised documents through a vocabulary. Words outside it are counted in report.out_of_vocabulary;
/// documents left with no word are counted in report.empty_documents and dropped (their indices are not
/// in the result). `kept` receives the index in `ids` of each kept document.
inline Corpus to_corpus(const std::vector<RawDocument>& docs, const std::vector<std::size_t>& ids, const Vocabulary& vocab,
                        TextReport& report, std::vector<std::size_t>* kept = nullptr) {
  Corpus c;
  c.vocabulary_size = vocab.size();
  std::unordered_map<std::uint32_t, std::uint32_t> bag;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& doc = docs[ids[i]];
    bag.clear();
    for (const auto& t : doc.tokens) {
      const auto w = vocab.find(t);
      if (w < 0) {
        ++report.out_of_vocabulary;
        continue;
      }
      ++bag[static_cast<std::uint32_t>(w)];
      ++report.tokens;
    }
    if (bag.empty()) {
      ++report.empty_documents;
      report.note(doc.name);
      continue;
    }
    entries.assign(bag.begin(), bag.end());
    c.add(entries, doc.label, doc.name);
    if (kept) kept->push_back(i);
  }
  return c;
}

/// Sparse tf-idf with L2 normalisation: value(d, w) = tf·log(N/df(w)), each row scaled to unit norm,
/// so a document is a point on S^{V-1} (Salton & Buckley 1988; the SAM papers' input). idf is fitted
/// on the corpus it is given (pass the training corpus's `idf` to transform a test corpus). A row whose
/// words all have idf 0 (in every document) falls back to normalised raw counts rather than 0/0.
struct TfIdf {
  Eigen::VectorXd idf;
  static Eigen::VectorXd fit_idf(const Corpus& c) {
    Eigen::VectorXd df = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(c.vocabulary_size));
    for (auto w : c.word) df[w] += 1;
    const double N = static_cast<double>(c.size());
    Eigen::VectorXd idf(df.size());
    for (Eigen::Index w = 0; w < df.size(); ++w) idf[w] = df[w] > 0 ? std::log(N / df[w]) : 0.0;
    return idf;
  }
  /// Values aligned with c.word (CSR); each document's row has unit L2 norm.
  std::vector<double> transform(const Corpus& c) const {
    require(static_cast<std::size_t>(idf.size()) == c.vocabulary_size, "tfidf: idf and corpus vocabularies differ");
    std::vector<double> v(c.word.size());
    for (std::size_t d = 0; d < c.size(); ++d) {
      double ss = 0;
      for (std::size_t j = c.offset[d]; j < c.offset[d + 1]; ++j) {
        v[j] = c.count[j] * idf[c.word[j]];
        ss += v[j] * v[j];
      }
      if (ss == 0) {
        for (std::size_t j = c.offset[d]; j < c.offset[d + 1]; ++j) v[j] = c.count[j], ss += v[j] * v[j];
      }
      const double inv = 1.0 / std::sqrt(ss);
      for (std::size_t j = c.offset[d]; j < c.offset[d + 1]; ++j) v[j] *= inv;
    }
    return v;
  }
};

/// A seeded split of n items: a keyed permutation (random::Permutation), the first round(test_fraction·n)
/// to test, the rest to train, both sorted. Same seed, same split on any machine.
struct Split {
  std::vector<std::size_t> train, test;
};
inline Split split(std::size_t n, double test_fraction, std::uint64_t seed) {
  require(test_fraction >= 0 && test_fraction < 1, "test_fraction: expected a number in [0, 1), got {}", test_fraction);
  Split s;
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
  random::Permutation perm(n, seed, 0x7e57, 0);
  for (std::size_t i = 0; i < n; ++i) (i < n_test ? s.test : s.train).push_back(static_cast<std::size_t>(perm(i)));
  std::sort(s.train.begin(), s.train.end());
  std::sort(s.test.begin(), s.test.end());
  return s;
}

}  // namespace sgmcmc::text
