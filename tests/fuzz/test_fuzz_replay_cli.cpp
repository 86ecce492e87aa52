// Replays the committed corpora of the command line's fuzz targets (tests/fuzz/corpus/sweep/,
// corpus/reference/, corpus/record_cli/) through their entry functions (tests/fuzz/targets_cli.hpp, by name: entries.hpp), as
// tests/fuzz/test_fuzz_replay.cpp does for the config and record readers: each input passes or throws
// sgmcmc::Error whose message names a JSON path or the file; anything else fails. Reproducers of open
// findings go in tests/fuzz/corpus/open/<target>/ (not replayed by default; `--no-skip` replays them).
#include <filesystem>

#include <doctest/doctest.h>

#include "entries.hpp"
#include "replay.hpp"

namespace test_fuzz_replay_cli {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;

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

TEST_CASE("fuzz corpus: sweep configs") { sgmcmc::fuzz::replay("sweep", sgmcmc::fuzz::entry("sweep")); }

TEST_CASE("fuzz corpus: sweep --reference files") { sgmcmc::fuzz::replay("reference", sgmcmc::fuzz::entry("reference")); }

TEST_CASE("fuzz corpus: records as convert, summary and thin read them") {
  const InScratch here;
  sgmcmc::fuzz::replay("record_cli", sgmcmc::fuzz::entry("record_cli"));
}

TEST_CASE("fuzz corpus: open findings of the command line's readers" * doctest::skip()) {
  const InScratch here;
  sgmcmc::fuzz::replay("open/sweep", sgmcmc::fuzz::entry("sweep"), sgmcmc::fuzz::Corpus::open);
  sgmcmc::fuzz::replay("open/reference", sgmcmc::fuzz::entry("reference"), sgmcmc::fuzz::Corpus::open);
  sgmcmc::fuzz::replay("open/record_cli", sgmcmc::fuzz::entry("record_cli"), sgmcmc::fuzz::Corpus::open);
}

}  // namespace test_fuzz_replay_cli
