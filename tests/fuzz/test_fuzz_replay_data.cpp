// Replays the data readers' committed fuzz corpora (tests/fuzz/corpus/labelled_csv/, idx/, ratings/,
// text_corpora/) through their entry functions (tests/fuzz/targets_data.hpp), deterministically, in every
// build: under the sanitizer build this is the fuzzers' check without libFuzzer. Each input either
// passes or throws sgmcmc::Error whose message names the file; any other exception (fuzz_labelled_csv
// throws std::logic_error when its three readings disagree) fails the test, a crash or sanitizer report
// fails the program. The findings' reproducers (docs/reliability.md, D1, D2, ...) are among the files.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "targets_data.hpp"

namespace test_fuzz_replay_data {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus_files(const std::string& dir) {
  std::vector<fs::path> files;
  const fs::path root = fs::path(SGMCMC_SOURCE_DIR) / "tests/fuzz/corpus" / dir;
  if (!fs::is_directory(root)) return files;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs every file of `dir` through `entry`: each must pass or throw a clean sgmcmc::Error; the seeds
// hold valid inputs (a reader that refuses everything would not be fuzzed) and hostile ones.
template <class Entry>
void replay(const std::string& dir, Entry entry) {
  const auto files = corpus_files(dir);
  REQUIRE(files.size() >= 10);
  int passed = 0, refused = 0;
  const bool verbose = std::getenv("SGMCMC_FUZZ_VERBOSE") != nullptr;  // each file's outcome on stdout
  for (const auto& f : files) {
    INFO("corpus file: ", f.string());
    const std::string bytes = contents(f);
    try {
      entry(bytes);
      ++passed;
      if (verbose) std::printf("%s: passed\n", f.filename().c_str());
    } catch (const sgmcmc::Error& e) {
      const std::string message = e.what();
      INFO("message: ", message);
      if (verbose) std::printf("%s: sgmcmc::Error: %s\n", f.filename().c_str(), message.c_str());
      CHECK(sgmcmc::fuzz::names_a_place(message));
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("an exception other than sgmcmc::Error: ", std::string(e.what()));
    }
  }
  MESSAGE(dir, ": ", files.size(), " files, ", passed, " passed, ", refused, " refused with sgmcmc::Error");
  CHECK(passed > 0);
  CHECK(refused > 0);
}

}  // namespace

TEST_CASE("fuzz corpus: labelled CSV (chunked, small chunks and the general parser agree)") {
  replay("labelled_csv", sgmcmc::fuzz::fuzz_labelled_csv);
}

TEST_CASE("fuzz corpus: IDX images and labels") { replay("idx", sgmcmc::fuzz::fuzz_idx); }

TEST_CASE("fuzz corpus: ratings CSV") { replay("ratings", sgmcmc::fuzz::fuzz_ratings); }

TEST_CASE("fuzz corpus: text corpora (mail, Brown, King James Bible)") {
  replay("text_corpora", sgmcmc::fuzz::fuzz_text_corpora);
}

}  // namespace test_fuzz_replay_data
