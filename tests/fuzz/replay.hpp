#pragma once
// Replaying a committed fuzz corpus (tests/fuzz/corpus/<dir>/) through a fuzz target's entry function,
// deterministically, in every build: under the sanitizer build this is the fuzzers' check without
// libFuzzer. Each file either passes or throws sgmcmc::Error whose message names a JSON path or the file
// (names_a_place, tests/fuzz/entries.hpp); any other exception fails the test, a crash or sanitizer report
// fails the program. The replay tests (tests/fuzz/test_fuzz_replay*.cpp) call `replay` per corpus.
// SGMCMC_FUZZ_VERBOSE=1 prints each file's outcome.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <sgmcmc/modules/error.hpp>

#include "entries.hpp"

namespace sgmcmc::fuzz {

/// A corpus's kind: the seeds (and fixed findings' reproducers), or tests/fuzz/corpus/open/<target>/,
/// the reproducers of findings not fixed yet (replayed only with --no-skip; `hang_*` never).
enum class Corpus { seeds, open };

inline std::vector<std::filesystem::path> corpus_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  const fs::path root = fs::path(SGMCMC_SOURCE_DIR) / "tests/fuzz/corpus" / dir;
  if (!fs::is_directory(root)) return files;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs every file of corpus `dir` through `entry`. Seeds: at least 10 files, some passing (a reader
/// that refuses everything would not be fuzzed) and some refused (the hostile ones).
template <class Entry>
void replay(const std::string& dir, Entry entry, Corpus kind = Corpus::seeds) {
  const auto files = corpus_files(dir);
  if (kind == Corpus::seeds) REQUIRE(files.size() >= 10);
  int passed = 0, refused = 0;
  const bool verbose = std::getenv("SGMCMC_FUZZ_VERBOSE") != nullptr;
  for (const auto& f : files) {
    INFO("corpus file: ", f.string());
    if (kind == Corpus::open && f.filename().string().starts_with("hang_")) {  // an open hang would stop the test
      MESSAGE("not replayed (an open hang): ", f.string());
      continue;
    }
    const std::string bytes = file_bytes(f);
    try {
      entry(bytes);
      ++passed;
      if (verbose) std::printf("%s: passed\n", f.filename().c_str());
    } catch (const sgmcmc::Error& e) {
      const std::string message = e.what();
      INFO("message: ", message);
      if (verbose) std::printf("%s: sgmcmc::Error: %s\n", f.filename().c_str(), message.c_str());
      CHECK(names_a_place(message));
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("an exception other than sgmcmc::Error: ", std::string(e.what()));
    }
  }
  MESSAGE(dir, ": ", files.size(), " files, ", passed, " passed, ", refused, " refused with sgmcmc::Error");
  if (kind == Corpus::seeds) {
    CHECK(passed > 0);
    CHECK(refused > 0);
  }
}

}  // namespace sgmcmc::fuzz
