// `PROG tune CONFIG [-o TUNED.json] [--svg PLOT.svg]`: the tuning a config leaves to the tuner
// (run/tune.hpp), alone: its table of arms, and optionally the tuned config (the chosen settings and
// the `tune` record in place: `PROG run TUNED.json` runs it without tuning again) and a plot of each
// arm's score by round.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/tune.hpp>
#include <sgmcmc/run/tune_report.hpp>

namespace sgmcmc::cli::detail {

Command add_tune(CLI::App& app, Context& ctx) {
  struct Options {
    std::string config, out, svg;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("tune", "Tune what a config leaves out (its step size; docs/tuning.md) and print every arm and the choice");
  sub->add_option("CONFIG", o->config, "JSON config without a step size (or with \"step_size\": \"auto\")")->required();
  auto* output = sub->add_option("-o,--output", o->out, "also write the tuned config (JSON): `run` runs it without tuning again");
  sub->add_option("--svg", o->svg, "also plot each arm's KSD by round to this SVG file");
  sub->add_option("--threads", ctx.opt.threads, "threads for the arms (default: one per core; at most four per core, or 64)");
  sub->add_flag("-q,--quiet", ctx.quiet, "print nothing but errors");
  return {sub, output, /*over_ranks=*/false, [&ctx, o] {
            if (const auto e = output_overlap({{"-o", o->out}, {"--svg", o->svg}}, {{"the config file", o->config}})) {
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            InterruptHandlers handlers(FirstSignal::exits);
            if (!o->out.empty()) run::check_writable(o->out);
            if (!o->svg.empty()) run::check_writable(o->svg);
            const run::json config = run::read_json_file(o->config);
            if (const auto e = output_overlap({{"-o", o->out}, {"--svg", o->svg}}, data_files(config))) {
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            run::RunConfig c = run::parse_config(config, ctx.registry);
            if (!c.tune) throw Error("/sampler/step_size: nothing to tune: the config gives a step size (leave it out, or set \"auto\")");
            const run::json record = run::tune(c, ctx.registry, ctx.opt);
            if (!ctx.quiet) std::cout << run::tuning_table(record) << fmt::format("tuned in {:.3g} s\n", c.tuning_seconds);
            // Its data paths as CONFIG gives them: a config's relative paths are the working directory's
            // (a record's are its folder's; docs/config.md), so TUNED runs from where CONFIG ran.
            if (!o->out.empty()) run::write_json_file(c.resolved, o->out, 2);
            if (!o->svg.empty()) {
              run::AtomicFile file(o->svg);
              file.write(run::tuning_svg(record));
              file.commit();
            }
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
