#pragma once
// Running the readers people use on our outputs (tests only): Python (xarray, ArviZ) and R (rstan,
// posterior, loo) from Debian's packages, which scripts/test.sh installs.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

namespace sgmcmc_test {

/// The interpreter that sees Debian's python3-* packages (a python3 earlier on PATH, e.g. pyenv's, may not).
inline std::string python() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }
/// Debian's Rscript (r-base-core), which sees the r-cran-* packages.
inline std::string rscript() { return std::filesystem::exists("/usr/bin/Rscript") ? "/usr/bin/Rscript" : "Rscript"; }

/// Runs `command`, returning its exit status and what it printed (stdout and stderr).
inline int run_command(const std::string& command, std::string& output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Writes `script` to `dir/name` and runs it with `interpreter` (python() or rscript()) and `args`; fails
/// the test with what it printed when it fails, and with how to install the reader when the interpreter
/// or a package is missing (the script exits 3 for a missing package).
inline std::string run_script(const std::filesystem::path& dir, const std::string& name, const std::string& interpreter,
                              const std::string& script, const std::string& args, const char* packages) {
  const auto path = dir / name;
  std::ofstream(path) << script;
  std::string output;
  const int status = run_command(fmt::format("cd '{}' && {} '{}' {}", dir.string(), interpreter, path.string(), args), output);
  if (status == 3 || status == 127)
    FAIL("this test reads the outputs with ", interpreter, ": run scripts/deps.sh ", packages, " (it said: ", output, ")");
  if (status != 0) FAIL(output);
  return output;
}

}  // namespace sgmcmc_test
