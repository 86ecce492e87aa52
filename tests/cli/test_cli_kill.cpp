// Kills at random moments (issue #13 item 6): `run` and `resume` writing onto an existing record are
// sent SIGKILL (30 times) or SIGTERM (30 times) after a random delay spread over the whole run, from
// start-up through sampling to the final write. Afterwards the output must be either the old record,
// byte for byte, or a complete new record (one that reads back, with every chain's draws), and no
// temporary may be left in the folder. Catches: an output written in place (truncated by a kill), a
// temporary with a name left behind by SIGKILL, a SIGTERM that loses the draws made or leaves a
// half-written file.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace test_cli_kill {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_kill_scratch");
  return dir;
}

// 40,000 steps: one round of output per chain (20,000 draws of 4 coordinates, well under a round's
// 4 MiB), so a kill lands in start-up, sampling, the streamed write or the rename as with a longer run;
// at 150,000 steps the test took 224 s of the sanitizer suite for the same phases.
json config() {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 4}}},
          {"target", {{"name", "gaussian"}, {"mean", {0, 0, 0, 0}}, {"cov", 1}}},
          {"steps", 40000}, {"burn_in", 1000}, {"thin", 2}, {"chains", 2}, {"seed", 5}};
}

// Starts `sgmcmc args...`, sends `sig` after `delay`, and waits for it to end.
void run_and_kill(const std::vector<std::string>& args, int sig, std::chrono::microseconds delay) {
  const pid_t pid = spawn_cli(args);
  REQUIRE(pid > 0);
  std::this_thread::sleep_for(delay);
  ::kill(pid, sig);  // may come after the process ended by itself: then nothing happens
  wait_for(pid);
}

bool complete_record(const fs::path& p) {
  try {
    const json r = read_json(p);
    if (r.value("schema", "") != "sgmcmc.run" || !r["chains"].is_array() || r["chains"].size() != 2) return false;
    for (const auto& ch : r["chains"])
      if (!ch["samples"].is_array() || ch["samples"].size() != ch["draws"].get<std::size_t>()) return false;
    return true;
  } catch (...) {
    return false;
  }
}

std::vector<std::string> temporaries() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(scratch())) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(".out.json.")) out.push_back(name);
  }
  return out;
}

}  // namespace

TEST_CASE("SIGKILL and SIGTERM at random moments of run and resume leave the old record or a complete new one, and no temporary") {
  const fs::path cfg = write_json(scratch(), "config.json", config());
  const fs::path old_record = scratch() / "old.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), old_record.string())).code == 0);
  const std::string old_bytes = slurp(old_record);
  // How long one uninterrupted run takes here, so the kills spread over all of it (start-up, sampling,
  // the final write) on a fast or a slow (sanitizer) build.
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), (scratch() / "timing.json").string())).code == 0);
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  MESSAGE("one run takes " << full.count() / 1000 << " ms");

  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<std::int64_t> when(0, full.count() * 11 / 10);
  const fs::path out = scratch() / "out.json";
  int old_kept = 0, new_written = 0;
  for (int sig : {SIGKILL, SIGTERM}) {
    for (int k = 0; k < 30; ++k) {
      std::ofstream(out, std::ios::binary) << old_bytes;
      const bool resume = k % 2 == 1;
      const std::vector<std::string> args =
          resume ? std::vector<std::string>{"resume", old_record.string(), "--steps", "40000", "-q", "-o", out.string()}
                 : std::vector<std::string>{"run", cfg.string(), "-q", "-o", out.string()};
      const auto delay = std::chrono::microseconds(when(rng));
      run_and_kill(args, sig, delay);
      CAPTURE(sig);
      CAPTURE(k);
      CAPTURE(delay.count());
      const std::string now = slurp(out);
      const bool old = now == old_bytes;
      CHECK((old || complete_record(out)));
      CHECK(temporaries().empty());
      (old ? old_kept : new_written) += 1;
    }
  }
  MESSAGE(old_kept << " kills left the old record, " << new_written << " a complete new one");
  CHECK(old_kept + new_written == 60);
}

TEST_CASE("an output path that is a planted symlink is replaced, never written through; a missing folder is an error") {
  // Catches: a write that follows a symlink planted at the output (or at a predictable temporary name)
  // onto a file the user can write; a mistyped folder silently created.
  const fs::path cfg = write_json(scratch(), "small.json", json{{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                                                                {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                                                                {"steps", 50}});
  const fs::path victim = scratch() / "victim.txt", link = scratch() / "linked.json";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, link);
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), link.string())).code == 0);
  CHECK(slurp(victim) == "precious");
  CHECK(!fs::is_symlink(link));
  CHECK(read_json(link)["schema"] == "sgmcmc.run");
  const Result missing = run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), (scratch() / "no_such_folder" / "run.json").string()));
  CHECK(missing.code == 1);
  CHECK(missing.err.find("the folder") != std::string::npos);
  CHECK(missing.err.find("does not exist") != std::string::npos);
  CHECK(!fs::exists(scratch() / "no_such_folder"));
}

}  // namespace test_cli_kill
