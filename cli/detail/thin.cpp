// `PROG thin RUN --to M -o OUT [--format ...]`: Stein thinning (Riabiz et al. 2022) of each chain to the
// M draws that best represent the target.
#include <filesystem>
#include <cstddef>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/cli/detail/report.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/stein.hpp>

namespace sgmcmc::cli::detail {

Command add_thin(CLI::App& app, Context& ctx) {
  struct Options {
    std::string in, out;
    std::size_t to = 0;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("thin", "Stein thinning (Riabiz et al. 2022): each chain's draws cut to the M that best represent the target");
  sub->add_option("RUN", o->in, "run record to thin")->required();
  sub->add_option("--to", o->to, "draws to keep per chain")->required()->check(CLI::PositiveNumber);
  auto* output = sub->add_option("-o,--output", o->out, "where to write the thinned record")->required();
  sub->add_flag("-q,--quiet", ctx.quiet, "print nothing but errors");
  add_format_option(*sub, ctx);
  return {sub, output, /*over_ranks=*/false, [&ctx, o] {
            ctx.formats_from_ending(o->out);
            if (const auto e = output_overlap(outputs_of(o->out, ctx.registered(), ctx.formats), {{"the run record it thins (RUN)", o->in}})) {
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            // Nothing is kept if stopped: a signal exits at once, leaving no temporary (check_writable's probe,
            // NetCDF's named one) and every target as it was or complete.
            InterruptHandlers handlers(FirstSignal::exits);
            run::check_writable(o->out);
            auto files = ctx.registered().writers(o->out, ctx.formats);
            const std::vector<run::output::Writer*> writers = pointers(files);
            const run::json report = run::thin(o->in, o->to, ctx.registry, writers, {}, std::filesystem::path(o->out).parent_path());
            if (!ctx.quiet) {
              for (std::size_t i = 0; i < report["ksd_before"].size(); ++i)
                if (report["ksd_before"][i].is_number())
                  std::cout << fmt::format("chain {}: KSD {:.4g} over its draws, {:.4g} over the {} kept\n", i,
                                           report["ksd_before"][i].get<double>(), report["ksd_after"][i].get<double>(), o->to);
              print_written(files);
            }
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
