// Regenerates the complete recipe's Fig. 2 and the SGHMC paper's Figs. 1–3 as JSON files of numbers
// (plot them with experiments/recipe/plot.py). Usage: reproduce_recipe OUTDIR [--quick] [NAME...]
// NAME: fig2_left fig2_right sghmc_fig1 sghmc_fig2 sghmc_fig3 (default: all).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <sgmcmc/run/json_file.hpp>

#include "experiments.hpp"

int main(int argc, char** argv) {
  using namespace sgmcmc::experiments;
  bool quick = false;
  // Each experiment by name, in the order they run; `quick` is read when one runs, after parsing.
  const std::vector<std::pair<std::string, std::function<json()>>> experiments = {
      {"fig2_left",
       [&] {
         Fig2LeftConfig c;
         if (quick) c.steps = 200'000;
         return json{{"targets", fig2_left(c)}};
       }},
      {"fig2_right", [&] { return fig2_right(quick ? 20'000 : 100'000, 10, 0.01, 7); }},
      {"sghmc_fig1", [&] { return sghmc_fig1(quick ? 20'000 : 80'000, 5); }},
      {"sghmc_fig2", [&] { return sghmc_fig2(quick ? 3000 : 15'000, quick ? 100 : 400, 11); }},
      {"sghmc_fig3", [&] { return sghmc_fig3(quick ? 1'000'000 : 10'000'000, 3); }},
  };
  std::vector<std::string> names;
  for (const auto& e : experiments) names.push_back(e.first);

  CLI::App app{"Regenerates the complete recipe's Fig. 2 and the SGHMC paper's Figs. 1-3 as JSON (plot: experiments/recipe/plot.py)",
               "reproduce_recipe"};
  std::string dir;
  std::vector<std::string> only;
  app.add_option("OUTDIR", dir, "folder for the NAME.json files")->required();
  app.add_flag("--quick", quick, "smaller runs (5-10x fewer steps; the docs publish the full runs)");
  app.add_option("NAME", only, "experiments to run (default: all)")->check(CLI::IsMember(names));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto want = [&](const std::string& n) { return only.empty() || std::find(only.begin(), only.end(), n) != only.end(); };
  try {
    for (const auto& [name, experiment] : experiments) {
      if (!want(name)) continue;
      json j = experiment();
      j["name"] = name;
      j["quick"] = quick;
      const std::string path = dir + "/" + name + ".json";
      sgmcmc::run::write_json_file(j, path, 1);
      std::printf("wrote %s\n", path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reproduce_recipe: %s\n", e.what());
    return 1;
  }
  return 0;
}
