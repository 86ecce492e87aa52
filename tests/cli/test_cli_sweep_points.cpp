// `sweep` with a point that diverges (issue #34 item 5). Before: the point was `"status": "error"` with
// no message and max_z 4.5e306, the console printed a 300-digit number, and the SVG's log axis ran to
// 1e307 with ~310 overlapping labels, every valid point squashed flat; points of equal cost (every step
// size of a sampler runs the same steps) stacked on one vertical line.
// Catches: a failed point without its chain's error, a failed point plotted, an axis with a label per
// decade over hundreds of decades, a default x axis on which one sampler's points coincide.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <string>

namespace test_cli_sweep_points {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_sweep_points_scratch");
  return dir;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("sweep: a diverged point keeps its chain's error, is printed as such and left out of the plot") {
  json base = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}}, {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
               {"target", {{"name", "gaussian"}}}, {"steps", 2000}, {"burn_in", 100}, {"chains", 2}, {"seed", 3}};
  const fs::path ref_cfg = write_json(scratch(), "ref.json", base), ref = scratch() / "ref_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", ref_cfg.string(), ref.string())).code == 0);
  // SGLD on N(0, I): x ← (1 − h)x + √(2h)ξ grows by |1 − h| a step; h = 30 leaves the doubles in ~200 steps.
  json grid = base;
  grid["sweep"] = {{"samplers", json::array({{{"name", "sgld"}}})}, {"step_sizes", {0.05, 0.1, 0.2, 30.0}}};
  const fs::path cfg = write_json(scratch(), "grid.json", grid), out = scratch() / "scores.json", svg = scratch() / "plot.svg";
  const Result r = run_cli(scratch(), fmt::format("sweep '{}' --reference '{}' -o '{}' --svg '{}'", cfg.string(), ref.string(),
                                                  out.string(), svg.string()));
  CAPTURE(r.out);
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const json s = read_json(out);
  REQUIRE(s["points"].size() == 4);
  const json& bad = s["points"][3];
  CHECK(bad["status"] == "error");
  REQUIRE(bad.contains("error"));
  CHECK(bad["error"].get<std::string>().starts_with("chain "));
  CHECK(r.out.find("sgld h = 30: error: chain ") != std::string::npos);
  for (int k = 0; k < 3; ++k) CHECK(s["points"][k]["status"] == "ok");
  const std::string plot = slurp(svg);
  CHECK(plot.find("1 point left out (failed, or not finite)") != std::string::npos);
  CHECK(count(plot, "<circle") == 3);           // the three good points, the failed one out
  CHECK(count(plot, "text-anchor=\"end\">1e") <= 12);  // the y axis's labels: a handful, not ~310
  CHECK(plot.find(">step size</text>") != std::string::npos);
  // The three points sit at three different x (their step sizes), not on one vertical line.
  std::vector<std::string> xs;
  for (std::size_t at = plot.find("<circle cx=\""); at != std::string::npos; at = plot.find("<circle cx=\"", at + 1))
    xs.push_back(plot.substr(at + 12, plot.find('"', at + 12) - at - 12));
  REQUIRE(xs.size() == 3);
  CHECK(xs[0] != xs[1]);
  CHECK(xs[1] != xs[2]);
}

}  // namespace test_cli_sweep_points
