#pragma once
// Reading and writing whole JSON documents (configs, run records, experiment results), with errors
// that name the file. Writes are atomic (run/output/atomic_file.hpp).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>

namespace sgmcmc::run {

/// How deep a config or record may nest: far more than any real one, and shallow enough that the JSON
/// library's recursive printing and destruction cannot overflow the stack (a 100,000-deep `[[[…]]]`
/// used to crash the error path).
inline constexpr int max_json_depth = 256;

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str(), [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > max_json_depth)
        throw Error(fmt::format("{}: nested deeper than {} levels; not a config or run record", path, max_json_depth));
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

/// Writes `j` (indented by `indent` spaces; -1: one line) to `path`, creating its folder if needed; the
/// file appears whole or not at all (run/output/atomic_file.hpp).
inline void write_json_file(const nlohmann::json& j, const std::string& path, int indent = -1) {
  AtomicFile file(path);
  file.write(j.dump(indent));
  file.write("\n");
  file.commit();
}

}  // namespace sgmcmc::run
