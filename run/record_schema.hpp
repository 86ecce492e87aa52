#pragma once
// The run record's schema (docs/run-format.md) and the record's parts every command shares: the
// record without draws that a run finishes with, the header writers get from a config, a draw read
// back as a writer's row.
//
// Record schema "sgmcmc.run", version 2:
//   {schema, schema_version, library{name, version}, config (every default filled in), status,
//    timings{phases[{phase, steps, setup_seconds, sampling_seconds}]},
//    chains[{id, stream, status, error?, draws, diagnostics{...}, state{...},
//            sample_stats{name: [...]}, samples[[...]]}],
//    config_digest, data_files[{pointer, bytes, hash, examples}] (run/data_files.hpp),
//    parameters[{name, shape}] (the draw's named blocks, run/output/parameters.hpp; absent: one block x)}
// Version 1 (no draws, no sample_stats) is still read.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run {

inline constexpr const char* schema_name = "sgmcmc.run";
inline constexpr int schema_version = 2;

/// A digest of a resolved config: FNV-1a (64 bits) over its compact JSON text, which is canonical
/// (objects keep their keys sorted; doubles print in their shortest round-trip form). The record
/// carries it; resume compares it with the record's config to tell an edited config from the one the
/// draws were made with. A check against edits, not against an adversary.
std::string config_digest(const json& config);

/// Checks a record's schema and shape, naming the first field that is wrong. (A record read by
/// output::read_record has its draws taken out: `samples` is then an empty array.)
void validate_record(const json& r);

namespace detail {

/// The draw's named blocks for a run of config `c` — the one place every output's names come from (a
/// run's, and convert's, thin's and resume's from the record's config): the target's (`names`, or its
/// own), else the manifold's (a product's factors), else one block `x` of the manifold's shape.
output::Parameters parameters_of(const RunConfig& c);

/// What every writer needs before the first draw, for chains built from `c`; `total_steps`: the steps
/// the longest chain will have done at the end.
output::RunHeader header_of(const RunConfig& c, const AnyChain& chain, std::uint64_t total_steps);

/// Writer::warm_up_done for each chain of `record` whose saved state is past the burn-in, with that
/// state (what a warm-up adapts stays fixed after it): before `resume` or `convert` replays its draws.
void warm_ups_from_record(std::span<output::Writer* const> writers, const json& record, const RunConfig& c);

/// The reproducibility tier this binary was built for (modules/simd/reproducibility.hpp): a record
/// written by a "native" build replays bit for bit only on a machine with its instruction set.
json build_of_this_binary();

/// The record without draws: schema, library, config, status, timings and each chain's status,
/// diagnostics ({diagnostics, state} in `summaries`) and number of draws kept.
json record_of(const RunConfig& c, const std::vector<json>& summaries, const std::vector<ChainStatus>& status,
               const std::vector<std::uint64_t>& kept, json phases, bool interrupted);

/// One entry of the record's timings.phases.
json phase(const char* name, std::uint64_t steps, double setup, double sampling);

/// A record's config parsed against `registry`, its relative data paths read from `record_folder` (the
/// record file's folder; empty: the working directory; run/data_files.hpp); errors name the field
/// under /config (or /data_files).
RunConfig config_of(const json& record, const Registry& registry, const Placement& placement = {nullptr, true},
                    const std::filesystem::path& record_folder = {});

/// A record read from folder `from` and written to folder `to` (convert, thin): its config's relative data
/// paths made relative to `to`, and its config_digest renewed if it matched before (an edit stays one).
void move_record_paths(json& record, const std::filesystem::path& from, const std::filesystem::path& to);

/// The recorded config's relative data paths made relative to the outputs' folder (Options::output_folder;
/// none: left as they are), before any output is begun.
void write_paths_for(RunConfig& c, const Options& opt);

/// Checks a draw read back from a record against the run's shape (`index`: its place in its chain).
void check_width(const output::RecordDraw& d, const output::RunHeader& h, std::uint64_t index);

/// A draw read back, as a writer's row: the statistics the buffer's header declares, by name, into a
/// StepInfo (a column no statistic of the sampler's names is not carried over), lp apart.
/// A record draw's step statistics (those of `statistics` it names), and its lp when `lp` is given.
StepInfo step_info_of(const output::RecordDraw& d, const std::vector<const Statistic*>& statistics, double* lp = nullptr);
void add_draw(output::BlockBuffer& buffer, const output::RecordDraw& d);

}  // namespace detail
}  // namespace sgmcmc::run
