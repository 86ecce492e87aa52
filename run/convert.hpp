#pragma once
// `sgmcmc convert`: a record written again through other writers.
#include <filesystem>
#include <span>
#include <string>

#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

/// `sgmcmc convert`: writes the record in file `path` again through `writers` (another format, or JSON
/// version 2), streaming its draws. `stein`, when not null, is the record's
/// Stein report (run/stein.hpp, `convert --stein`): it goes into the record the writers finish with, so
/// every format carries it (JSON: the record's "stein"; Stan CSV: a comment line per chain; NetCDF:
/// stein_* variables). The record's relative data paths are read from its own folder and written
/// relative to `output_folder` (the outputs' folder; run/data_files.hpp).
void convert(const std::string& path, const Registry& registry, std::span<output::Writer* const> writers,
             const json& stein = nullptr, const std::filesystem::path& output_folder = {});

}  // namespace sgmcmc::run
