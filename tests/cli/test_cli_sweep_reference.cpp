// `sweep --reference FILE` reads a file the user names, which may be anything (issue #40): a field that
// is not a number is reported by its place (file, line, column), never by its contents.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace test_cli_sweep_reference {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;
using sgmcmc_test::cli::json;
using sgmcmc_test::cli::Result;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_sweep_reference_scratch");
  return dir;
}

TEST_CASE("sweep --reference: a CSV field that is not a number is named by file, line and column, its contents never echoed") {
  // Catches: the reference reader quoting the offending field (and its column's name) in the error, which
  // printed a secret from a mistaken file (a .env) and let terminal escapes in it act on the terminal.
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                       {"steps", 50}, {"chains", 1}, {"seed", 1},
                       {"sweep", {{"samplers", json::array({{{"name", "sgld"}}})}, {"step_sizes", {0.1}}}}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "sweep.json", config);
  const fs::path ref = scratch() / "ref.csv";
  std::ofstream(ref) << "lp__,x.1,TOKEN_NAME\n0,1,2\n0,\x1b]0;API_KEY=hunter2\x07,3\n";
  const Result r = sgmcmc_test::cli::run_cli(
      scratch(), fmt::format("sweep -q '{}' --reference '{}' -o '{}'", cfg.string(), ref.string(), (scratch() / "out.json").string()));
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.err.find(ref.string() + ":3: column 2: expected a number") != std::string::npos, r.err);
  CHECK(r.err.find("hunter2") == std::string::npos);
  CHECK(r.err.find("TOKEN_NAME") == std::string::npos);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find('\x07') == std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "out.json"));
}

}  // namespace test_cli_sweep_reference
