// `PROG convert RUN --format FORMAT,... -o OUT [--stein]`: a record written again in other formats (or
// as a version-2 record), with the Stein diagnostics if asked.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/cli/detail/report.hpp>
#include <sgmcmc/run/convert.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>

namespace sgmcmc::cli::detail {

Command add_convert(CLI::App& app, Context& ctx) {
  struct Options {
    std::string in, out;
    bool stein = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("convert", "Write a JSON run record in other formats (--format: those listed below) or as a version-2 record");
  sub->add_option("RUN", o->in, "run record to convert")->required();
  auto* output = sub->add_option("-o,--output", o->out, "output path (the files each format writes: below)")->required();
  add_format_option(*sub, ctx, /*required=*/true);
  sub->add_flag("--stein", o->stein,
                "also compute the Stein diagnostics (as summary --stein: KSD, configurational temperature, gradient noise) and write them with the draws");
  return {sub, output, /*over_ranks=*/false, [&ctx, o] {
            if (const auto e = output_overlap(outputs_of(o->out, ctx.registered(), ctx.formats), {{"the run record it converts (RUN)", o->in}})) {
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            // Nothing is kept if stopped: a signal exits at once, leaving no temporary (check_writable's probe,
            // NetCDF's named one) and every target as it was or complete.
            InterruptHandlers handlers(FirstSignal::exits);
            run::check_writable(o->out);
            auto files = ctx.registered().writers(o->out, ctx.formats);
            const std::vector<run::output::Writer*> writers = pointers(files);
            const run::json stein = o->stein ? stein_of_file(o->in, read_with_draws(o->in), ctx.registry) : run::json(nullptr);
            run::convert(o->in, ctx.registry, writers, stein, std::filesystem::path(o->out).parent_path());
            if (!ctx.quiet) print_written(files);
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
