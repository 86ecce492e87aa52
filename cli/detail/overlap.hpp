#pragma once
// Outputs never overwrite a command's own inputs nor what is not a regular file (issue #40): `thin -o
// RUN`, `sweep -o CONFIG`, `--svg` equal to `-o`, `-o` naming a FIFO and the like are a bad command line
// (exit 2), refused before anything is read or written, as `run -o CONFIG` always was. A format's own
// files (BASE_1.csv, BASE.nc: format_files) are outputs too, checked with -o; a data file a config
// names is an input, checked once the config is read (data_files), still before anything is sampled.
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>

namespace sgmcmc::cli::detail {

/// A path a command reads or writes, with what it is for messages ("-o", "the run record").
struct NamedPath {
  std::string what;
  std::string path;
};

using run::detail::same_file;

/// The message for the first output (empty paths skipped) that exists and is not a regular file (a
/// FIFO, a folder, a device: run::detail::special_file), or is one of the inputs or an earlier output;
/// nullopt when every output is a file of its own.
inline std::optional<std::string> output_overlap(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    if (std::string why = run::detail::special_file(out.path); !why.empty()) return out.what + " " + why;
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        return fmt::format("{} {}: that is {}; the output would overwrite it", out.what, out.path, in.what);
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
        return fmt::format("{} {}: that is {} too; each output needs a file of its own", out.what, out.path, outputs[j].what);
  }
  return std::nullopt;
}

/// `-o OUT` and the files the formats `chosen` write beside it ("--format csv's file" BASE_1.csv, ...).
inline std::vector<NamedPath> outputs_of(const std::string& out, const run::output::Formats& formats,
                                         const std::vector<std::string>& chosen) {
  std::vector<NamedPath> outputs{{"-o", out}};
  for (auto& [format, file] : formats.own_files(out, chosen))
    if (file != out) outputs.push_back({fmt::format("--format {}'s file", format), std::move(file)});
  return outputs;
}

/// The data files a config names (a "data" field holding a path, at any depth: a target's, a product's
/// parts'), each named by its JSON path, for output_overlap's inputs.
inline void data_files(const nlohmann::json& j, const std::string& at, std::vector<NamedPath>& found) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const std::string here = at + "/" + key;
      if (key == "data" && value.is_string()) found.push_back({fmt::format("the data file of the config's {}", run::printable(here, 200)), value.get<std::string>()});
      else data_files(value, here, found);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) data_files(j[i], fmt::format("{}/{}", at, i), found);
  }
}
inline std::vector<NamedPath> data_files(const nlohmann::json& config) {
  std::vector<NamedPath> found;
  data_files(config, "", found);
  return found;
}

}  // namespace sgmcmc::cli::detail
