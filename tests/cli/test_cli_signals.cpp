// SIGINT and SIGTERM during a run (issue #13 item 4): the first signal stops the chains cleanly and the
// run writes what it kept — a record with status "interrupted" that `resume` completes — and exits
// 128 + the signal; a second signal exits at once; neither leaves a temporary behind.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace test_cli_signals {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_signals_scratch");
  return dir;
}

// A run far too long to end by itself: only a signal stops it.
json endless_config() {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
          {"target", {{"name", "gaussian"}, {"mean", {0, 0, 0}}, {"cov", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}}},
          {"steps", 4000000000000ull}, {"burn_in", 100}, {"thin", 7}, {"chains", 2}, {"seed", 9}};
}

// Starts `sgmcmc args...`, sends the signals (the first after the run has started, the rest right after
// it), and returns the exit status.
int run_and_signal(const std::vector<std::string>& args, const std::vector<int>& signals) {
  const pid_t pid = sgmcmc_test::cli::spawn_cli(args);
  REQUIRE(pid > 0);
  // The handlers are installed before sampling starts, within milliseconds of the start (1.5 s leaves
  // room for a sanitizer build); the chains are then sampling, which never ends by itself.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int sig : signals) ::kill(pid, sig);
  return sgmcmc_test::cli::wait_for(pid);
}

bool temporaries_left() {
  for (const auto& e : fs::directory_iterator(scratch()))
    if (e.path().filename().string().starts_with(".")) return true;
  return false;
}

}  // namespace

TEST_CASE("SIGTERM stops a run cleanly: every output is written with the draws so far, and resume completes it exactly") {
  // Catches: a signal that kills the run and loses its draws, a truncated output or a temporary left
  // behind, a record that cannot be resumed, draws lost or doubled at the interruption.
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "endless.json", endless_config());
  const auto out = scratch() / "stopped.json";
  const int code = run_and_signal({"run", "-q", cfg.string(), "-o", out.string(), "--format", "json,csv"}, {SIGTERM});
  CHECK(code == 128 + SIGTERM);
  CHECK_FALSE(temporaries_left());
  REQUIRE(fs::exists(out));
  const json rec = sgmcmc_test::cli::read_json(out);
  CHECK(rec["status"] == "interrupted");
  for (std::size_t c = 0; c < 2; ++c) {
    const auto& ch = rec["chains"][c];
    CHECK(ch["status"] == "ok");
    const auto steps = ch["state"]["steps_done"].get<std::uint64_t>();
    CHECK(steps > 100);
    // Every draw kept up to the chain's last step is in the record: a draw at t > 100 with t ≡ 100 (mod 7).
    CHECK(ch["samples"].size() == (steps - 100) / 7);
    CHECK(ch["draws"] == ch["samples"].size());
    CHECK(fs::exists(scratch() / fmt::format("stopped_{}.csv", c + 1)));
  }
  // The interrupted record resumes: 700 more steps per chain keep exactly the draws a run without the
  // interruption keeps at those steps (the first draws equal those of a fresh run of the same length).
  const auto resumed = scratch() / "resumed.json";
  const auto r = sgmcmc_test::cli::run_cli(scratch(), fmt::format("resume -q '{}' --steps 700 -o '{}'", out.string(), resumed.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json res = sgmcmc_test::cli::read_json(resumed);
  CHECK(res["status"] == "ok");
  json fresh_cfg = endless_config();
  const auto steps0 = rec["chains"][0]["state"]["steps_done"].get<std::uint64_t>();
  fresh_cfg["steps"] = steps0 + 700;
  fresh_cfg["chains"] = 1;
  const auto fresh_path = sgmcmc_test::cli::write_json(scratch(), "fresh.json", fresh_cfg);
  const auto fresh_out = scratch() / "fresh.run.json";
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", fresh_path.string(), fresh_out.string())).code == 0);
  CHECK(sgmcmc_test::cli::read_json(fresh_out)["chains"][0]["samples"] == res["chains"][0]["samples"]);
  CHECK_FALSE(temporaries_left());
}

TEST_CASE("a second signal exits at once and leaves no temporary") {
  // Catches: a run that cannot be stopped while it writes, temporaries left by an impatient user.
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "endless2.json", endless_config());
  const auto out = scratch() / "twice.json";
  const int code = run_and_signal({"run", "-q", cfg.string(), "-o", out.string(), "--format", "json,csv,netcdf"}, {SIGINT, SIGINT});
  CHECK(code == 128 + SIGINT);
  CHECK_FALSE(temporaries_left());
}

namespace {

// Whether process `pid` has `file` open (a link in /proc/PID/fd/ to it).
bool has_open(pid_t pid, const fs::path& file) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/fd", pid), ec)) {
    std::error_code ec2;
    if (fs::read_symlink(e.path(), ec2) == file) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a signal during set-up (a large CSV loading) exits at once with 128 + the signal, writing nothing") {
  // Catches: set-up polling nothing, so the first signal waited for the whole load (and the mode search,
  // or generating data) to end and then wrote an "interrupted" record of no draws; a temporary left.
  // The signal is sent once the tool has the CSV open (seen in /proc), while its ~64 MB still load.
  const fs::path csv = fs::canonical(scratch()) / "large.csv";
  {
    std::string line;
    for (int c = 0; c < 10; ++c) line += fmt::format("{:.12f},", 0.1 * c - 0.45);
    line += "1\n";
    std::string block;
    for (int k = 0; k < 4096; ++k) block += line;
    std::FILE* f = std::fopen(csv.c_str(), "wb");
    REQUIRE(f != nullptr);
    for (std::size_t bytes = 0; bytes < (std::size_t{64} << 20); bytes += block.size()) std::fwrite(block.data(), 1, block.size(), f);
    std::fclose(f);
  }
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-4}}},
                       {"target", {{"name", "logistic"}, {"data", csv.string()}, {"batch_size", 10}}},
                       {"steps", 1000}, {"chains", 1}, {"seed", 3}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "load.json", config);
  const auto out = scratch() / "loading.json";
  for (int sig : {SIGTERM, SIGINT}) {
    CAPTURE(sig);
    const pid_t pid = sgmcmc_test::cli::spawn_cli({"run", "-q", cfg.string(), "-o", out.string(), "--format", "json,csv"});
    REQUIRE(pid > 0);
    const auto start = std::chrono::steady_clock::now();
    while (!has_open(pid, csv) && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    REQUIRE(has_open(pid, csv));
    const auto sent = std::chrono::steady_clock::now();
    ::kill(pid, sig);
    const int code = sgmcmc_test::cli::wait_for(pid);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent);
    MESSAGE("exited " << took.count() << " ms after the signal");
    CHECK(code == 128 + sig);
    CHECK(took < std::chrono::milliseconds(1000));
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(scratch() / "loading_1.csv"));
    CHECK_FALSE(temporaries_left());
  }
  fs::remove(csv);
}

}  // namespace test_cli_signals
