// Replays the committed corpora of the command line's fuzz targets (tests/fuzz/corpus/sweep/,
// corpus/reference/, corpus/record_cli/) through their entry functions (tests/fuzz/targets_cli.hpp), as
// tests/fuzz/test_fuzz_replay.cpp does for the config and record readers: each input passes or throws
// sgmcmc::Error whose message names a JSON path or the file; anything else fails. Reproducers of open
// findings go in tests/fuzz/corpus/open/<target>/ (not replayed by default; `--no-skip` replays them).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "targets_cli.hpp"

namespace test_fuzz_replay_cli {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

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
    if (!require_files && f.filename().string().starts_with("hang_")) {
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
  if (require_files) CHECK(passed > 0);  // the seeds include valid inputs
}

// The record target writes its outputs under the working directory: a folder of the build's.
struct InScratch {
  fs::path before = fs::current_path();
  InScratch() {
    const fs::path d = fs::path(SGMCMC_BINARY_DIR) / "tests" / "fuzz_replay_cli_scratch";
    fs::create_directories(d);
    fs::current_path(d);
  }
  ~InScratch() { fs::current_path(before); }
};

}  // namespace

TEST_CASE("fuzz corpus: sweep configs") { replay("sweep", sgmcmc::fuzz::fuzz_sweep, true); }

TEST_CASE("fuzz corpus: sweep --reference files") { replay("reference", sgmcmc::fuzz::fuzz_reference, true); }

TEST_CASE("fuzz corpus: records as convert, summary and thin read them") {
  const InScratch here;
  replay("record_cli", sgmcmc::fuzz::fuzz_record_cli, true);
}

TEST_CASE("fuzz corpus: open findings of the command line's readers" * doctest::skip()) {
  const InScratch here;
  replay("open/sweep", sgmcmc::fuzz::fuzz_sweep, false);
  replay("open/reference", sgmcmc::fuzz::fuzz_reference, false);
  replay("open/record_cli", sgmcmc::fuzz::fuzz_record_cli, false);
}

}  // namespace test_fuzz_replay_cli
