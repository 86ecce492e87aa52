// The command line (cli/main.hpp), compiled once into sgmcmc::cli: the app, its subcommands (one file
// each in cli/detail/) and what every command shares — MPI ranks, the -o check and the exit codes of
// errors.
#include <sgmcmc/cli/main.hpp>

#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::cli {

run::output::Formats shipped_formats() { return run::output::builtin_formats(); }

int main(int argc, const char* const* argv, const run::Registry& registry, const Program& program) {
  CLI::App app{program.description, program.name};
  app.set_version_flag("--version", program.name + " (sgmcmc " + std::string(sgmcmc::version) + ")");
  app.require_subcommand(1);
  detail::Context ctx(registry, program);
  ctx.opt.progress = ::isatty(STDERR_FILENO) != 0;
  const std::vector<detail::Command> commands = {detail::add_run(app, ctx),     detail::add_resume(app, ctx),
                                                 detail::add_convert(app, ctx), detail::add_summary(app, ctx),
                                                 detail::add_thin(app, ctx),    detail::add_sweep(app, ctx),
                                                 detail::add_tune(app, ctx),    detail::add_list(app, ctx)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const auto& c : commands)
    if (c.output && c.output->count() > 0 && c.output->as<std::string>().empty()) {
      std::cerr << fmt::format("{}: error: -o: the output file name is empty\n", program.name);
      return 2;
    }
  const detail::Command* command = nullptr;
  for (const auto& c : commands)
    if (*c.app) command = &c;
  if (!command) return 0;  // require_subcommand(1): CLI11 has already refused
  // Over MPI (docs/distributed.md) every rank runs the same command; rank 0 writes and prints. Only
  // run and resume go over the ranks: any other command (a sweep's runs too) is rank 0's alone (its
  // files written once).
  ctx.opt.transport = command->over_ranks ? program.transport : nullptr;
  ctx.root = !program.transport || program.transport->rank() == 0;
  if (!ctx.root) {
    if (!command->over_ranks) return 0;
    ctx.quiet = true;
    ctx.opt.progress = false;
  }
  try {
    return command->execute();
  } catch (const run::distributed::AgreedError& e) {
    if (ctx.root) std::cerr << program.name << ": error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    if (program.transport && program.transport->size() > 1) {
      // This rank alone: the others may be waiting for it in a collective. Stop them all.
      std::cerr << fmt::format("{}: error on rank {} of {}: {}; stopping every rank\n", program.name, program.transport->rank(),
                               program.transport->size(), e.what());
      program.transport->abort(1);
    }
    std::cerr << program.name << ": error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace sgmcmc::cli
