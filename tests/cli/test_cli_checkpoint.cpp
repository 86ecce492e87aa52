// `checkpoint_every` in one process: a run killed with SIGKILL (no chance to write anything) leaves the
// last checkpoint, a complete record with status "interrupted" at a multiple of K steps, and resuming
// it gives the draws and states of the run that was never stopped. Catches: a checkpoint written in
// place (a kill mid-write leaves a torn file), a spool consumed by the checkpoint (draws after it
// lost), a checkpoint whose states are not those of its step count.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <chrono>
#include <thread>

namespace test_cli_checkpoint {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

TEST_CASE("a killed run leaves its last checkpoint, which resumes to the uninterrupted bits") {
  const fs::path dir = scratch_dir("cli_checkpoint_scratch");
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}}},
            {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
            {"target", {{"name", "gaussian"}, {"mean", {0, 1, 2}}, {"cov", 1}, {"grad_noise", 0.5}}},
            {"steps", 2'000'000'000}, {"burn_in", 100}, {"thin", 7}, {"chains", 3}, {"seed", 9},
            {"checkpoint_every", 20000}};
  const auto config = write_json(dir, "long.json", c);
  const auto out = dir / "long_out.json";
  const pid_t pid = spawn_cli({"run", config.string(), "-o", out.string(), "-q", "--threads", "2"});
  REQUIRE(pid > 0);
  for (int i = 0; i < 600 && !fs::exists(out); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGKILL);
  CHECK(wait_for(pid) == -1);
  REQUIRE(fs::exists(out));
  const json checkpoint = read_json(out);
  CHECK(checkpoint["status"] == "interrupted");
  CHECK(checkpoint["timings"]["phases"].back()["checkpoint"] == true);
  const std::uint64_t kept = checkpoint["chains"][0]["draws"].get<std::uint64_t>();
  const std::uint64_t done = 100 + 7 * kept;  // the last kept step; the checkpoint is at a multiple of 20000
  const std::uint64_t steps = (done + 19999) / 20000 * 20000;
  REQUIRE(steps >= 20000);
  for (const auto& ch : checkpoint["chains"]) {
    CHECK(ch["draws"] == kept);  // every chain stopped at the same checkpoint
    CHECK(ch["samples"].size() == kept);
  }
  const Result r = run_cli(dir, fmt::format("resume '{}' --steps 5000 -o '{}' -q", out.string(), (dir / "after.json").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  c["steps"] = steps + 5000;
  c.erase("checkpoint_every");
  const auto straight = write_json(dir, "straight.json", c);
  REQUIRE(run_cli(dir, fmt::format("run '{}' -o '{}' -q", straight.string(), (dir / "straight_out.json").string())).code == 0);
  const json a = read_json(dir / "after.json")["chains"], b = read_json(dir / "straight_out.json")["chains"];
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a[i]["samples"] == b[i]["samples"]);
    CHECK(a[i]["state"] == b[i]["state"]);
  }
}

}  // namespace test_cli_checkpoint
