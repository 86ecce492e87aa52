// `PROG sweep CONFIG --reference REF... -o OUT.json [--svg PLOT.svg ...]`: the bias harness (run/sweep.hpp),
// a grid of samplers × step sizes × batch sizes scored against a reference posterior.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/sweep_svg.hpp>
#include <sgmcmc/run/sweep.hpp>

namespace sgmcmc::cli::detail {

Command add_sweep(CLI::App& app, Context& ctx) {
  struct Options {
    std::string config, out, svg;
    std::vector<std::string> reference;
    std::string plot_x = "step_size", plot_y = "max_z";
    double reference_seconds = 0;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("sweep", "The bias harness: a grid of samplers × step sizes × batch sizes scored against a reference posterior");
  sub->add_option("CONFIG", o->config, "run config with a \"sweep\" section (docs/samplers.md)")->required();
  sub->add_option("--reference", o->reference, "the reference: Stan CSV files (chains pooled) or a run record")->required()->delimiter(',');
  auto* output = sub->add_option("-o,--output", o->out, "where to write the scores (JSON)")->required();
  sub->add_option("--svg", o->svg, "also plot bias against step size or cost (one line per sampler) to this SVG file");
  sub->add_option("--plot-x", o->plot_x, "the plot's x axis: step_size (default), gradient_evals or seconds (set-up and sampling)")
      ->check(CLI::IsMember({"step_size", "gradient_evals", "seconds"}));
  sub->add_option("--plot-y", o->plot_y, "the plot's error axis: max_z (default) or max_sd_error")->check(CLI::IsMember({"max_z", "max_sd_error"}));
  sub->add_option("--reference-seconds", o->reference_seconds,
                  "the reference's own wall time (NUTS's, say): each point's seconds as a fraction of it, and a line on a plot in seconds")
      ->check(CLI::PositiveNumber);
  sub->add_option("--threads", ctx.opt.threads, "threads for each run's chains (default: one per core; at most four per core, or 64)");
  sub->add_flag("-q,--quiet", ctx.quiet, "print nothing but errors");
  return {sub, output, /*over_ranks=*/false, [&ctx, o] {
            std::vector<NamedPath> inputs = {{"the sweep's config (CONFIG)", o->config}};
            for (const auto& r : o->reference) inputs.push_back({"a --reference file", r});
            if (const auto e = output_overlap({{"-o", o->out}, {"--svg", o->svg}}, inputs)) {
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            // Nothing is kept if stopped: a signal exits at once, leaving no temporary (check_writable's probe,
            // NetCDF's named one) and every target as it was or complete.
            InterruptHandlers handlers(FirstSignal::exits);
            run::check_writable(o->out);
            if (!o->svg.empty()) run::check_writable(o->svg);
            const run::json config = run::read_json_file(o->config);
            if (const auto e = output_overlap({{"-o", o->out}, {"--svg", o->svg}}, data_files(config))) {  // before any data is read
              std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            run::Reference ref = run::read_reference(o->reference);
            ref.seconds = o->reference_seconds;
            run::Options opt = ctx.opt;
            opt.progress = false;
            const bool quiet = ctx.quiet;
            const run::json result = run::sweep(config, ref, opt, ctx.registry, [quiet](const run::json& p) {
              if (quiet) return;
              if (p["status"] == "error" && p.contains("error")) {
                std::cout << fmt::format("{} h = {}: error: {}\n", p["sampler"].get<std::string>(), p["step_size"].get<double>(),
                                         run::printable(p["error"].get<std::string>(), 200));
                return;
              }
              std::cout << fmt::format("{} h = {}{}: max z {:.3f}, max |sd ratio − 1| {:.3f}, ESS/s {:.4g}, {} gradients\n",
                                       p["sampler"].get<std::string>(), p["step_size"].get<double>(),
                                       p["batch_size"].is_number() ? fmt::format(" n = {}", p["batch_size"].get<std::uint64_t>()) : "",
                                       p["max_z"].get<double>(), p["max_sd_error"].get<double>(),
                                       p["ess_per_second"].is_number() ? p["ess_per_second"].get<double>() : 0.0,
                                       p["gradient_evals"].get<std::uint64_t>());
            });
            run::write_json_file(result, o->out, 1);
            if (!o->svg.empty()) {
              run::AtomicFile file(o->svg);
              using Plot = run::output::SweepPlot;
              file.write(run::output::sweep_svg(result, {o->plot_x == "seconds"          ? Plot::X::seconds
                                                         : o->plot_x == "gradient_evals" ? Plot::X::gradient_evals
                                                                                         : Plot::X::step_size,
                                                         o->plot_y == "max_z" ? Plot::Accuracy::max_z : Plot::Accuracy::max_sd_error}));
              file.commit();
            }
            if (!quiet) std::cout << "written: " << o->out << (o->svg.empty() ? "" : ", " + o->svg) << '\n';
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
