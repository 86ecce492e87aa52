#pragma once
// What the command line's subcommands share (cli/main.cpp builds the app, one file here per subcommand
// adds its own options and its work): the program and registry, the run options, the output formats.
// Internal to sgmcmc::cli (compiled with CLI11, not installed).
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <sgmcmc/cli/main.hpp>
#include <sgmcmc/run/options.hpp>

namespace sgmcmc::cli::detail {

/// The state every subcommand reads and the parse fills.
struct Context {
  const run::Registry& registry;
  const Program& program;
  run::Options opt;                          ///< --threads, --allow-changed, the progress bar
  bool quiet = false;                        ///< -q
  std::vector<std::string> formats;          ///< --format (run, resume, convert, thin)
  std::vector<std::string> default_formats;  ///< the first registered format's name
  bool formats_given = false;                ///< --format was on the command line
  bool root = true;                          ///< rank 0 of an MPI run, or the only process

  Context(const run::Registry& r, const Program& p);
  const run::output::Formats& registered() const { return program.formats; }
  /// Without --format, the format -o's ending names (`-o r.csv`: csv, `-o r.nc`: netcdf), if any; called
  /// by each command that writes formats before it uses `formats`.
  void formats_from_ending(const std::string& out) {
    if (formats_given) return;
    if (std::string f = registered().format_of(out); !f.empty()) formats = {std::move(f)};
  }
};

/// A subcommand as the app sees it: its parser, its -o option (checked non-empty before any command
/// runs), whether it runs on every MPI rank (run, resume) or on rank 0 alone, and its work (the exit code).
struct Command {
  CLI::App* app = nullptr;
  CLI::Option* output = nullptr;
  bool over_ranks = false;
  std::function<int()> execute;
};

// One per subcommand, each in its own file (cli/detail/<name>.cpp).
Command add_run(CLI::App& app, Context& ctx);
Command add_resume(CLI::App& app, Context& ctx);
Command add_convert(CLI::App& app, Context& ctx);
Command add_summary(CLI::App& app, Context& ctx);
Command add_thin(CLI::App& app, Context& ctx);
Command add_sweep(CLI::App& app, Context& ctx);
Command add_tune(CLI::App& app, Context& ctx);
Command add_list(CLI::App& app, Context& ctx);

/// "name (alias a, b)": an entry's names as `list` and the formats' help show them.
std::string names_with_aliases(const std::vector<std::string>& names);

/// --format on `sub`: the names of the registered formats (split at commas, each checked; the error
/// lists them), and the help's footer of what each writes. `required`: convert's (no default).
void add_format_option(CLI::App& sub, Context& ctx, bool required = false);

}  // namespace sgmcmc::cli::detail
