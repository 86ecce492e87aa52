// `PROG summary RUN [--json] [--stein]`: the per-coordinate summary of a record, with the Stein
// diagnostics if asked (run/stein.hpp).
#include <iostream>
#include <memory>
#include <string>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/report.hpp>

namespace sgmcmc::cli::detail {

Command add_summary(CLI::App& app, Context& ctx) {
  struct Options {
    std::string path;
    bool json = false, stein = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("summary", "Per-coordinate mean, sd, quantiles, bulk/tail ESS and split-R̂ of a run");
  sub->add_option("RUN", o->path, "run record")->required();
  sub->add_flag("--json", o->json, "print the summary as JSON");
  sub->add_flag("--stein", o->stein,
                "add each chain's kernel Stein discrepancy and configurational temperature, and the gradient noise at its draws "
                "(one full-data gradient per draw; euclidean targets)");
  return {sub, nullptr, /*over_ranks=*/false, [&ctx, o] {
            print_summary_of_file(o->path, std::cout, o->json, o->stein ? &ctx.registry : nullptr);
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
