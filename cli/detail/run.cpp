// `PROG run [CONFIG] [-o RUN] [--format ...]`: runs a config (none: the program's default, e.g. the
// embedded demo) and writes its record.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/overlap.hpp>
#include <sgmcmc/cli/detail/report.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/runner.hpp>

namespace sgmcmc::cli::detail {

Command add_run(CLI::App& app, Context& ctx) {
  struct Options {
    std::string config_path, out_path;
    bool print_default = false;
    bool log_likelihood = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("run", "Run a JSON config (no CONFIG: " + ctx.program.default_config_note + ") and write a run record");
  sub->add_option("CONFIG", o->config_path, "JSON config (the vocabulary of docs/config.md)");
  auto* output = sub->add_option("-o,--output", o->out_path, "where to write the JSON run record");
  sub->add_option("--threads", ctx.opt.threads, "threads for the chains (default: one per core; at most four per core, or 64)");
  sub->add_flag("--print-default-config", o->print_default, "print the default config and exit");
  sub->add_flag("--log-likelihood", o->log_likelihood,
                "write each kept draw's pointwise log-likelihood (a data target's; in CSV and NetCDF): the config's \"log_likelihood\": true");
  sub->add_flag("-q,--quiet", ctx.quiet, "print nothing but errors");
  add_format_option(*sub, ctx);
  return {sub, output, /*over_ranks=*/true, [&ctx, o] {
            const std::string& name = ctx.program.name;
            if (o->out_path.empty() && ctx.formats != ctx.default_formats) {
              std::cerr << fmt::format("{}: error: --format needs -o (the path the outputs are named after)\n", name);
              return 2;
            }
            if (o->print_default) {
              std::cout << ctx.program.default_config.dump(2) << '\n';
              return 0;
            }
            ctx.formats_from_ending(o->out_path);
            const std::vector<NamedPath> outputs = outputs_of(o->out_path, ctx.registered(), ctx.formats);
            if (const auto e = output_overlap(outputs, {{"the config file", o->config_path}})) {
              std::cerr << fmt::format("{}: error: {}\n", name, *e);
              return 2;
            }
            run::json config = o->config_path.empty() ? ctx.program.default_config : run::read_json_file(o->config_path);
            if (o->log_likelihood && config.is_object()) config["log_likelihood"] = true;
            if (const auto e = output_overlap(outputs, data_files(config))) {  // before any data is read
              std::cerr << fmt::format("{}: error: {}\n", name, *e);
              return 2;
            }
            if (o->config_path.empty() && !ctx.quiet)
              std::cout << fmt::format("no CONFIG given: running {} ({} run --print-default-config)\n", ctx.program.default_config_note, name);
            run::Options opt = ctx.opt;
            if (ctx.quiet) opt.progress = false;
            // The handlers first: check_writable's probe is a named temporary, which a signal's default
            // action would leave behind.
            InterruptHandlers handlers;
            if (ctx.root && !o->out_path.empty()) run::check_writable(o->out_path);  // before sampling, not after it
            opt.stop = &interrupt_requested();
            if (!o->out_path.empty()) opt.output_folder = std::filesystem::path(o->out_path).parent_path();
            opt.sampling = &sampling_started();
            return run_and_report(ctx, ctx.root ? o->out_path : "", [&](std::span<run::output::Writer* const> writers) {
              return run::run(config, opt, ctx.registry, writers);
            });
          }};
}

}  // namespace sgmcmc::cli::detail
