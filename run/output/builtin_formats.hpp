#pragma once
// The output formats the library ships, one registration line each: the JSON run record, Stan CSV,
// ArviZ InferenceData as NetCDF-4 and posterior's draws_df as one CSV table (their entries live beside
// their writers). The command line starts
// from this list (`cli::Program::formats`); a user's own tool adds its formats to it
// (examples/custom_cli/). Including this header needs netCDF-C++4 (CMake target sgmcmc::netcdf).
#include <sgmcmc/run/output/draws_csv.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/netcdf.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

namespace sgmcmc::run::output {

/// A new list of the shipped formats (to add one's own to); "json" first, the default of `--format`.
inline Formats builtin_formats() {
  Formats formats;
  formats.add(json_record_format());
  formats.add(stan_csv_format());
  formats.add(netcdf_format());
  formats.add(draws_csv_format());
  return formats;
}

}  // namespace sgmcmc::run::output
