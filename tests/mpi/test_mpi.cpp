// The sgmcmc tool under mpirun (docs/distributed.md), with 1, 2 and 4 ranks (--oversubscribe: this
// machine may have fewer cores). Chains over ranks: the record's chains are the single process's, bit
// for bit. Data-parallel (distributed.shards): every gradient estimator gives the same bits for a
// given number of shards whatever the number of ranks and on every repetition, and agrees with the
// single process to rounding (the parts are added in another order). Resume across rank counts,
// periodic checkpoints that a killed rank leaves behind and that resume to the uninterrupted run's
// bits, and errors on one rank that stop every rank with that rank's message. Catches: a chain run by
// two groups or none, draws delivered out of order or lost between ranks, noise or batches that
// differ between the ranks of a group, a shard's rows counted twice or not at all, a prior added by
// every shard, a hang on an error that only one rank sees.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <thread>

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("mpi_scratch");
  return dir;
}

// `mpirun -np R sgmcmc ARGS`, output captured (as root, Open MPI needs --allow-run-as-root).
Result run_ranks(int ranks, const std::string& args) {
  const auto out = scratch() / "stdout.txt", err = scratch() / "stderr.txt";
  const std::string cmd = fmt::format("'{}' --allow-run-as-root --oversubscribe -np {} '{}' {} > '{}' 2> '{}'", SGMCMC_MPIEXEC, ranks,
                                      SGMCMC_CLI, args, out.string(), err.string());
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

// A logistic-regression CSV of n rows (deterministic, no header), 3 features.
fs::path logistic_csv(std::size_t n) {
  const auto p = scratch() / "logistic.csv";
  std::ofstream f(p);
  f << "a,b,c,label\n";
  std::uint64_t s = 12345;
  const auto unit = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double a = 2 * unit() - 1, b = 2 * unit() - 1, c = 2 * unit() - 1;
    const double p1 = 1 / (1 + std::exp(-(2 * a - b + 0.5 * c)));
    f << fmt::format("{},{},{},{}\n", a, b, c, unit() < p1 ? 1 : 0);
  }
  return p;
}

// The pids of the sgmcmc processes (ranks; not mpirun, not a shell) whose command line names `config`.
std::vector<pid_t> ranks_running(const std::string& config) {
  std::vector<pid_t> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = slurp(e.path() / "cmdline");
    const std::string exe = cmdline.substr(0, cmdline.find('\0'));
    if (exe == SGMCMC_CLI && cmdline.find(config) != std::string::npos) pids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

/// A record's chains without their wall times (chains[i].timing), which no two runs share.
json chains_of(const fs::path& record) { return chains_without_timing(read_json(record)); }

double max_difference(const json& a, const json& b) {
  double m = 0;
  REQUIRE(a.size() == b.size());
  for (std::size_t c = 0; c < a.size(); ++c) {
    REQUIRE(a[c]["samples"].size() == b[c]["samples"].size());
    for (std::size_t k = 0; k < a[c]["samples"].size(); ++k)
      for (std::size_t j = 0; j < a[c]["samples"][k].size(); ++j)
        m = std::max(m, std::abs(a[c]["samples"][k][j].get<double>() - b[c]["samples"][k][j].get<double>()));
  }
  return m;
}

}  // namespace

TEST_CASE("chains over 1, 2 and 4 ranks make the single process's record, draw for draw") {
  const auto csv = logistic_csv(300);
  const std::vector<json> configs = {
      {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}}},
       {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", {{1, 0.9}, {0.9, 1}}}, {"grad_noise", 1.0}}},
       {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
       {"steps", 3000}, {"burn_in", 100}, {"thin", 3}, {"chains", 5}, {"seed", 3}},
      {{"sampler", {{"name", "hmc"}, {"step_size", 0.2}, {"leapfrog_steps", 5}}},
       {"target", {{"name", "logistic"}, {"data", csv.string()}}},
       {"steps", 400}, {"chains", 3}, {"seed", 8}, {"log_density", true}}};
  for (std::size_t k = 0; k < configs.size(); ++k) {
    const auto config = write_json(scratch(), fmt::format("over_{}.json", k), configs[k]);
    REQUIRE(run_cli(scratch(), fmt::format("run '{}' -o '{}' -q --format json,csv", config.string(), (scratch() / "one.json").string())).code == 0);
    const json one = read_json(scratch() / "one.json");
    for (int ranks : {1, 2, 4}) {
      const auto out = scratch() / fmt::format("over_{}_{}.json", k, ranks);
      // --threads 2: threads inside each rank as well.
      const Result r = run_ranks(ranks, fmt::format("run '{}' -o '{}' -q --threads 2 --format json,csv", config.string(), out.string()));
      INFO(r.err);
      REQUIRE(r.code == 0);
      const json many = read_json(out);
      CHECK(many["status"] == "ok");
      CHECK(many["config"] == one["config"]);
      CHECK(many["config_digest"] == one["config_digest"]);
      CHECK(chains_without_timing(many) == chains_without_timing(one));  // draws, statistics, diagnostics and states
      // Stan CSV, written by rank 0 alone: the same rows (its comments hold timings).
      for (std::size_t chain = 1; chain <= many["chains"].size(); ++chain) {
        const auto rows = [](const fs::path& p) {
          std::string kept;
          std::istringstream in(slurp(p));
          for (std::string line; std::getline(in, line);)
            if (!line.starts_with("#")) kept += line + '\n';
          return kept;
        };
        const std::string mine = rows(scratch() / fmt::format("over_{}_{}_{}.csv", k, ranks, chain));
        CHECK(!mine.empty());
        CHECK(mine == rows(scratch() / fmt::format("one_{}.csv", chain)));
      }
    }
  }
}

TEST_CASE("an untuned run over 2 ranks makes the single process's choice and draws (docs/tuning.md)") {
  // Every rank tunes alike from the seed; a rank that chose otherwise would run other chains than the
  // record's config says.
  const json c = {{"sampler", {{"name", "sghmc"}}}, {"target", {{"name", "logistic"}, {"data", logistic_csv(300).string()}}},
                  {"steps", 3000}, {"chains", 3}, {"seed", 4}};
  const auto config = write_json(scratch(), "untuned.json", c);
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -o '{}' -q", config.string(), (scratch() / "untuned_one.json").string())).code == 0);
  const Result r = run_ranks(2, fmt::format("run '{}' -o '{}' -q", config.string(), (scratch() / "untuned_two.json").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json one = read_json(scratch() / "untuned_one.json"), two = read_json(scratch() / "untuned_two.json");
  REQUIRE(one["config"].contains("tune"));
  CHECK(two["config"] == one["config"]);
  CHECK(chains_without_timing(two) == chains_without_timing(one));
}

TEST_CASE("sharded data: every estimator's draws depend on the shards alone, and match one process to rounding") {
  const auto csv = logistic_csv(1000);
  for (const char* estimator : {"minibatch", "control_variate", "svrg", "saga"}) {
    json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}, {"friction", 1.0}}},
              {"target", {{"name", "logistic"}, {"data", csv.string()}, {"batch_size", 50}, {"estimator", estimator}}},
              {"steps", 1500}, {"thin", 10}, {"chains", 2}, {"seed", 5}};
    const auto single = write_json(scratch(), "single.json", c);
    c["distributed"] = {{"shards", 2}};
    const auto sharded = write_json(scratch(), "sharded.json", c);
    INFO(estimator);
    REQUIRE(run_cli(scratch(), fmt::format("run '{}' -o '{}' -q", single.string(), (scratch() / "s1.json").string())).code == 0);
    for (const char* out : {"r2.json", "r2_again.json"}) {
      const Result r = run_ranks(2, fmt::format("run '{}' -o '{}' -q", sharded.string(), (scratch() / out).string()));
      INFO(r.err);
      REQUIRE(r.code == 0);
    }
    const Result r4 = run_ranks(4, fmt::format("run '{}' -o '{}' -q", sharded.string(), (scratch() / "r4.json").string()));
    INFO(r4.err);
    REQUIRE(r4.code == 0);
    const json two = chains_of(scratch() / "r2.json");
    CHECK(two == chains_of(scratch() / "r2_again.json"));  // repeated: the same bits
    CHECK(two == chains_of(scratch() / "r4.json"));        // two groups of two: the same bits
    // One process adds the batch's terms in another order: rounding only. A row counted twice or
    // missing, or the prior added twice, moves the draws by O(0.01–1) within a few steps.
    const double d = max_difference(two, chains_of(scratch() / "s1.json"));
    CHECK(d < 1e-8);
    CHECK(read_json(scratch() / "r2.json")["config"]["distributed"]["shards"] == 2);
  }
}

TEST_CASE("the glm target sharded: its rows split over the group, centred by the whole data's means") {
  // Catches: a shard centring its rows by its own means (the intercept moves by O(0.1)), a shard's
  // start differing from the whole model's (the L-BFGS centre differs), an auxiliary parameter's
  // terms counted once per shard, rows counted twice or lost.
  const auto csv = logistic_csv(600);
  const std::vector<json> targets = {
      {{"name", "glm"}, {"data", csv.string()}, {"response", "label"}, {"family", "bernoulli"}, {"batch_size", 40}, {"estimator", "control_variate"}},
      {{"name", "glm"}, {"data", csv.string()}, {"response", "a"}, {"predictors", {"b", "c"}}, {"family", "student"}, {"batch_size", 40},
       {"estimator", "svrg"}}};
  for (std::size_t k = 0; k < targets.size(); ++k) {
    json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 2e-3}}}, {"target", targets[k]}, {"steps", 600}, {"thin", 10}, {"chains", 2}, {"seed", 4}};
    const auto single = write_json(scratch(), "glm_single.json", c);
    c["distributed"] = {{"shards", 2}};
    const auto sharded = write_json(scratch(), "glm_sharded.json", c);
    INFO(targets[k].dump());
    REQUIRE(run_cli(scratch(), fmt::format("run '{}' -o '{}' -q", single.string(), (scratch() / "glm_s1.json").string())).code == 0);
    const Result r = run_ranks(2, fmt::format("run '{}' -o '{}' -q", sharded.string(), (scratch() / "glm_r2.json").string()));
    INFO(r.err);
    REQUIRE(r.code == 0);
    const json one = read_json(scratch() / "glm_s1.json"), two = read_json(scratch() / "glm_r2.json");
    CHECK(two["parameters"] == one["parameters"]);
    CHECK(max_difference(chains_without_timing(two), chains_without_timing(one)) < 1e-8);
  }
}

TEST_CASE("generated data sharded over a group are the single process's data") {
  json c = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-4}}},
            {"target", {{"name", "logistic"}, {"data", {{"examples", 5000}, {"features", 6}, {"seed", 2}}}, {"batch_size", 64}}},
            {"steps", 500}, {"thin", 5}, {"chains", 1}, {"seed", 1}};
  const auto single = write_json(scratch(), "gen1.json", c);
  c["distributed"] = {{"shards", 4}};
  const auto sharded = write_json(scratch(), "gen4.json", c);
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -o '{}' -q", single.string(), (scratch() / "g1.json").string())).code == 0);
  const Result r = run_ranks(4, fmt::format("run '{}' -o '{}' -q", sharded.string(), (scratch() / "g4.json").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(max_difference(chains_of(scratch() / "g1.json"), chains_of(scratch() / "g4.json")) < 1e-9);
}

TEST_CASE("a sharded run resumes on another number of ranks with the uninterrupted run's bits") {
  const auto csv = logistic_csv(600);
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}, {"friction", 1.0}}},
            {"target", {{"name", "logistic"}, {"data", csv.string()}, {"batch_size", 40}, {"estimator", "svrg"}}},
            {"steps", 2000}, {"thin", 10}, {"chains", 3}, {"seed", 4}, {"distributed", {{"shards", 2}}}};
  const auto whole = write_json(scratch(), "whole.json", c);
  c["steps"] = 1000;
  const auto half = write_json(scratch(), "half.json", c);
  REQUIRE(run_ranks(4, fmt::format("run '{}' -o '{}' -q", whole.string(), (scratch() / "whole_out.json").string())).code == 0);
  REQUIRE(run_ranks(2, fmt::format("run '{}' -o '{}' -q", half.string(), (scratch() / "half_out.json").string())).code == 0);
  const Result r = run_ranks(4, fmt::format("resume '{}' --steps 1000 -o '{}' -q", (scratch() / "half_out.json").string(),
                                            (scratch() / "resumed.json").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json a = chains_of(scratch() / "whole_out.json"), b = chains_of(scratch() / "resumed.json");
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a[i]["samples"] == b[i]["samples"]);
    CHECK(a[i]["state"] == b[i]["state"]);
  }
  // A plain process cannot continue a sharded run's bits: it says so, naming the field.
  const Result plain = run_cli(scratch(), fmt::format("resume '{}' --steps 10 -o '{}'", (scratch() / "half_out.json").string(),
                                                      (scratch() / "plain.json").string()));
  CHECK(plain.code == 1);
  CHECK(plain.err.find("/distributed/shards") != std::string::npos);
}

TEST_CASE("a killed rank stops the run, is reported, and the last checkpoint resumes to the uninterrupted bits") {
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}, {"friction", 1.0}}},
            {"target", {{"name", "logistic"}, {"data", {{"examples", 20000}, {"features", 5}, {"seed", 3}}}, {"batch_size", 50}}},
            {"steps", 50'000'000}, {"thin", 50}, {"chains", 2}, {"seed", 6}, {"distributed", {{"shards", 2}}},
            {"checkpoint_every", 2000}};
  const auto config = write_json(scratch(), "long.json", c);
  const auto out = scratch() / "long_out.json";
  fs::remove(out);
  const std::string cmd =
      fmt::format("'{}' --allow-run-as-root --oversubscribe -np 2 '{}' run '{}' -o '{}' -q > '{}' 2> '{}'", SGMCMC_MPIEXEC, SGMCMC_CLI,
                  config.string(), out.string(), (scratch() / "kill_out.txt").string(), (scratch() / "kill_err.txt").string());
  std::thread job([&] { (void)std::system(cmd.c_str()); });
  // Wait for a checkpoint, then SIGKILL the newest process running this config: a rank (mpirun is older).
  for (int i = 0; i < 600 && !fs::exists(out); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(fs::exists(out));
  const std::vector<pid_t> ranks = ranks_running(config.string());
  CHECK(ranks.size() == 2);
  if (!ranks.empty()) ::kill(ranks.back(), SIGKILL);
  for (int i = 0; i < 300 && !ranks_running(config.string()).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (pid_t p : ranks_running(config.string())) ::kill(p, SIGKILL);  // never leave the job behind
  job.join();
  const std::string err = slurp(scratch() / "kill_err.txt");
  INFO(err);
  CHECK(err.find("signal 9") != std::string::npos);  // mpirun names the killed rank
  const json checkpoint = read_json(out);
  CHECK(checkpoint["status"] == "interrupted");
  CHECK(checkpoint["timings"]["phases"].back()["checkpoint"] == true);
  const std::uint64_t done = checkpoint["chains"][0]["draws"].get<std::uint64_t>() * 50;  // thin 50, no burn-in
  REQUIRE(done > 0);
  CHECK(done % 2000 == 0);
  // Resume 1000 steps past the checkpoint on 4 ranks; the same run, uninterrupted, on 2.
  const Result r = run_ranks(4, fmt::format("resume '{}' --steps 1000 -o '{}' -q", out.string(), (scratch() / "after.json").string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  c["steps"] = done + 1000;
  c.erase("checkpoint_every");
  const auto straight = write_json(scratch(), "straight.json", c);
  REQUIRE(run_ranks(2, fmt::format("run '{}' -o '{}' -q", straight.string(), (scratch() / "straight_out.json").string())).code == 0);
  const json a = chains_of(scratch() / "after.json"), b = chains_of(scratch() / "straight_out.json");
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(a[i]["samples"] == b[i]["samples"]);
    CHECK(a[i]["state"] == b[i]["state"]);
  }
}

TEST_CASE("an error on one rank stops every rank with that rank's message") {
  // The second half of the file is rank 1's part: its malformed row is named, and rank 0 does not wait.
  std::string text;
  for (int i = 0; i < 40; ++i) text += fmt::format("{},{},{}\n", 0.1 * i, -0.05 * i, i % 2);
  text += "1.0,oops,1\n";
  const auto bad = scratch() / "bad.csv";
  std::ofstream(bad) << text;
  const json c = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-3}}},
                  {"target", {{"name", "logistic"}, {"data", bad.string()}}},
                  {"steps", 10}, {"distributed", {{"shards", 2}}}};
  const auto config = write_json(scratch(), "bad.json", c);
  const auto out = scratch() / "bad_out.json";
  const Result r = run_ranks(2, fmt::format("run '{}' -o '{}'", config.string(), out.string()));
  CHECK(r.code != 0);
  CHECK(r.err.find("/target/data") != std::string::npos);
  CHECK(r.err.find("rank 1") != std::string::npos);
  CHECK(r.err.find("bad.csv (part 2 of 2") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // Shards that do not divide the ranks, and a target that cannot be sharded: the field is named.
  json odd = c;
  odd["distributed"]["shards"] = 3;
  const Result r3 = run_ranks(2, fmt::format("run '{}' -o '{}'", write_json(scratch(), "odd.json", odd).string(), out.string()));
  CHECK(r3.code == 1);
  CHECK(r3.err.find("/distributed/shards: 2 ranks do not split into chain groups of 3") != std::string::npos);
  json gauss = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-3}}},
                {"target", {{"name", "gaussian"}, {"mean", {0}}, {"cov", 1}}}, {"distributed", {{"shards", 2}}}};
  const Result rg = run_ranks(2, fmt::format("run '{}' -o '{}'", write_json(scratch(), "gauss.json", gauss).string(), out.string()));
  CHECK(rg.code == 1);
  CHECK(rg.err.find("target 'gaussian' cannot be sharded") != std::string::npos);
}

TEST_CASE("a saga chain on sharded data is refused by resume, not continued on one shard's table") {
  // Catches: the record keeps the reporting rank's SAGA table and sum only; before, rank 1 resumed
  // with rank 0's part of the sum and zeros for its own examples — a biased gradient, exit 0.
  const auto csv = logistic_csv(300);
  json c = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-3}}},
            {"target", {{"name", "logistic"}, {"data", csv.string()}, {"batch_size", 30}, {"estimator", "saga"}}},
            {"steps", 200}, {"chains", 2}, {"seed", 3}, {"distributed", {{"shards", 2}}}};
  const auto cfg = write_json(scratch(), "saga_sharded.json", c);
  REQUIRE(run_ranks(2, fmt::format("run '{}' -o '{}' -q", cfg.string(), (scratch() / "saga_r.json").string())).code == 0);
  const Result r = run_ranks(2, fmt::format("resume '{}' --steps 100 -o '{}' -q", (scratch() / "saga_r.json").string(),
                                            (scratch() / "saga_resumed.json").string()));
  CHECK(r.code != 0);
  CHECK(r.err.find("/chains/0/state/target/saga_table: a saga chain on sharded data") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "saga_resumed.json"));
}
