// `summary` prints every number in its column's width (issue #34 item 5): a diverged chain's values,
// 4.5e306, were printed as 300-digit numbers and a NaN as "-nan", which broke every column.
// Catches: a fixed-point format that does not fall back to scientific notation, "-nan" or "nan" signs.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <sstream>
#include <string>

namespace test_cli_summary_numbers {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_summary_numbers_scratch");
  return dir;
}

}  // namespace

TEST_CASE("summary: huge and non-finite values keep their columns (scientific notation past the width, nan not -nan)") {
  const json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}}, {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
                  {"target", {{"name", "gaussian"}}}, {"steps", 40}, {"chains", 2}, {"seed", 2}};
  const fs::path cfg = write_json(scratch(), "c.json", c);
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg.string(), (scratch() / "r.json").string())).code == 0);
  json record = read_json(scratch() / "r.json");
  // Coordinate 0 as a diverging chain leaves it (finite but astronomically large), coordinate 2 with a
  // draw that is not a number (a record's null).
  for (auto& ch : record["chains"])
    for (std::size_t k = 0; k < ch["samples"].size(); ++k) ch["samples"][k][0] = -4.5e300 * (1.0 + static_cast<double>(k));
  record["chains"][1]["samples"][3][2] = nullptr;
  const fs::path edited = write_json(scratch(), "diverged.json", record);
  const Result r = run_cli(scratch(), fmt::format("summary '{}'", edited.string()));
  CAPTURE(r.out);
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("-nan") == std::string::npos);
  std::istringstream lines(r.out);
  std::string line, header;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("parameter")) header = line;
    if (line.starts_with("chain")) break;  // the table's rows end where the chains' lines begin
    if (header.empty() || line == header) continue;
    CHECK(line.size() == header.size());  // every row as wide as the header: no number overflowed its column
    ++rows;
  }
  CHECK(rows == 3);
  CHECK(r.out.find("e+30") != std::string::npos);  // the huge mean, in scientific notation
}

}  // namespace test_cli_summary_numbers
