// Regenerates the complete recipe's Fig. 2 and the SGHMC paper's Figs. 1–3 as JSON files of numbers
// (plot them with experiments/recipe/plot.py). Usage: reproduce_recipe OUTDIR [--quick] [NAME...]
// NAME: fig2_left fig2_right sghmc_fig1 sghmc_fig2 sghmc_fig3 (default: all).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "experiments.hpp"

int main(int argc, char** argv) {
  using namespace sgmcmc::experiments;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTDIR [--quick] [fig2_left|fig2_right|sghmc_fig1|sghmc_fig2|sghmc_fig3...]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool quick = false;
  std::set<std::string> only;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else only.insert(a);
  }
  auto want = [&](const std::string& n) { return only.empty() || only.count(n) > 0; };
  auto write = [&](const std::string& name, json j) {
    j["name"] = name;
    j["quick"] = quick;
    std::ofstream(dir + "/" + name + ".json") << j.dump(1) << "\n";
    std::printf("wrote %s/%s.json\n", dir.c_str(), name.c_str());
  };
  try {
    if (want("fig2_left")) {
      Fig2LeftConfig c;
      if (quick) c.steps = 200'000;
      write("fig2_left", {{"targets", fig2_left(c)}});
    }
    if (want("fig2_right")) write("fig2_right", fig2_right(quick ? 20'000 : 100'000, 10, 0.01, 7));
    if (want("sghmc_fig1")) write("sghmc_fig1", sghmc_fig1(quick ? 20'000 : 80'000, 5));
    if (want("sghmc_fig2")) write("sghmc_fig2", sghmc_fig2(quick ? 3000 : 15'000, quick ? 100 : 400, 11));
    if (want("sghmc_fig3")) write("sghmc_fig3", sghmc_fig3(quick ? 1'000'000 : 10'000'000, 3));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reproduce_recipe: %s\n", e.what());
    return 1;
  }
  return 0;
}
