#pragma once
// Resuming a run record, from a file or from memory, through one path: the record checked as a whole
// (schema, config digest, each chain's identity, stream, position and draw count), its chains rebuilt
// at their saved states, its draws replayed into the writers, and the run continued exactly as if it
// had never stopped.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run {

/// How far a resumed chain's saved position may lie from its manifold: far above the drift of any
/// shipped flow over a long run (1e-12 and below), far below any edit that changes a draw.
inline constexpr double resume_manifold_tolerance = 1e-6;

/// Continues a record held in memory for `steps` more steps per chain (none: to the config's `steps`, which
/// completes an interrupted run), exactly as if the run had never stopped; returns the whole continued
/// record (schema version 2), draws included.
json resume(const json& record, std::optional<std::uint64_t> steps, const Options& opt = {},
            const Registry& registry = shipped_registry());

/// Continues a record held in memory, streaming every draw (the record's and the new ones) to `writers`
/// (the Python module's fit, python/module.cpp); returns the continued record without draws.
json resume(const json& record, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
            std::span<output::Writer* const> writers);

/// Continues the record in file `path` for `steps` more steps per chain (none: to the config's `steps`),
/// streaming every draw (the record's and the new ones) to `writers`; returns the continued record
/// without draws.
json resume_file(const std::string& path, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
                 std::span<output::Writer* const> writers);

namespace detail {

// The steps of a resume, each its own function so that tests/fuzz/ can drive them without stepping.

/// Whether the record's config is the one its draws were made with (records without a digest, written
/// before it existed, are taken as they are). Edited and not allowed: an error naming the field.
bool config_changed(const json& record, const Options& opt);

/// Checks what a resumed record must satisfy beyond its shape: each chain's identity and stream (two
/// chains with one stream would make the same draws), its saved position finite and on the manifold (a
/// step would silently project an edited one back), and its number of draws the one its steps_done,
/// burn_in and thin keep (draws deleted or added; an impossible steps_done).
void check_restored(const json& record, const RunConfig& c, const std::vector<std::unique_ptr<AnyChain>>& chains,
                    const std::vector<std::uint64_t>& draws, bool config_changed);

/// Rebuilds a record's chains at their saved states, ready to continue.
std::vector<std::unique_ptr<AnyChain>> restore_chains(const json& record, const RunConfig& c);

/// Where each chain's resume ends: `steps` more steps, or (none given) the config's `steps` in all, which
/// completes an interrupted run.
std::vector<std::uint64_t> resume_ends(const std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                       std::optional<std::uint64_t> steps);

/// The largest of `v` (0 for none).
std::uint64_t most(const std::vector<std::uint64_t>& v);

/// A record `sgmcmc thin` wrote holds a selection of draws, not chains that can go on: an error naming /thinned.
void require_resumable(const json& record);

}  // namespace detail
}  // namespace sgmcmc::run
