// `run` without -o (issue #39 item 5): it says it wrote nothing, and writes nothing.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

namespace test_cli_no_output {

using namespace sgmcmc_test::cli;

TEST_CASE("run without -o says that nothing was written, and writes nothing") {
  // Catches a run whose draws vanish without a word (the summary alone suggested they were kept).
  const fs::path dir = scratch_dir("cli_no_output");
  write_json(dir, "c.json", sgld_gaussian_1d(1000, 3));
  const Result r = run_cli_in(dir, "run c.json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("nothing written (no -o: give -o RUN.json to keep the draws and the chains' states)") != std::string::npos);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().filename() != "c.json" && e.path().extension() != ".txt";
  CHECK(files == 0);
  const Result with = run_cli_in(dir, "run c.json -o r.json");
  CHECK(with.out.find("written: r.json") != std::string::npos);
  CHECK(with.out.find("nothing written") == std::string::npos);
}

}  // namespace test_cli_no_output

namespace test_cli_no_output {

TEST_CASE("a chain that diverges in the burn-in: the cause, and no 'steps <= burn_in?' guess") {
  // Catches the message that blamed the config (steps <= burn_in?) for a run that diverged (issue #39).
  const fs::path dir = scratch_dir("cli_diverged_in_burn_in");
  json c = sgld_gaussian_1d(1000, 3);
  c["sampler"]["step_size"] = 5.0;  // SGLD on N(0, 1) at h = 5: x <- -4x + noise, which overflows in ~500 steps
  c["burn_in"] = 900;
  write_json(dir, "c.json", c);
  const Result r = run_cli_in(dir, "run c.json -o r.json");
  CHECK(r.code == 3);
  CHECK(r.err.find("non-finite") != std::string::npos);
  CHECK(r.out.find("no draws kept: a chain stopped with an error before keeping any (its message above)") != std::string::npos);
  CHECK(r.out.find("steps <= burn_in?") == std::string::npos);
}

}  // namespace test_cli_no_output

namespace test_cli_no_output {

TEST_CASE("summary of a Stan CSV, draws_csv or NetCDF file says what the file is and what summary reads") {
  // Catches the JSON parse error ("syntax error ... '#'") that was all a user got (issue #39 item 5).
  const fs::path dir = scratch_dir("cli_summary_formats");
  write_json(dir, "c.json", sgld_gaussian_1d(300, 3));
  REQUIRE(run_cli_in(dir, "run c.json -o r.json -q --format json,csv,netcdf,draws_csv").code == 0);
  for (const char* file : {"r_1.csv", "r.nc", "r_draws.csv"}) {
    const Result r = run_cli_in(dir, std::string("summary ") + file);
    CHECK(r.code == 1);
    CHECK(r.err.find(std::string(file) + ": this is a") != std::string::npos);
    CHECK(r.err.find("summary reads the JSON run record") != std::string::npos);
  }
  CHECK(run_cli_in(dir, "summary r.json").code == 0);
}

}  // namespace test_cli_no_output
