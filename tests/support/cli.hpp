#pragma once
// Helpers for the end-to-end CLI tests (tests/cli/): a scratch folder per test program, running the
// sgmcmc binary with its output captured, and JSON files in and out. SGMCMC_CLI and SGMCMC_BINARY_DIR
// are set by tests/CMakeLists.txt.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sgmcmc_test::cli {

using json = nlohmann::json;
namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out, err;
};

/// The scratch folder `name` under the build's tests/ folder, emptied once per test program.
inline fs::path scratch_dir(const std::string& name) {
  const fs::path d = fs::path(SGMCMC_BINARY_DIR) / "tests" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// SGLD at h = 0.1 on N(0, 1), two chains, burn-in 100: a small run whose outputs the output tests write.
inline json sgld_gaussian_1d(std::uint64_t steps, std::uint64_t seed) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
          {"target", {{"name", "gaussian"}, {"mean", {0}}}},
          {"steps", steps}, {"burn_in", 100}, {"chains", 2}, {"seed", seed}};
}

/// Runs `sgmcmc ARGS` through the shell after `shell` (a prefix such as "cd D &&", "ulimit -f 200 &&",
/// "timeout 60"; empty: none), with stdout and stderr captured in files of `dir`. Exit code -1: a signal.
inline Result run_cli_after(const fs::path& dir, const std::string& shell, const std::string& args) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = fmt::format("{} '{}' {} > '{}' 2> '{}'", shell, SGMCMC_CLI, args, out.string(), err.string());
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

/// Runs `sgmcmc ARGS` with stdout and stderr captured in files of `dir`.
inline Result run_cli(const fs::path& dir, const std::string& args) { return run_cli_after(dir, "", args); }

/// Runs `sgmcmc ARGS` as run_cli does, with `dir` as its working directory (relative paths start there).
inline Result run_cli_in(const fs::path& dir, const std::string& args) {
  return run_cli_after(dir, fmt::format("cd '{}' &&", dir.string()), args);
}

/// Starts `sgmcmc ARGS` without waiting (for a test that signals it); returns its pid, or -1.
inline pid_t spawn_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv_s{SGMCMC_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  return ::posix_spawn(&pid, SGMCMC_CLI, nullptr, nullptr, argv.data(), ::environ) == 0 ? pid : -1;  // environ: unistd.h
}

/// Waits for `pid` to end; its exit code, or -1 when a signal ended it.
inline int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline fs::path write_json(const fs::path& dir, const std::string& name, const json& j) {
  const auto p = dir / name;
  std::ofstream(p) << j.dump(2);
  return p;
}

inline json read_json(const fs::path& p) { return json::parse(slurp(p)); }

/// Runs `config` (written as DIR/NAME.config.json) into DIR/NAME.json with `formats` (--format); REQUIREs
/// success, showing the error otherwise, and returns the record's path.
inline fs::path run_to(const fs::path& dir, const std::string& name, const json& config, const std::string& formats = "json") {
  const fs::path out = dir / (name + ".json");
  const Result r = run_cli(dir, fmt::format("run -q '{}' -o '{}' --format {}", write_json(dir, name + ".config.json", config).string(),
                                            out.string(), formats));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return out;
}

/// The lines of a Stan CSV file that are not comments: the column names, then a row per draw.
inline std::vector<std::string> rows_of(const fs::path& p) {
  std::vector<std::string> rows;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  return rows;
}

/// A record's chains without their wall times (chains[i].timing), which no two runs share: for tests
/// that compare two runs' chains for equality.
inline json chains_without_timing(const json& record) {
  json chains = record.at("chains");
  for (json& ch : chains) ch.erase("timing");
  return chains;
}

}  // namespace sgmcmc_test::cli
