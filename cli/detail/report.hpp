#pragma once
// What the command line prints about a run: the summary table, the chains' diagnostics, the Stein
// report and Stan's warnings, for a run just made (run_and_report) or a record on disk.
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::cli::detail {

using run::json;

struct Context;

/// Prints the summary of a run: `record` without its draws (run/runner.hpp), `chains` its draws, a row
/// per coordinate named as posterior names it (`b_age`, `x[1]`, `W1[2,3]`: run/output/parameters.hpp's
/// bracket_names of `parameters`), and the Stein diagnostics when given (run::stein_report).
void print_summary(const json& record, const std::vector<Eigen::MatrixXd>& chains, const run::output::Parameters& parameters,
                   std::ostream& os, bool as_json, const json& stein = nullptr);

/// A record read for its summary: the record without draws, and its chains' draws as matrices (read
/// as doubles, never as a JSON tree).
struct RecordWithDraws {
  json record;
  std::vector<Eigen::MatrixXd> chains;
  run::output::Parameters parameters;  ///< the record's `parameters` (an older record's: one block x)
};
RecordWithDraws read_with_draws(const std::string& path);

/// The Stein report of the record at `path` (`summary --stein`, `convert --stein`).
json stein_of_file(const std::string& path, const RecordWithDraws& r, const run::Registry& registry);

/// `summary RUN [--stein]`: with `registry`, adds the Stein diagnostics (the record's target rebuilt
/// from its config); without, prints those the record carries (`convert --stein` wrote them).
void print_summary_of_file(const std::string& path, std::ostream& os, bool as_json, const run::Registry* stein_registry = nullptr);

/// The writers `files` holds, as the run and convert functions take them.
std::vector<run::output::Writer*> pointers(const std::vector<std::unique_ptr<run::output::Writer>>& files);

/// "written: FILE, FILE, ..." for the files of `writers`.
void print_written(const std::vector<std::unique_ptr<run::output::Writer>>& writers);

/// Runs `work(writers)` with the writers of ctx.formats at `out` (none without -o, or on an MPI rank
/// other than 0) plus, unless quiet, the summary's; then prints the summary and what was written, and
/// returns the exit code (3 for a chain that stopped with an error, 128 + N for signal N).
int run_and_report(const Context& ctx, const std::string& out,
                   const std::function<json(std::span<run::output::Writer* const>)>& work);

}  // namespace sgmcmc::cli::detail
