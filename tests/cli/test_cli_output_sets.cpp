// A run's outputs as a set (issue #40, item 1): `--format json,csv,…` replaces all of them or none.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <sys/wait.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

namespace test_cli_output_sets {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;
using sgmcmc_test::cli::json;
using sgmcmc_test::cli::Result;
using sgmcmc_test::cli::slurp;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_output_sets_scratch");
  return dir;
}
Result sgmcmc(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }


bool temporaries_left() {
  for (const auto& e : fs::directory_iterator(scratch()))
    if (e.path().filename().string().starts_with(".")) return true;
  return false;
}

TEST_CASE("--format json,csv,draws_csv: a format that fails to write leaves every output as it was") {
  // Catches: outputs committed one by one as each format finished, so that a format failing after the
  // JSON record was renamed left a new record beside old CSV files (the README promises all or nothing).
  // The failure: a file-size limit (ulimit -f, SIGXFSZ ignored) between the JSON record's size and the
  // draws table's, measured on a first run, so that only the draws table fails, at its final write.
  const auto first = sgmcmc_test::cli::write_json(scratch(), "first.json", sgmcmc_test::cli::sgld_gaussian_1d(4100, 5));
  const fs::path out = scratch() / "set.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv,draws_csv", first.string(), out.string())).code == 0);
  const auto json_size = fs::file_size(out), table_size = fs::file_size(scratch() / "set_draws.csv");
  REQUIRE(table_size > json_size + 8192);
  const std::string json_before = slurp(out), csv_before = slurp(scratch() / "set_1.csv");
  const auto second = sgmcmc_test::cli::write_json(scratch(), "second.json", sgmcmc_test::cli::sgld_gaussian_1d(4100, 6));
  const auto limit_kb = (json_size + table_size) / 2 / 1024;
  const std::string cmd = fmt::format("trap '' XFSZ; ulimit -f {}; exec '{}' run -q '{}' -o '{}' --format json,csv,draws_csv", limit_kb,
                                      SGMCMC_CLI, second.string(), out.string());
  const std::string shell = fmt::format("bash -c \"{}\" 2> '{}'", cmd, (scratch() / "limited.err").string());
  const int status = std::system(shell.c_str());
  const std::string err = slurp(scratch() / "limited.err");
  CHECK_MESSAGE(WIFEXITED(status), err);
  CHECK_MESSAGE(WEXITSTATUS(status) == 1, err);
  CHECK_MESSAGE(err.find("set_draws.csv: write failed") != std::string::npos, err);
  CHECK(slurp(out) == json_before);  // not replaced by the second run's record
  CHECK(slurp(scratch() / "set_1.csv") == csv_before);
  CHECK_FALSE(temporaries_left());
}

}  // namespace test_cli_output_sets
