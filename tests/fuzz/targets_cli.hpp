#pragma once
// The command line's own readers as fuzz targets (issue #40 item 6), beside tests/fuzz/targets.hpp's
// config and record readers, with the same contract: an entry function returns, or throws
// sgmcmc::Error whose message passes `names_a_place` (it starts with a JSON path or a file's name;
// here both begin with '/'); anything else is a finding. The bytes come in a MemFile; no chain is run.
//
//   fuzz_sweep(bytes): bytes as `sgmcmc sweep`'s config: read as the CLI reads it, its grid read
//     (run::sweep_grid) and each point's config parsed as run::sweep would run it (at most 64 points;
//     a point's Error is caught, as the sweep reports it and goes on).
//   fuzz_reference(bytes): bytes as a `sweep --reference` file, read both ways the CLI may read it: as
//     a Stan CSV (a name ending in .csv) and as a run record; each reading pooled over two files too.
//   fuzz_record_cli(bytes): bytes as the record that `convert`, `summary` and `thin` trust: converted to
//     every shipped format (JSON record, Stan CSV, NetCDF, draws CSV) in a scratch folder inside the
//     working directory (tests/fuzz/run.sh runs the fuzzer in an empty one), summarised into a string
//     (as JSON, and as text with the Stein diagnostics: `summary --stein`), and Stein-thinned to 2 draws
//     per chain through the JSON and Stan CSV writers.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <sgmcmc/cli/detail/report.hpp>
#include <sgmcmc/run/convert.hpp>
#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/run/stein.hpp>
#include <sgmcmc/run/sweep.hpp>

#include "targets.hpp"

namespace sgmcmc::fuzz {

/// The product of the sizes of the arrays in a sweep section's grid, as an upper bound of its points:
/// inputs above 4096 are skipped (a 4 kB input can ask for 10^8 points, each a config copied).
inline double grid_size(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("sweep") || !config["sweep"].is_object()) return 0;
  const nlohmann::json& g = config["sweep"];
  const auto size = [&g](const char* k) { return g.contains(k) && g[k].is_array() ? std::max<double>(1, static_cast<double>(g[k].size())) : 1.0; };
  double steps = size("step_sizes");
  if (g.contains("samplers") && g["samplers"].is_array())
    for (const auto& e : g["samplers"])
      if (e.is_object() && e.contains("step_sizes") && e["step_sizes"].is_array()) steps = std::max<double>(steps, static_cast<double>(e["step_sizes"].size()));
  return size("samplers") * steps * size("batch_sizes");
}

inline void fuzz_sweep(std::string_view bytes) {
  const MemFile file(bytes);
  const nlohmann::json config = run::read_json_file(file.path());
  if (names_outside_file(config) || grid_size(config) > 4096) return;
  const run::SweepGrid grid = run::sweep_grid(config);
  for (std::size_t i = 0; i < grid.points.size() && i < 64; ++i) {
    try {
      (void)run::parse_config(grid.points[i].config, run::shipped_registry());
    } catch (const Error&) {  // run::sweep reports the point as failed and goes on
    }
  }
}

inline void fuzz_reference(std::string_view bytes) {
  const MemFile file(bytes);
  const std::vector<std::string> one{file.path()}, two{file.path(), file.path()};
  try {
    (void)run::read_reference(one, run::detail::reference_csv_draws);
    (void)run::read_reference(two, run::detail::reference_csv_draws);
  } catch (const Error& e) {
    if (!names_a_place(e.what())) throw;
  }
  (void)run::read_reference(one, run::detail::reference_record_draws);
  (void)run::read_reference(two, run::detail::reference_record_draws);
}

/// The scratch folder of fuzz_record_cli's outputs, absolute (so a writer's message, which names its
/// file, starts with '/'): fuzz_record_cli_out/ in the working directory.
inline std::string cli_scratch() {
  static const std::string dir = [] {
    const auto d = std::filesystem::absolute("fuzz_record_cli_out");
    std::filesystem::create_directories(d);
    return d.string();
  }();
  return dir;
}

inline void fuzz_record_cli(std::string_view bytes) {
  const MemFile file(bytes);
  const std::string& path = file.path();
  {  // the config the commands rebuild: skipped as fuzz_record skips it (a data file, huge generated data)
    nlohmann::json record;
    try {
      record = run::output::read_record(path, [](const run::output::RecordDraw&) {}, false);
    } catch (const Error&) {
    }
    if (record.is_object() && record.contains("config") && names_outside_file(record["config"])) return;
    // Stan CSV writes a file per chain: a record of thousands of chains is thousands of files.
    if (record.is_object() && record.contains("config") && record["config"].is_object() && record["config"].contains("chains") &&
        record["config"]["chains"].is_number() && record["config"]["chains"].get<double>() > 16)
      return;
  }
  const run::output::Formats formats = run::output::builtin_formats();
  const std::vector<std::string> all{"json", "csv", "netcdf", "draws_csv"};
  const std::string out = cli_scratch() + "/out.json";
  std::vector<Error> errors;
  // convert RUN --format json,csv,netcdf,draws_csv -o OUT
  try {
    auto files = formats.writers(out, all);
    run::convert(path, run::shipped_registry(), cli::detail::pointers(files), nullptr);
  } catch (const Error& e) {
    if (!names_a_place(e.what())) throw;
  }
  // summary RUN [--json] [--stein]
  try {
    std::ostringstream os;
    cli::detail::print_summary_of_file(path, os, true, nullptr);
    cli::detail::print_summary_of_file(path, os, false, &run::shipped_registry());
  } catch (const Error& e) {
    if (!names_a_place(e.what())) throw;
  }
  // thin RUN --to 2 -o OUT --format json,csv (NetCDF, the slowest to write, is convert's alone)
  auto files = formats.writers(out, {"json", "csv"});
  (void)run::thin(path, 2, run::shipped_registry(), cli::detail::pointers(files));
}

}  // namespace sgmcmc::fuzz
