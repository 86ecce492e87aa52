// A write that fails part-way — a full disk, here a file-size limit (`ulimit -f`, SIGXFSZ ignored, as a
// full disk fails: write() returns an error) — is an error naming the file, exit 1, with no temporary
// left and an existing output kept (issue #40 item 3). Before: a NetCDF output crashed the process at
// exit (SIGSEGV in HDF5's exit handler, exit 139) after printing netCDF-C++'s "file: ncFile.cpp line:33".
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <string>

namespace test_cli_disk_full {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_disk_full_scratch");
  return dir;
}

// `sgmcmc ARGS` in `dir` with files limited to 100 KB (sh's ulimit -f counts 512-byte blocks) and
// SIGXFSZ ignored (an ignored signal stays ignored across exec), so a write past the limit fails.
Result limited(const fs::path& dir, const std::string& args) {
  return run_cli_after(dir, fmt::format("cd '{}' && trap '' XFSZ && ulimit -f 200 &&", dir.string()), args);
}

// Files of `dir` whose names start with '.': the outputs' named temporaries (.NAME.XXXXXX).
int temporaries(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().starts_with(".") ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("an output that hits a full disk is an error naming it: exit 1, no crash, no temporary, the old file kept") {
  // 2 chains × 20,000 draws of 50 numbers: megabytes in every format, far past the limit.
  const json big = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
                    {"manifold", {{"name", "euclidean"}, {"dim", 50}}},
                    {"target", {{"name", "gaussian"}}},
                    {"steps", 20000}, {"chains", 2}, {"seed", 1}};
  const fs::path cfg = write_json(scratch(), "big.json", big);
  for (const char* format : {"netcdf", "json", "csv"}) {
    CAPTURE(format);
    const fs::path dir = scratch() / format;
    fs::create_directories(dir);
    const std::string file = std::string(format) == "netcdf" ? "r.nc" : std::string(format) == "csv" ? "r_1.csv" : "r.json";
    write_json(dir, file, json{{"keep", "me"}});
    const Result r = limited(dir, fmt::format("run '{}' -q -o r --format {}", cfg.string(), format));
    CAPTURE(r.err);
    CHECK(r.code == 1);  // not 139 (SIGSEGV) nor 153 (SIGXFSZ)
    CHECK(r.err.find("error: r") != std::string::npos);
    CHECK(r.err.find("ncFile.cpp") == std::string::npos);
    CHECK(read_json(dir / file) == json{{"keep", "me"}});
    CHECK(temporaries(dir) == 0);
  }
  // convert to NetCDF, the same: the record is written without a limit first.
  const fs::path dir = scratch() / "convert";
  fs::create_directories(dir);
  REQUIRE(run_cli(dir, fmt::format("run '{}' -q -o '{}'", cfg.string(), (dir / "r.json").string())).code == 0);
  const Result c = limited(dir, "convert r.json --format netcdf -o c");
  CAPTURE(c.err);
  CHECK(c.code == 1);
  CHECK(c.err.find("c.nc: netCDF:") != std::string::npos);
  CHECK(c.err.find("writing failed") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "c.nc"));
  CHECK(temporaries(dir) == 0);
}

}  // namespace test_cli_disk_full
