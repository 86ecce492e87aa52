// Replays the committed fuzz corpus (tests/fuzz/corpus/config/, tests/fuzz/corpus/record/) through the
// fuzz targets' entry functions (tests/fuzz/targets.hpp), deterministically, in every build: under the
// sanitizer build this is the fuzzers' check without libFuzzer. Each input either passes or throws
// sgmcmc::Error whose message names a JSON path or the file; any other exception fails the test, a crash
// or sanitizer report fails the program.
//
// tests/fuzz/corpus/open/<target>/ holds reproducers of findings not fixed yet (docs/reliability.md):
// they are not replayed by default (a crash would end the program); once one is fixed, move it into
// tests/fuzz/corpus/<target>/. `test_fuzz --no-skip` replays them too, except those named hang_*;
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

#include "targets.hpp"

namespace {

namespace fs = std::filesystem;

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

// Runs every file of `dir` through `entry`: each must pass or throw a clean sgmcmc::Error.
template <class Entry>
void replay(const std::string& dir, Entry entry, bool require_files) {
  const auto files = corpus_files(dir);
  if (require_files) REQUIRE(files.size() >= 10);
  int passed = 0, refused = 0;
  const bool verbose = std::getenv("SGMCMC_FUZZ_VERBOSE") != nullptr;  // each file's outcome on stdout
  for (const auto& f : files) {
    INFO("corpus file: ", f.string());
    if (!require_files && f.filename().string().starts_with("hang_")) {  // an open hang would stop the test
      MESSAGE("not replayed (an open hang): ", f.string());
      continue;
    }
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
  // The seeds include valid inputs: a reader that refuses everything would not be fuzzed.
  if (require_files) CHECK(passed > 0);
}

}  // namespace

TEST_CASE("fuzz corpus: configs") { replay("config", sgmcmc::fuzz::fuzz_config, true); }

TEST_CASE("fuzz corpus: run records") { replay("record", sgmcmc::fuzz::fuzz_record, true); }

TEST_CASE("fuzz corpus: open findings" * doctest::skip()) {
  replay("open/config", sgmcmc::fuzz::fuzz_config, false);
  replay("open/record", sgmcmc::fuzz::fuzz_record, false);
}

TEST_CASE("fuzz targets: a data file outside the working directory is skipped, not read") {
  CHECK(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"({"target": {"name": "logistic", "data": "/dev/zero"}})")));
  CHECK(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"([{"x": {"data": "../a.csv"}}])")));
  CHECK_FALSE(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"({"target": {"name": "logistic", "data": "a.csv"}})")));
  CHECK_NOTHROW(sgmcmc::fuzz::fuzz_config(R"({"sampler": {"name": "sgld", "step_size": 0.1},
                                              "target": {"name": "logistic", "data": "/dev/zero"}})"));
}
