// Your own `sgmcmc` tool: the library's command line (run, resume, summary, list — run records,
// resume and diagnostics included) over the shipped entries plus your own manifold and potential,
// driven by a JSON config like any other:
//
//   example_custom_cli run oblique_vmf.json -o run.json     (or `run` alone: the same config, embedded)
//   example_custom_cli run oblique_vmf.json -o run.json --format json,table   (also run.txt, our format)
//   example_custom_cli resume run.json --steps 1000 -o run2.json
//   example_custom_cli list
//
// Registered here (entries.hpp): the manifold "oblique" (examples/oblique/oblique.hpp: n×k matrices
// with unit columns) and the target "columns_vmf", a user potential: each column of X is an independent
// vMF(μ, κ) on S^{n−1}, U(X) = −κ Σ_j μᵀx_j. Every shipped sampler that runs on a manifold (sggmc,
// gsgnht, gmc, sgld) runs on them, with no library code changed for it. And an output format of our
// own (table_format.hpp): "table", the draws as a plain-text table, beside the shipped json, csv, netcdf.
#include <sgmcmc/cli/main.hpp>

#include "entries.hpp"
#include "table_format.hpp"

int main(int argc, char** argv) {
  sgmcmc::run::Registry registry = sgmcmc::run::builtin_registry();  // the shipped entries ...
  registry.add(user::oblique_manifold()).add(user::columns_vmf_target());  // ... and ours
  sgmcmc::cli::Program program;
  program.name = "example_custom_cli";
  program.description = "sgmcmc with a user manifold (oblique), a user potential (columns_vmf) and a user output format (table)";
  program.default_config = sgmcmc::run::json::parse(R"({
    "manifold": {"name": "oblique", "n": 3, "k": 2},
    "target": {"name": "columns_vmf", "mu": [0, 0, 1], "kappa": 4},
    "sampler": {"name": "sggmc", "step_size": 0.1, "friction": 1},
    "steps": 20000, "burn_in": 2000, "chains": 2, "seed": 11
  })");
  program.default_config_note = "SGGMC on OB(3, 2) with vMF(e3, 4) columns";
  program.formats.add(user::table_format());  // --format table, beside the shipped formats
  return sgmcmc::cli::main(argc, argv, registry, program);
}
