#pragma once
// The command line of the run layer, as a library function: `sgmcmc::cli::main(argc, argv, registry)`
// is the whole `sgmcmc` tool (apps/sgmcmc.cpp calls it with the shipped registry). A user's own tool
// is the same function with their own manifolds, targets and samplers registered — see
// examples/custom_cli/. This is the top layer (apps): nothing in the library includes it.
//   PROG run [CONFIG] [-o RUN] [--format FORMAT,...]   (no CONFIG: the default config given, e.g. the embedded demo)
//   PROG resume RUN [--steps K] -o RUN2 [--format ...]   (no --steps: to the config's steps)
//   PROG convert RUN --format FORMAT,... -o OUT [--stein]
//   PROG summary RUN [--json] [--stein]   (--stein: KSD, configurational temperature and gradient noise, run/stein.hpp)
//   PROG thin RUN --to M -o OUT [--format ...]   (Stein thinning of each chain to M draws)
//   PROG sweep CONFIG --reference REF... -o OUT.json [--svg PLOT.svg [--plot-x seconds] [--plot-y max_sd_error]]
//        [--reference-seconds S]   (the bias harness, run/sweep.hpp)
//   PROG list                          the registered manifolds, targets, samplers and output formats
// The output formats are registered too (run/output/formats.hpp; `Program::formats`, by default the
// shipped json, csv and netcdf): `--format` accepts their names, and its help and errors list them.
// Exit codes: 0 ok; 1 bad input (config, record, file); 2 bad command line; 3 a chain stopped with an
// error (the record, with every draw made before it, is still written); 128 + N interrupted by signal N
// (SIGINT, SIGTERM: the record of the draws so far is written, status "interrupted", resumable).
// Compiled once into sgmcmc::cli (cli/main.cpp): a tool's own source includes only this header.
#include <string>

#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::cli {

using run::json;

/// The formats the sgmcmc tool writes: json, csv and netcdf (run/output/builtin_formats.hpp).
run::output::Formats shipped_formats();

/// What a tool built on `main` calls itself, which config `run` without CONFIG uses and which output
/// formats `--format` offers.
struct Program {
  std::string name = "sgmcmc";
  std::string description = "sgmcmc: stochastic-gradient MCMC on flat space and manifolds";
  json default_config = run::default_config();
  std::string default_config_note = "the embedded default demo";
  /// The output formats of run, resume, convert and thin (`--format`); the first is the default. A
  /// tool adds its own with `formats.add(entry)` (examples/custom_cli/table_format.hpp).
  run::output::Formats formats = shipped_formats();
  /// The processes of an MPI run (run/distributed/mpi.hpp; null: this process alone). Rank 0 writes
  /// the outputs and prints; the other ranks print only an error of their own.
  run::distributed::Transport* transport = nullptr;
};

/// The whole command line: parses argv, runs, resumes or summarises with `registry`'s entries, prints
/// errors as "PROG: error: ..." and returns the exit code.
int main(int argc, const char* const* argv, const run::Registry& registry, const Program& program = {});

}  // namespace sgmcmc::cli
