#pragma once
// The run layer's API: run a config's chains on threads, streaming their draws to writers (run/output/:
// the JSON record, Stan CSV, NetCDF); resume a record (run/resume.hpp); convert one to other formats
// (run/convert.hpp). The record's schema is in run/record_schema.hpp, the run loop in run/streaming.hpp.
// Compiled once into sgmcmc::run.
#include <span>

#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/convert.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/record_schema.hpp>
#include <sgmcmc/run/resume.hpp>

namespace sgmcmc::run {

/// Runs a config from scratch, streaming its draws to `writers` (run/output/), and returns the record
/// without draws (each chain's `draws` counts them).
json run(const json& config, const Options& opt, const Registry& registry, std::span<output::Writer* const> writers);

/// Runs a config from scratch and returns the whole run record, draws included (schema version 2).
json run(const json& config, const Options& opt = {}, const Registry& registry = shipped_registry());

}  // namespace sgmcmc::run
