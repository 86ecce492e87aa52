#pragma once
// Reading and writing whole JSON documents (configs, run records, experiment results), with errors
// that name the file. A write goes to a temporary file beside the target and is renamed over it: a
// reader never sees a half-written document, and a failed write leaves the previous file as it was.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::run {

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

/// Writes `j` (indented by `indent` spaces; -1: one line) to `path`, creating its folder if needed.
inline void write_json_file(const nlohmann::json& j, const std::string& path, int indent = -1) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path() && !std::filesystem::exists(target.parent_path()))
    std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) throw Error(fmt::format("{}: cannot create the folder: {}", path, ec.message()));
  const std::string tmp = path + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp);
    if (!out) throw Error(fmt::format("{}: cannot open the file for writing", path));
    out << j.dump(indent) << '\n';
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      throw Error(fmt::format("{}: write failed", path));
    }
  }
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw Error(fmt::format("{}: cannot replace the file: {}", path, why));
  }
}

}  // namespace sgmcmc::run
