// SIGINT and SIGTERM in the commands that run no chains (issue #40, item 1): `convert` and `thin` stopped
// at any moment leave no temporary (`convert` left .NAME.nc.XXXXXX, 8 times of 8 in the probe)
// and their outputs either all as they were or all complete; `sweep` exits 128 + the signal.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace test_cli_signals_commands {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;
using sgmcmc_test::cli::json;
using sgmcmc_test::cli::slurp;
using Clock = std::chrono::steady_clock;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_signals_commands_scratch");
  return dir;
}

/// The process's exit code, 1000 + N when signal N ended it; kills it (and fails) after 300 s.
int wait_bounded(pid_t pid) {
  const auto until = Clock::now() + std::chrono::seconds(300);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("the command did not end within 300 s of the signal");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

std::vector<std::string> temporaries() {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(scratch()))
    if (e.path().filename().string().starts_with(".")) found.push_back(e.path().filename().string());
  return found;
}

// The files of `-o out --format json,csv,netcdf`.
std::vector<fs::path> outputs(const std::string& base) {
  return {scratch() / (base + ".json"), scratch() / (base + "_1.csv"), scratch() / (base + "_2.csv"), scratch() / (base + ".nc")};
}

/// Runs `args` (whose outputs are `files`, holding `old` now) `times` times, each stopped by `sig` after a
/// delay spread over `span`; after each, no temporary, and the outputs all as they were or all new and
/// whole (`whole`: JSON and CSV as a run without the signal writes them; the NetCDF file is compared by
/// its HDF5 signature, as it carries its creation time).
void stop_repeatedly(const std::vector<std::string>& args, const std::vector<fs::path>& files, const std::vector<std::string>& old,
                     const std::function<bool(std::size_t, const std::string&)>& is_whole, int sig, int times, double span) {
  int as_were = 0, complete = 0;
  for (int k = 0; k < times; ++k) {
    for (std::size_t i = 0; i < files.size(); ++i) {  // the old outputs back in place
      fs::remove(files[i]);
      std::ofstream(files[i], std::ios::binary) << old[i];
    }
    const pid_t pid = sgmcmc_test::cli::spawn_cli(args);
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(span * (k + 0.5) / times));
    ::kill(pid, sig);
    const int code = wait_bounded(pid);
    INFO("signal ", sig, " after ", span * (k + 0.5) / times, " s: exit ", code);
    // 0: done before the signal; 128 + sig: the handler; 1000 + sig: before the handlers were installed.
    CHECK((code == 0 || code == 128 + sig || code == 1000 + sig));
    CHECK(temporaries().empty());
    bool all_old = true, all_new = true;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string now = slurp(files[i]);
      all_old = all_old && now == old[i];
      const bool is_new = now != old[i] && is_whole(i, now);
      all_new = all_new && is_new;
    }
    CHECK((all_old || all_new));
    as_were += all_old, complete += all_new;
  }
  MESSAGE(args[0], ", signal ", sig, ": ", as_were, " times the outputs as they were, ", complete, " times complete");
}

/// The outputs of `args` named after `base`, each holding an "old" text, and how long one whole run of
/// `args` takes (timed once, undisturbed, over those outputs): what stop_repeatedly needs.
struct OldOutputs {
  std::vector<fs::path> files;
  std::vector<std::string> old;
  double span = 0;
};
OldOutputs old_outputs_and_span(const std::vector<std::string>& args, const std::string& base) {
  OldOutputs o;
  o.files = outputs(base);
  for (const auto& f : o.files) o.old.push_back("old " + f.filename().string() + "\n");
  for (std::size_t i = 0; i < o.files.size(); ++i) std::ofstream(o.files[i], std::ios::binary) << o.old[i];
  const auto t0 = Clock::now();
  const pid_t pid = sgmcmc_test::cli::spawn_cli(args);
  REQUIRE(pid > 0);
  REQUIRE(wait_bounded(pid) == 0);
  o.span = std::chrono::duration<double>(Clock::now() - t0).count();
  return o;
}

TEST_CASE("convert and thin stopped by SIGINT or SIGTERM at any moment: no temporary, the outputs all old or all complete") {
  // Catches: the default action of a signal ending convert or thin while NetCDF's named temporary (or
  // check_writable's probe) existed, leaving .NAME.nc.XXXXXX in the folder; a signal between two formats'
  // renames leaving a new JSON record beside old CSV files.
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0, 0}}}},
                       {"steps", 3100}, {"burn_in", 100}, {"chains", 2}, {"seed", 4}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "long.json", config);
  const fs::path record = scratch() / "long.run.json";
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), record.string())).code == 0);
  struct Command {
    std::string name;
    std::vector<std::string> extra;
  };
  for (const Command& c : {Command{"convert", {}}, Command{"thin", {"--to", "40", "-q"}}}) {
    const std::string base = c.name + "_out";
    std::vector<std::string> args{c.name, record.string(), "--format", "json,csv,netcdf", "-o", (scratch() / (base + ".json")).string()};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    // A whole run, timed: the signals are spread over its length.
    const OldOutputs timed = old_outputs_and_span(args, base);  // (no structured binding: lambdas below take these)
    const std::vector<fs::path>& files = timed.files;
    const std::vector<std::string>& old = timed.old;
    const double span = timed.span;
    std::vector<std::string> whole;
    for (const auto& f : files) whole.push_back(slurp(f));
    const auto as_whole = [&](std::size_t i, const std::string& now) {
      return files[i].extension() == ".nc" ? now.starts_with("\x89HDF") : now == whole[i];
    };
    stop_repeatedly(args, files, old, as_whole, SIGINT, 4, span);
    stop_repeatedly(args, files, old, as_whole, SIGTERM, 4, span);
  }
}

TEST_CASE("run and resume with NetCDF stopped by one SIGINT or SIGTERM at any moment: no temporary, the outputs all old or all whole") {
  // Catches: NetCDF's named temporary left by a signal in run or resume (start-up, sampling, the final
  // write), and a signal between two formats' renames. The first signal stops the chains: the outputs
  // are then a whole record with status "interrupted" (or "ok" if the run was done), its CSV and NetCDF.
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0, 0}}}},
                       {"steps", 20000}, {"burn_in", 100}, {"chains", 2}, {"seed", 4}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "run.json", config);
  const fs::path start = scratch() / "start.run.json";
  json short_config = config;
  short_config["steps"] = 300;
  const auto short_cfg = sgmcmc_test::cli::write_json(scratch(), "short.json", short_config);
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", short_cfg.string(), start.string())).code == 0);
  const auto is_whole = [](std::size_t i, const std::string& now) {
    if (i == 0) {  // the JSON record: parses, and says how the run ended
      const json r = json::parse(now, nullptr, false);
      return !r.is_discarded() && (r["status"] == "ok" || r["status"] == "interrupted");
    }
    return i == 3 ? now.starts_with("\x89HDF") : now.starts_with("# Draws of sgmcmc");
  };
  for (const std::string command : {"run", "resume"}) {
    const std::string base = command + "_out";
    std::vector<std::string> args{command, "-q", command == "run" ? cfg.string() : start.string(), "--format", "json,csv,netcdf",
                                  "-o", (scratch() / (base + ".json")).string()};
    if (command == "resume") args.insert(args.end(), {"--steps", "20000"});
    const OldOutputs timed = old_outputs_and_span(args, base);  // (no structured binding: lambdas below take these)
    const std::vector<fs::path>& files = timed.files;
    const std::vector<std::string>& old = timed.old;
    const double span = timed.span;
    stop_repeatedly(args, files, old, is_whole, SIGINT, 3, span);
    stop_repeatedly(args, files, old, is_whole, SIGTERM, 3, span);
  }
}

TEST_CASE("sweep stopped by SIGTERM exits 128 + the signal, writing nothing and leaving no temporary") {
  // Catches: sweep ended by the signal's default action (no exit code of its own), a temporary left.
  json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                 {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                 {"steps", 4000000000000ull}, {"chains", 1}, {"seed", 1}};
  config["sweep"] = {{"samplers", json::array({{{"name", "sgld"}}})}, {"step_sizes", {0.1}}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "endless_sweep.json", config);
  const fs::path ref = scratch() / "ref.csv";
  std::ofstream(ref) << "x.1,x.2\n0,1\n1,0\n-1,2\n";
  const fs::path out = scratch() / "sweep_out.json";
  const pid_t pid = sgmcmc_test::cli::spawn_cli({"sweep", "-q", cfg.string(), "--reference", ref.string(), "-o", out.string()});
  REQUIRE(pid > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // sampling by then, which never ends by itself
  ::kill(pid, SIGTERM);
  CHECK(wait_bounded(pid) == 128 + SIGTERM);
  CHECK_FALSE(fs::exists(out));
  CHECK(temporaries().empty());
}

}  // namespace test_cli_signals_commands
