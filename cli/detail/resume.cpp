// `PROG resume RUN [--steps K] -o RUN2 [--format ...]`: continues a record, exactly as if the run had
// never stopped (no --steps: to the config's steps, which completes an interrupted run).
#include <filesystem>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/report.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/runner.hpp>

namespace sgmcmc::cli::detail {

Command add_resume(CLI::App& app, Context& ctx) {
  struct Options {
    std::string record_path, out_path;
    std::uint64_t more_steps = 0;
    CLI::Option* steps = nullptr;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("resume", "Continue a run record for more steps, exactly as if it had never stopped");
  sub->add_option("RUN", o->record_path, "run record to continue")->required();
  o->steps = sub->add_option("--steps", o->more_steps,
                             "how many more steps per chain (default: to the config's steps, which completes an interrupted run)")
                 ->check(CLI::PositiveNumber);
  auto* output = sub->add_option("-o,--output", o->out_path, "where to write the continued record")->required();
  sub->add_option("--threads", ctx.opt.threads, "threads for the chains (default: one per core; at most four per core, or 64)");
  sub->add_flag("-q,--quiet", ctx.quiet, "print nothing but errors");
  sub->add_flag("--allow-changed", ctx.opt.allow_changed_config,
                "resume even if the record's config was edited after it was written (the record notes it)");
  add_format_option(*sub, ctx);
  return {sub, output, /*over_ranks=*/true, [&ctx, o] {
            ctx.formats_from_ending(o->out_path);
            if (const auto e = output_overlap(outputs_of(o->out_path, ctx.registered(), ctx.formats),
                                              {{"the run record it continues (RUN)", o->record_path}})) {
              if (ctx.root) std::cerr << fmt::format("{}: error: {}\n", ctx.program.name, *e);
              return 2;
            }
            run::Options opt = ctx.opt;
            if (ctx.quiet) opt.progress = false;
            InterruptHandlers handlers;
            if (ctx.root) run::check_writable(o->out_path);
            opt.stop = &interrupt_requested();
            opt.output_folder = std::filesystem::path(o->out_path).parent_path();
            opt.sampling = &sampling_started();
            const std::optional<std::uint64_t> steps = o->steps->count() ? std::optional(o->more_steps) : std::nullopt;
            return run_and_report(ctx, ctx.root ? o->out_path : "", [&](std::span<run::output::Writer* const> writers) {
              return run::resume_file(o->record_path, steps, opt, ctx.registry, writers);
            });
          }};
}

}  // namespace sgmcmc::cli::detail
