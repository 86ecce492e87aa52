#pragma once
// Outputs never overwrite a command's own inputs nor what is not a regular file (issue #40): `thin -o
// RUN`, `sweep -o CONFIG`, `--svg` equal to `-o`, `-o` naming a FIFO and the like are a bad command line
// (exit 2), refused before anything is read or written, as `run -o CONFIG` always was. (A format's own
// files, BASE_1.csv, are checked by their AtomicFile when made: an error, exit 1.)
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/run/output/atomic_file.hpp>

namespace sgmcmc::cli::detail {

/// A path a command reads or writes, with what it is for messages ("-o", "the run record").
struct NamedPath {
  std::string what;
  std::string path;
};

/// Whether `a` and `b` are the same file: one existing file (symlinks and hard links included), or the
/// same absolute, normalised path when either does not exist yet.
inline bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const auto absolute = [](const std::string& p) {
    std::error_code e;
    return std::filesystem::absolute(p, e).lexically_normal();
  };
  return absolute(a) == absolute(b);
}

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

}  // namespace sgmcmc::cli::detail
