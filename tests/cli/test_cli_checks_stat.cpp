// docs/config.md's complete config, run as it stands (issue #39 item 5): a statistical claim — its run
// has no warning from R-hat, ESS or the default checks — so it runs in the optimised build (4 chains of
// 80 000 steps with 10 000 pointwise log-likelihoods a draw: 4 s here, 28 s under the sanitizers).
#include <doctest/doctest.h>

#include <string>

#include "../support/cli.hpp"

namespace test_cli_checks_stat {

using namespace sgmcmc_test::cli;

TEST_CASE("docs/config.md's complete config runs as it stands, with no warning") {
  // Catches a complete config in the docs that no longer parses (a renamed field), or that makes a run
  // the library itself warns about.
  const std::string doc = slurp(fs::path(SGMCMC_SOURCE_DIR) / "docs" / "config.md");
  const std::size_t marker = doc.find("<!-- complete-config -->");
  REQUIRE(marker != std::string::npos);
  const std::size_t begin = doc.find("```json\n", marker) + 8, end = doc.find("```", begin);
  const json config = json::parse(doc.substr(begin, end - begin));
  const fs::path dir = scratch_dir("cli_checks_complete_config");
  write_json(dir, "complete.json", config);
  const Result r = run_cli_in(dir, "run complete.json -o run.json");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("warning") == std::string::npos);
  const json record = read_json(dir / "run.json");
  CHECK(record["chains"].size() == 4);
  for (const json& chain : record["chains"]) {
    CHECK(chain["warnings"].empty());
    CHECK(chain["checks"]["configurational_temperature"]["draws"] == 900);
    CHECK(chain["checks"]["kinetic_temperature"]["draws"] == 900);
  }
}

}  // namespace test_cli_checks_stat
