// Limits before use (issue #40 item 4): every resource a config or the command line controls is bounded
// before it is taken, and a resource the machine refuses is an error, not a crash or a hang. Each case
// failed before: `--threads 100000` was taken as given (100,000 threads per chain filled the task table),
// a thread that could not start ended in std::terminate or a hang, and a data target's size was checked
// against max_dimension only after its estimator had been built (a bnn with a control variate asked
// for 48 GB and died on std::bad_alloc).
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <utility>
#include <vector>

#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>

namespace test_cli_limits {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_limits_scratch");
  return dir;
}

json gaussian_chains(int chains) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"target", {{"name", "gaussian"}}},
          {"steps", 2000}, {"chains", chains}, {"seed", 1}};
}

// `sgmcmc ARGS` in the scratch folder, ended after `seconds` (exit 124: it hung).
Result within(int seconds, const std::string& args) { return run_cli_after(scratch(), fmt::format("timeout {}", seconds), args); }

// The heuristic overcommit mode (0, Linux's default) refuses a mapping larger than the machine's memory.
bool overcommit_heuristic() {
  std::ifstream in("/proc/sys/vm/overcommit_memory");
  int mode = -1;
  in >> mode;
  return mode == 0;
}

}  // namespace

TEST_CASE("--threads beyond four per core (at least 64) is refused before any thread starts") {
  const fs::path cfg = write_json(scratch(), "two.json", gaussian_chains(2));
  const Result r = run_cli(scratch(), fmt::format("run '{}' -q --threads 100000 -o '{}'", cfg.string(), (scratch() / "t.json").string()));
  CAPTURE(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("threads (--threads; C++: Options::threads): expected at most") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "t.json"));
  CHECK(run_cli(scratch(), fmt::format("run '{}' -q --threads 64 -o '{}'", cfg.string(), (scratch() / "t64.json").string())).code == 0);
}

TEST_CASE("a thread the machine cannot start is an error naming it, not a crash or a hang") {
  // Each thread's stack is the stack limit's size: at 4 TB, beyond this machine's memory, the heuristic
  // overcommit refuses it and pthread_create fails (EAGAIN), as at the machine's limit on threads.
  if (!overcommit_heuristic()) {
    MESSAGE("skipped: /proc/sys/vm/overcommit_memory is not 0 (heuristic), so a 4 TB stack cannot be refused here");
    return;
  }
  const fs::path cfg = write_json(scratch(), "four.json", gaussian_chains(4));
  const Result r = run_cli_after(scratch(), "ulimit -s 4000000000 && timeout 60",
                                 fmt::format("run '{}' -q --threads 4 -o '{}'", cfg.string(), (scratch() / "nothreads.json").string()));
  CAPTURE(r.err);
  CHECK(r.code == 1);  // not 124 (the timeout: a hang), 134 (std::terminate) or 139, nor -1 (a signal)
  CHECK(r.err.find("could not start thread 2 of 4") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "nothreads.json"));
}

TEST_CASE("a data target's size is checked against max_dimension before its estimator is built") {
  const fs::path csv = scratch() / "classes.csv";
  {
    std::ofstream o(csv);
    o << "a,b,label\n";
    for (int i = 0; i < 50; ++i) o << fmt::format("{},{},{}\n", 0.1 * i, 1.0 - 0.02 * i, i % 2);
  }
  json c = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-4}}},
            {"target", {{"name", "bnn"}, {"data", csv.string()}, {"hidden", 5000000}, {"estimator", "control_variate"}}},
            {"steps", 10}, {"seed", 1}};
  const fs::path cfg = write_json(scratch(), "bnn_huge.json", c);
  const Result r = run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg.string(), (scratch() / "bnn.json").string()));
  CAPTURE(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("/target/hidden: a 2–5000000–2 net has 2.5e+07 coordinates, above max_dimension 10000000") != std::string::npos);
  // bpmf likewise, named by its latent size.
  const fs::path ratings = scratch() / "ratings.csv";
  {
    std::ofstream o(ratings);
    o << "userId,movieId,rating,timestamp\n";
    for (int i = 0; i < 40; ++i) o << fmt::format("{},{},{},{}\n", i % 7, i % 5, 1 + i % 5, 1000 + i);
  }
  c["target"] = {{"name", "bpmf"}, {"data", ratings.string()}, {"latent", 2000000}, {"estimator", "control_variate"}};
  const fs::path cfg2 = write_json(scratch(), "bpmf_huge.json", c);
  const Result b = run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg2.string(), (scratch() / "bpmf.json").string()));
  CAPTURE(b.err);
  CHECK(b.code == 1);
  CHECK(b.err.find("/target/latent: bpmf on 7 users and 5 items at latent 2000000 has") != std::string::npos);
  CHECK(b.err.find("above max_dimension") != std::string::npos);
}

TEST_CASE("every size and count a config controls is bounded, each refused naming its field (docs/reliability.md, limits)") {
  // The table in docs/reliability.md, one row each: a value just past the limit is refused with the
  // field's path before anything of that size is allocated (parse_config builds no chain).
  const json base = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}}, {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                     {"target", {{"name", "gaussian"}}}, {"steps", 10}};
  const auto with = [&](const char* pointer, json value) {
    json c = base;
    c[json::json_pointer(pointer)] = std::move(value);
    return c;
  };
  const std::vector<std::pair<json, std::string>> cases = {
      {with("/chains", 4097), "/chains: expected at most 4096 chains, got 4097"},
      {with("/distributed", {{"shards", 4097}}), "/distributed/shards: expected at most 4096 shards, got 4097"},
      {with("/manifold/dim", 10000001), "/manifold: a manifold of dimension 10000001 is above max_dimension 10000000"},
      {with("/manifold", {{"name", "sphere"}, {"n", 1099511627777ull}}), "/manifold/n: expected at most 2^40, got 1099511627777"},
      {with("/sampler", {{"name", "hmc"}, {"step_size", 0.1}, {"leapfrog_steps", 1000001}}),
       "/sampler/leapfrog_steps: expected at most 1000000, got 1000001"},
      {with("/target", {{"name", "logistic"}, {"data", {{"examples", 4294967295ull}, {"features", 2}}}}),
       "/target/data/examples: expected fewer than 2^32 − 1 generated examples"},
      {with("/target", {{"name", "logistic"}, {"data", {{"examples", 100}, {"features", 100001}}}}),
       "/target/data/features: expected at most 100000 generated features"},
      {with("/target", {{"name", "logistic"}, {"data", {{"examples", 100000000}, {"features", 100}}}}),
       "/target/data: 100000000 examples of 100 features would take 80.8 GB per rank"},
  };
  for (const auto& item : cases) {  // no structured binding: CAPTURE's lambda cannot take one in Clang 14
    const json& config = item.first;
    const std::string& words = item.second;
    CAPTURE(config.dump());
    std::string message;
    try {
      (void)sgmcmc::run::parse_config(config, sgmcmc::run::shipped_registry());
    } catch (const sgmcmc::Error& e) {
      message = e.what();
    }
    CHECK_MESSAGE(message.find(words) != std::string::npos, message);
  }
}

TEST_CASE("a run record that is a FIFO is refused at once; a config that never ends stops at 256 MB") {
  // Catches: `resume FIFO` blocked in open() until a writer came, then for ever in the second pass (a
  // record is read twice); `run` on an endless config (a device, a runaway pipe) took memory until the
  // machine had none. The FIFOs are the test's own.
  const fs::path fifo = scratch() / "record.fifo";
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string from = (scratch() / "from_fifo").string();
  for (const std::string& args : {fmt::format("resume '{}' -q -o '{}'", fifo.string(), from), fmt::format("summary '{}'", fifo.string()),
                                  fmt::format("convert '{}' --format csv -o '{}'", fifo.string(), from)}) {
    CAPTURE(args);
    const Result r = within(60, args);
    CAPTURE(r.err);
    CHECK(r.code == 1);  // not 124: blocked
    CHECK(r.err.find("record.fifo: not a regular file (a FIFO, device or folder)") != std::string::npos);
  }
  // sweep --reference: a Stan CSV read once, but a FIFO without a writer blocked the sweep for ever.
  const fs::path ref = scratch() / "reference.csv";
  fs::remove(ref);
  REQUIRE(::mkfifo(ref.c_str(), 0600) == 0);
  json sweep = gaussian_chains(1);
  sweep["sweep"] = {{"samplers", {{{"name", "sgld"}}}}, {"step_sizes", {0.01, 0.02}}};
  const fs::path sweep_cfg = write_json(scratch(), "sweep.json", sweep);
  const Result s = within(60, fmt::format("sweep '{}' --reference '{}' -o '{}'", sweep_cfg.string(), ref.string(),
                                          (scratch() / "sweep_out.json").string()));
  CAPTURE(s.err);
  CHECK(s.code == 1);
  CHECK(s.err.find("reference.csv: not a regular file (a FIFO, device or folder)") != std::string::npos);
  const fs::path endless = scratch() / "config.fifo";
  fs::remove(endless);
  REQUIRE(::mkfifo(endless.c_str(), 0600) == 0);
  const Result r = run_cli_after(scratch(), fmt::format("(yes > '{}' 2> /dev/null &); timeout 60", endless.string()),
                                 fmt::format("run '{}' -q", endless.string()));
  CAPTURE(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("config.fifo: larger than 256 MB: not a config") != std::string::npos);
}

}  // namespace test_cli_limits
