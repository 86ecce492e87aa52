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
