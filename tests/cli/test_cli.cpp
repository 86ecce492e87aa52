// End-to-end tests of the sgmcmc command-line tool: the JSON vocabulary, exact resume, thread-count
// independence, and bad input (errors naming the JSON path, exit codes, nothing half-written).
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace test_cli {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

using sgmcmc_test::cli::Result;
using sgmcmc_test::cli::slurp;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_scratch");
  return dir;
}
Result sgmcmc(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }
fs::path write_config(const std::string& name, const json& j) { return sgmcmc_test::cli::write_json(scratch(), name, j); }
json read(const fs::path& p) { return sgmcmc_test::cli::read_json(p); }

json base_config(const json& sampler) {
  return {{"sampler", sampler},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"target", {{"name", "gaussian"}, {"mean", {1, -1}}, {"cov", {{1, 0.9}, {0.9, 1}}}, {"grad_noise", 0.5}}},
          {"steps", 600}, {"burn_in", 100}, {"thin", 3}, {"chains", 2}, {"seed", 11}};
}

}  // namespace

TEST_CASE("run with no config runs the embedded demo and writes a versioned record") {
  // Catches: a broken default demo (the README's main job), a record missing the fields of docs/run-format.md.
  const auto out = scratch() / "demo.json";
  const Result r = sgmcmc(fmt::format("run -q -o '{}'", out.string()));
  REQUIRE(r.code == 0);
  const json rec = read(out);
  CHECK(rec["schema"] == "sgmcmc.run");
  CHECK(rec["schema_version"] == 2);
  CHECK(rec["config"]["sampler"]["name"] == "sghmc");
  CHECK(rec["config"]["seed"] == 7);
  REQUIRE(rec["chains"].size() == 2);
  // 200000 steps, burn-in 1000, thin 10: (200000 - 1000) / 10 draws per chain.
  CHECK(rec["chains"][0]["samples"].size() == 19900);
  CHECK(rec["chains"][0]["samples"][0].size() == 2);
  CHECK(rec["chains"][1]["state"]["rng"]["stream"] == 1);
  CHECK(rec["timings"]["phases"][0]["sampling_seconds"].get<double>() > 0);
}

TEST_CASE("resume N steps after N steps equals 2N steps, sample for sample, for every sampler and scheme") {
  // Catches: state left out of the record (velocity, thermostat, RNG counters, step count for the
  // schedule), burn-in/thinning restarted on resume, doubles written with too few digits.
  const json samplers[] = {
      {{"name", "sgld"}, {"step_size", {{"schedule", "polynomial"}, {"a", 0.05}, {"b", 10}, {"gamma", 0.55}}}},
      {{"name", "sghmc"}, {"step_size", 0.1}, {"friction", 2.0}, {"noise_estimate", 0.25}, {"scheme", "aboba"}},
      {{"name", "sghmc"}, {"step_size", 0.1}, {"friction", {1.0, 3.0}}, {"scheme", "baoab"}},
      {{"name", "sghmc"}, {"step_size", 0.1}, {"scheme", "obabo"}},
      // Leimkuhler & Matthews's BAOAB: a fresh gradient per kick, none cached in the state to carry over.
      {{"name", "sghmc"}, {"step_size", 0.1}, {"friction", 2.0}, {"noise_estimate", 0.25}, {"scheme", "lm_baoab"}},
      {{"name", "sghmc"}, {"learning_rate", 0.01}, {"momentum_decay", 0.1}, {"scheme", "euler"}},
      {{"name", "sgnht"}, {"step_size", 0.1}, {"diffusion", 1.5}},
      {{"name", "naive_sghmc"}, {"step_size", 0.05}, {"leapfrog_steps", 5}, {"mh", true}},
      {{"name", "hmc"}, {"step_size", 0.2}, {"leapfrog_steps", 4}},
      {{"name", "psgld"}, {"step_size", 0.05}, {"alpha", 0.9}},  // its RMSprop average V is state too
      {{"name", "sghmc"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.2}, {"cycle", 250}}}},
      {{"name", "amagold"}, {"step_size", 0.1}, {"friction", 1.0}, {"mh_every", 4}},  // its velocity and cached U
      {{"name", "sgld"}, {"step_size", 0.05}, {"preconditioner", {{"adapt_steps", 800}}}},  // resumed inside the warm-up
      {{"name", "sghmc"}, {"step_size", 0.1}, {"preconditioner", {{"adapt_steps", 200}}}},  // and after it
      // A dense factor's warm-up sums (Welford's mean and M2) resumed inside the warm-up, and a
      // low-rank one's factor after it.
      {{"name", "sgld"}, {"step_size", 0.05}, {"preconditioner", {{"kind", "dense"}, {"adapt_steps", 800}}}},
      {{"name", "sghmc"}, {"step_size", 0.1}, {"preconditioner", {{"kind", "low_rank"}, {"rank", 1}, {"adapt_steps", 200}}}},
  };
  int k = 0;
  for (const json& s : samplers) {
    CAPTURE(s.dump());
    json whole = base_config(s);
    whole["steps"] = 1200;
    const auto whole_cfg = write_config(fmt::format("whole{}.json", k), whole);
    const auto half_cfg = write_config(fmt::format("half{}.json", k), base_config(s));
    const auto whole_out = scratch() / fmt::format("whole{}.run.json", k);
    const auto half_out = scratch() / fmt::format("half{}.run.json", k);
    const auto resumed_out = scratch() / fmt::format("resumed{}.run.json", k);
    REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", whole_cfg.string(), whole_out.string())).code == 0);
    REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", half_cfg.string(), half_out.string())).code == 0);
    const Result r = sgmcmc(fmt::format("resume -q '{}' --steps 600 -o '{}'", half_out.string(), resumed_out.string()));
    REQUIRE(r.code == 0);
    const json a = read(whole_out), b = read(resumed_out);
    for (int c = 0; c < 2; ++c) {
      CHECK(a["chains"][c]["samples"].size() == (1200 - 100) / 3);
      CHECK(a["chains"][c]["samples"] == b["chains"][c]["samples"]);
      CHECK(a["chains"][c]["state"] == b["chains"][c]["state"]);
    }
    CHECK(b["timings"]["phases"].size() == 2);
    ++k;
  }
}

TEST_CASE("the same seed gives the same run on 1 and 2 threads") {
  // Catches: chains sharing a random stream, or streams assigned by thread instead of by chain index.
  json cfg = base_config({{"name", "sghmc"}, {"step_size", 0.1}});
  cfg["chains"] = 3;
  const auto p = write_config("threads.json", cfg);
  const auto one = scratch() / "one.json", two = scratch() / "two.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' --threads 1 -o '{}'", p.string(), one.string())).code == 0);
  REQUIRE(sgmcmc(fmt::format("run -q '{}' --threads 2 -o '{}'", p.string(), two.string())).code == 0);
  CHECK(sgmcmc_test::cli::chains_without_timing(read(one)) == sgmcmc_test::cli::chains_without_timing(read(two)));
  CHECK(read(one)["chains"][0]["samples"] != read(one)["chains"][1]["samples"]);
}

TEST_CASE("bad config: an error naming the JSON path, exit code 1, no output written") {
  // Catches: silent defaults for typos, errors that do not say where, half-written records.
  struct Case {
    json config;
    std::string message;
  };
  auto with = [](const std::string& pointer, const json& value) {
    json c = base_config({{"name", "sghmc"}, {"step_size", 0.1}});
    c[json::json_pointer(pointer)] = value;
    return c;
  };
  json unknown = base_config({{"name", "sghmc"}, {"step_size", 0.1}});
  unknown["sampler"]["frction"] = 1.0;
  json no_step = base_config({{"name", "naive_sghmc"}});  // a sampler without a tuner (docs/tuning.md)
  json psgld_alpha = base_config({{"name", "psgld"}, {"step_size", 0.1}, {"alpha", 1.0}});
  json psgld_sphere = base_config({{"name", "psgld"}, {"step_size", 0.1}});
  psgld_sphere["manifold"] = {{"name", "sphere"}, {"n", 2}};
  psgld_sphere["target"] = {{"name", "uniform"}};
  // A typo'd dimension is refused before anything of its size is allocated (it took 10 GB and aborted).
  json huge = base_config({{"name", "sgld"}, {"step_size", 0.1}});
  huge["manifold"]["dim"] = 1000000000;
  huge["target"] = {{"name", "gaussian"}, {"cov", 1}};
  const Case cases[] = {
      {huge, "/manifold: a manifold of dimension 1000000000 is above max_dimension 10000000"},
      {with("/max_dimension", 1), "/manifold: a manifold of dimension 2 is above max_dimension 1"},
      {psgld_alpha, "/sampler/alpha: expected a number in [0, 1), got 1"},
      {psgld_sphere, "/manifold/name: 'psgld' runs on euclidean"},
      {with("/sampler/friction", -1), "/sampler/friction: expected a positive number, got -1"},
      {with("/sampler/step_size", 0), "/sampler/step_size: expected a positive number, got 0"},
      {unknown, "/sampler/frction: unknown field"},
      {no_step, "/sampler/step_size: required for 'naive_sghmc': it has no tuner"},
      {with("/sampler/name", "sgxyz"), "/sampler/name: unknown sampler 'sgxyz'"},
      {with("/sampler/scheme", "abab"), "/sampler/scheme: unknown scheme 'abab'"},
      {with("/sampler/scheme", "abab"), "lm_baoab, Leimkuhler & Matthews's BAOAB"},  // the known list names it
      {base_config({{"name", "sgnht"}, {"step_size", 0.1}, {"scheme", "lm_baoab"}}),
       "/sampler/scheme: 'lm_baoab' (Leimkuhler & Matthews's BAOAB) needs an exact Ornstein-Uhlenbeck step, which 'sgnht' has not"},
      {with("/target/mean", json::array({0, 0, 0})), "/target/mean: expected 2 numbers, got 3"},
      {with("/target/cov", json::array({json::array({1, 2}), json::array({2, 1})})), "/target/cov: expected a positive definite matrix"},
      {with("/steps", "many"), "/steps: expected an integer >= 0, got \"many\""},
      {with("/thin", 0), "/thin: expected an integer >= 1, got 0"},
      {with("/init", json::array({1, 2, 3})), "/init: expected 2 numbers, got 3"},
      {with("/manifold/name", "torus"), "/manifold/name: unknown manifold 'torus'"},
      {with("/target/name", "double_well"), "/target: target 'double_well' is 1-dimensional but the manifold has 2 coordinates"},
      {with("/sampler/noise_estimate", 100), "noise_estimate"},
  };
  int k = 0;
  for (const Case& c : cases) {
    CAPTURE(c.message);
    const auto cfg = write_config(fmt::format("bad{}.json", k), c.config);
    const auto out = scratch() / fmt::format("bad{}.run.json", k);
    const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), out.string()));
    CHECK(r.code != 0);
    CHECK(r.err.find(c.message) != std::string::npos);
    if (c.message != "noise_estimate") {
      CHECK(r.code == 1);
      CHECK_FALSE(fs::exists(out));
    }
    ++k;
  }
  const auto garbage = scratch() / "garbage.json";
  std::ofstream(garbage) << "{\"sampler\": ";
  const Result r = sgmcmc(fmt::format("run '{}'", garbage.string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("not valid JSON") != std::string::npos);
  // Nothing from the input is echoed raw (issue #13 item 1): a data path pointed at a secrets file names
  // the line and column, never the contents; the JSON library's "last read: '...'" quote is dropped; a
  // number beyond a double is named with the file, not as the library's out_of_range; a string from the
  // config is cut to ~100 characters with its terminal escapes written as \xNN.
  const auto secrets = scratch() / "secrets.env";
  std::ofstream(secrets) << "API_KEY=sk-live-abcdef\nTOKEN=ghp-123456\n";
  json leak = base_config({{"name", "sgld"}, {"step_size", 0.1}});
  leak.erase("manifold");
  leak["target"] = {{"name", "logistic"}, {"data", secrets.string()}};
  const Result leaked = sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("leak.json", leak).string(), (scratch() / "leak.run.json").string()));
  CHECK(leaked.code == 1);
  CHECK(leaked.err.find("secrets.env:2: column 1: expected a number") != std::string::npos);
  CHECK(leaked.err.find("sk-live") == std::string::npos);
  CHECK(leaked.err.find("ghp-") == std::string::npos);
  const auto not_json = scratch() / "not_json.json";
  std::ofstream(not_json) << "PASSWORD=hunter2";
  const Result quoted = sgmcmc(fmt::format("run -q '{}' -o '{}'", not_json.string(), (scratch() / "nj.run.json").string()));
  CHECK(quoted.code == 1);
  CHECK(quoted.err.find("not_json.json: not valid JSON: parse error at line 1, column 1") != std::string::npos);
  CHECK(quoted.err.find("PASSWORD") == std::string::npos);
  CHECK(quoted.err.find("json.exception") == std::string::npos);
  const auto overflow = scratch() / "overflow.json";
  std::ofstream(overflow) << R"({"sampler": {"name": "sgld", "step_size": 1e400}, "target": {"name": "gaussian", "mean": [0, 0]}})";
  const Result big = sgmcmc(fmt::format("run -q '{}' -o '{}'", overflow.string(), (scratch() / "of.run.json").string()));
  CHECK(big.code == 1);
  CHECK(big.err.find("overflow.json: not valid JSON here: a number too large for a double") != std::string::npos);
  json escape = base_config({{"name", std::string("sgld\x1b]0;pwned\x07") + std::string(1000000, 'x')}, {"step_size", 0.1}});
  const Result escaped = sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("escape.json", escape).string(), (scratch() / "esc.run.json").string()));
  CHECK(escaped.code == 1);
  CHECK(escaped.err.find("unknown sampler 'sgld\\x1b]0;pwned\\x07xxx") != std::string::npos);
  CHECK(escaped.err.find('\x1b') == std::string::npos);
  CHECK(escaped.err.size() < 1000);
  CHECK(sgmcmc("run /no/such/config.json").err.find("/no/such/config.json: cannot open") != std::string::npos);
  CHECK(sgmcmc("frobnicate").code == 2);  // a bad command line is exit code 2, not a bad input's 1
  CHECK(sgmcmc("run --threads lots").code == 2);
  // -o naming the config itself is refused before anything runs: the config survives.
  const auto self = write_config("self.json", base_config({{"name", "sgld"}, {"step_size", 0.1}}));
  const std::string before = slurp(self);
  const Result same = sgmcmc(fmt::format("run -q '{}' -o '{}'", self.string(), self.string()));
  CHECK(same.code == 2);
  CHECK(same.err.find("that is the config file") != std::string::npos);
  CHECK(slurp(self) == before);
  // An empty -o is a bad command line; an unwritable output is found before sampling, named, exit 1,
  // and no temporary is left in the folder. (The run keeps no draws, so if the check came after the
  // sampling it would cost seconds, not memory.)
  CHECK(sgmcmc(fmt::format("run -q '{}' -o ''", self.string())).code == 2);
  json endless = base_config({{"name", "sgld"}, {"step_size", 0.1}});
  endless["steps"] = 20000000;
  endless["burn_in"] = 20000000;
  const auto blocked = scratch() / "not_a_folder";
  std::ofstream(blocked) << "a file where the record's folder should be";
  const Result unwritable = sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("endless.json", endless).string(),
                                               (blocked / "run.json").string()));
  CHECK(unwritable.code == 1);
  CHECK(unwritable.err.find("not_a_folder/run.json: cannot") != std::string::npos);
  for (const auto& entry : fs::directory_iterator(scratch())) {  // a write's temporary is ".NAME.XXXXXX"
    const std::string name = entry.path().filename().string();
    CHECK_MESSAGE(!(name[0] == '.' && name.find(".json.") != std::string::npos), name);
  }
}

TEST_CASE("a record from a newer schema or a malformed record is refused with the field named") {
  // Catches: resuming a record this build cannot read, or crashing on a truncated one.
  const auto cfg = write_config("small.json", base_config({{"name", "sghmc"}, {"step_size", 0.1}}));
  const auto rec = scratch() / "small.run.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), rec.string())).code == 0);
  json r = read(rec);
  r["schema_version"] = 3;
  const auto newer = write_config("newer.run.json", r);
  Result res = sgmcmc(fmt::format("resume '{}' --steps 10 -o '{}'", newer.string(), (scratch() / "x.json").string()));
  CHECK(res.code == 1);
  CHECK(res.err.find("/schema_version: record has version 3") != std::string::npos);
  r = read(rec);
  r["chains"][1]["state"]["sampler"]["v"] = json::array({1.0});
  const auto bad_state = write_config("badstate.run.json", r);
  res = sgmcmc(fmt::format("resume '{}' --steps 10 -o '{}'", bad_state.string(), (scratch() / "x.json").string()));
  CHECK(res.code == 1);
  CHECK(res.err.find("/chains/1/state/sampler/v: expected 2 numbers, got 1") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "x.json"));
}

TEST_CASE("a chain that diverges stops with a clear error and keeps the draws made before it") {
  // Catches: NaN draws written as samples, a crash instead of a record, lost draws.
  json cfg = {{"sampler", {{"name", "sgld"}, {"step_size", 0.3}}},
              {"target", {{"name", "double_well"}}},
              {"init", {1.0}}, {"steps", 100000}, {"chains", 1}, {"seed", 3}};
  const auto p = write_config("diverge.json", cfg);
  const auto out = scratch() / "diverge.run.json";
  const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", p.string(), out.string()));
  CHECK(r.code == 3);
  CHECK(r.err.find("non-finite state at step") != std::string::npos);
  REQUIRE(fs::exists(out));
  const json rec = read(out);
  CHECK(rec["status"] == "error");
  CHECK(rec["chains"][0]["status"] == "error");
  for (const auto& draw : rec["chains"][0]["samples"]) CHECK(draw[0].is_number());  // NaN would be written as null
  const Result again = sgmcmc(fmt::format("resume '{}' --steps 10 -o '{}'", out.string(), (scratch() / "y.json").string()));
  CHECK(again.code == 1);
  CHECK(again.err.find("cannot be resumed") != std::string::npos);
  // A run that keeps no draws is a warm-up (exit 0, with or without -q); a divergence during the burn-in
  // is still reported and exits 3 (it used to exit 1 with "the run kept no draws", the divergence unsaid).
  json warm = base_config({{"name", "sgld"}, {"step_size", 0.1}});
  warm["burn_in"] = warm["steps"];
  const auto warm_cfg = write_config("warm.json", warm);
  CHECK(sgmcmc(fmt::format("run '{}' -o '{}'", warm_cfg.string(), (scratch() / "warm.run.json").string())).code == 0);
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}'", warm_cfg.string(), (scratch() / "warm.run.json").string())).code == 0);
  json burn_diverge = cfg;
  burn_diverge["burn_in"] = cfg["steps"];
  const Result in_burn_in = sgmcmc(fmt::format("run '{}' -o '{}'", write_config("burn_diverge.json", burn_diverge).string(),
                                               (scratch() / "burn_diverge.run.json").string()));
  CHECK(in_burn_in.code == 3);
  CHECK(in_burn_in.err.find("non-finite state at step") != std::string::npos);
  // The summary says the chain stopped (its draws end early).
  REQUIRE_FALSE(rec["chains"][0]["samples"].empty());
  CHECK(sgmcmc(fmt::format("summary '{}'", out.string())).out.find("warning: chain 0 stopped early") != std::string::npos);
}

TEST_CASE("summary prints mean, sd, quantiles, ESS and R-hat per coordinate") {
  // Catches: a summary that does not parse the record, or reports nonsense for a well-mixed run.
  const auto cfg = write_config("sum.json", [] {
    json c = base_config({{"name", "hmc"}, {"step_size", 0.2}, {"leapfrog_steps", 5}});
    c["steps"] = 4000;
    return c;
  }());
  const auto rec = scratch() / "sum.run.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), rec.string())).code == 0);
  const Result r = sgmcmc(fmt::format("summary '{}' --json", rec.string()));
  REQUIRE(r.code == 0);
  const json s = json::parse(r.out)["summary"];
  REQUIRE(s.size() == 2);
  CHECK(std::abs(s[0]["mean"].get<double>() - 1.0) < 6 * s[0]["mcse_mean"].get<double>());
  CHECK(s[0]["rhat"].get<double>() < 1.05);
  CHECK(s[0]["ess_bulk"].get<double>() > 100);
  CHECK(json::parse(r.out)["warnings"].empty());  // a well-mixed run draws no warning
  CHECK(sgmcmc(fmt::format("summary '{}'", rec.string())).out.find("ess_bulk") != std::string::npos);
  // A run far from mixed (SGLD at h = 10⁻⁴ for 600 steps from (5, 5)) gets Stan's warnings, in both forms.
  json stuck = base_config({{"name", "sgld"}, {"step_size", 1e-4}});
  stuck["init"] = {5.0, 5.0};
  const auto stuck_rec = scratch() / "stuck.run.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("stuck.json", stuck).string(), stuck_rec.string())).code == 0);
  const json warned = json::parse(sgmcmc(fmt::format("summary '{}' --json", stuck_rec.string())).out)["warnings"];
  REQUIRE(warned.size() >= 2);
  CHECK(warned[0].get<std::string>().find("R-hat > 1.01") != std::string::npos);
  CHECK(warned[1].get<std::string>().find("bulk ESS < 200") != std::string::npos);
  CHECK(sgmcmc(fmt::format("summary '{}'", stuck_rec.string())).out.find("warning: R-hat") != std::string::npos);
  CHECK(sgmcmc("--help").code == 0);
  CHECK(sgmcmc("run --help").out.find("--output") != std::string::npos);
  // `list` names every registered entry with its aliases (catches an entry that never reached the registry).
  const Result listed = sgmcmc("list");
  CHECK(listed.code == 0);
  for (const char* name : {"euclidean", "sphere", "simplex", "stiefel", "product", "gaussian", "vmf", "bnn", "bpmf", "sgld",
                           "sghmc", "sggmc", "sgnht", "gsgnht", "hmc", "gmc", "scir", "sgrld", "sgrhmc", "recipe", "psgld"})
    CHECK_MESSAGE(listed.out.find(name) != std::string::npos, name);
}

TEST_CASE("manifold configs: sphere, simplex, stiefel, product; init off the manifold is refused") {
  // Catches: a manifold name or size field not wired, a target accepted on the wrong manifold, an init
  // point off the manifold accepted silently, draws that leave the manifold.
  struct Case {
    json manifold, target;
    std::string sampler;
  };
  const Case ok_cases[] = {
      {{{"name", "sphere"}, {"n", 3}}, {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}, "sggmc"},
      {{{"name", "sphere"}, {"n", 3}}, {{"name", "uniform"}}, "gsgnht"},
      {{{"name", "simplex"}, {"n", 3}}, {{"name", "linear"}, {"b", {0, 1, 3}}}, "sgld"},
      {{{"name", "simplex"}, {"n", 3}}, {{"name", "dirichlet"}, {"alpha", {0.5, 1, 2}}}, "scir"},
      {{{"name", "simplex"}, {"n", 3}}, {{"name", "dirichlet"}, {"alpha", {2, 3, 5}}}, "gmc"},
      {{{"name", "stiefel"}, {"n", 4}, {"p", 2}}, {{"name", "matrix_vmf"}, {"F", {{3, 0}, {0, 1}, {0, 0}, {0, 0}}}}, "sggmc"},
      {{{"name", "product"}, {"factors", {{{"name", "sphere"}, {"n", 2}}, {{"name", "sphere"}, {"n", 2}}}}},
       {{"name", "vmf_mixture_posterior"}}, "sggmc"},
  };
  int k = 0;
  for (const Case& c : ok_cases) {
    CAPTURE(c.manifold.dump());
    CAPTURE(c.sampler);
    json cfg = {{"sampler", {{"name", c.sampler}, {"step_size", c.sampler == "scir" ? 0.5 : 0.05}}},
                {"manifold", c.manifold}, {"target", c.target}, {"steps", 300}, {"chains", 2}, {"seed", 4}};
    const auto p = write_config(fmt::format("manifold{}.json", k), cfg);
    const auto out = scratch() / fmt::format("manifold{}.run.json", k);
    const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", p.string(), out.string()));
    CHECK(r.err == "");
    REQUIRE(r.code == 0);
    const json rec = read(out);
    for (const auto& draw : rec["chains"][0]["samples"]) {
      std::vector<double> x = draw.get<std::vector<double>>();
      double s = 0, sq = 0;
      for (double v : x) s += v, sq += v * v;
      if (c.manifold["name"] == "sphere") CHECK(std::abs(sq - 1) < 1e-10);
      if (c.manifold["name"] == "simplex") {
        CHECK(std::abs(s - 1) < 1e-10);
        for (double v : x) CHECK(v >= 0);
      }
      if (c.manifold["name"] == "stiefel") CHECK(std::abs(sq - 2) < 1e-9);  // ‖X‖_F² = p
    }
    // resume works for every manifold sampler too
    CHECK(sgmcmc(fmt::format("resume -q '{}' --steps 10 -o '{}'", out.string(), (scratch() / "r.json").string())).code == 0);
    ++k;
  }
  struct Bad {
    json manifold, target, init;
    std::string message;
  };
  const Bad bad_cases[] = {
      {{{"name", "sphere"}, {"n", 3}}, {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}, {0, 0, 2}, "/init: point is off the manifold"},
      {{{"name", "sphere"}, {"n", 3}}, {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}, "mode",
       "/init: \"mode\": the mode search (L-BFGS) runs on euclidean space, and the manifold is sphere"},
      {{{"name", "sphere"}, {"n", 3}}, {{"name", "vmf"}, {"mu", {0, 0, 2}}, {"kappa", 2}}, nullptr, "/target/mu: expected a unit vector"},
      {{{"name", "sphere"}, {"n", 1}}, {{"name", "uniform"}}, nullptr, "/manifold/n: expected an integer >= 2"},
      {{{"name", "simplex"}, {"n", 3}}, {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}, nullptr, "/target/name: vmf lives on a sphere"},
      {{{"name", "stiefel"}, {"n", 2}, {"p", 3}}, {{"name", "uniform"}}, nullptr, "/manifold/p: expected p <= n = 2, got 3"},
      {{{"name", "product"}, {"factors", json::array()}}, {{"name", "uniform"}}, nullptr, "/manifold/factors: expected a non-empty list"},
      {{{"name", "product"}, {"factors", {{{"name", "sphere"}, {"n", 2}}, {{"name", "torus"}}}}}, {{"name", "uniform"}}, nullptr,
       "/manifold/factors/1/name: unknown manifold 'torus'"},
      // A generated data set of 12 TB: refused before the allocation (fuzz_config found it as an abort).
      {{{"name", "product"}, {"factors", {{{"name", "sphere"}, {"n", 2}}, {{"name", "sphere"}, {"n", 2}}}}},
       {{"name", "vmf_mixture_posterior"}, {"n_data", 800000000000}}, nullptr,
       "/target/n_data: expected at most 2^30 generated points, got 800000000000"},
  };
  for (const Bad& c : bad_cases) {
    CAPTURE(c.message);
    json cfg = {{"sampler", {{"name", "sggmc"}, {"step_size", 0.05}}}, {"manifold", c.manifold}, {"target", c.target}, {"steps", 10}};
    if (!c.init.is_null()) cfg["init"] = c.init;
    const auto p = write_config("badmanifold.json", cfg);
    const Result r = sgmcmc(fmt::format("run -q '{}'", p.string()));
    CHECK(r.code == 1);
    CHECK(r.err.find(c.message) != std::string::npos);
  }
}

TEST_CASE("a stochastic-gradient sampler on a singular Dirichlet target is refused, naming the samplers that fit") {
  // Catches: silently wrong answers (docs/math.md#singular-potentials-on-the-simplex: SGGMC on Dirichlet(2,3,5) is biased or blows up).
  for (const char* s : {"sgld", "sghmc", "sgnht"}) {
    json cfg = {{"sampler", {{"name", s}, {"step_size", 0.01}}}, {"manifold", {{"name", "simplex"}, {"n", 3}}},
                {"target", {{"name", "dirichlet"}, {"alpha", {2, 3, 5}}}}};
    const Result r = sgmcmc(fmt::format("run -q '{}'", write_config("dirsg.json", cfg).string()));
    CHECK(r.code == 1);
    CHECK(r.err.find("/sampler/name") != std::string::npos);
    CHECK(r.err.find("scir") != std::string::npos);
    CHECK(r.err.find("gmc") != std::string::npos);
  }
  // α = 1 everywhere is the uniform law: bounded (zero) force, so SG samplers are fine there.
  json cfg = {{"sampler", {{"name", "sggmc"}, {"step_size", 0.05}}}, {"manifold", {{"name", "simplex"}, {"n", 3}}},
              {"target", {{"name", "dirichlet"}, {"alpha", {1, 1, 1}}}}, {"steps", 10}};
  CHECK(sgmcmc(fmt::format("run -q '{}'", write_config("diruniform.json", cfg).string())).code == 0);
}

TEST_CASE("the complete recipe and the Riemannian samplers from configs: exact resume, clear errors") {
  // Catches: recipe/sgrld/sgrhmc state left out of the record; a D/Q/metric that is not validated.
  const json cases[] = {
      {{"sampler", {{"name", "recipe"}, {"step_size", 0.05}, {"augment", "momentum"}, {"D", {{0, 0}, {0, 1}}}, {"Q", {{0, -1}, {1, 0}}}}},
       {"target", {{"name", "double_well"}}}},
      {{"sampler", {{"name", "recipe"}, {"step_size", 0.05}, {"augment", "thermostat"}, {"D", {{0, 0, 0}, {0, 1, 0}, {0, 0, 0}}},
                    {"Q", {{0, -1, 0}, {1, 0, 0}, {0, 0, 0}}}, {"scheme", "semi_implicit"}}},
       {"target", {{"name", "double_well"}}}},
      {{"sampler", {{"name", "sgrhmc"}, {"step_size", 0.01}, {"metric", {{"name", "level_set"}, {"scale", 1.5}, {"offset", 1.5}}}}},
       {"target", {{"name", "double_well"}}}},
      {{"sampler", {{"name", "naive_sgrhmc"}, {"step_size", 0.01}, {"metric", {{"name", "diagonal"}, {"inverse", {2.0}}}}}},
       {"target", {{"name", "double_well"}}}},
      {{"sampler", {{"name", "sgrld"}, {"step_size", 0.01}, {"metric", {{"name", "dense"}, {"inverse", {{1.0, 0.2}, {0.2, 1.0}}}}}}},
       {"target", {{"name", "banana"}}}},
      {{"sampler", {{"name", "sgrld"}, {"step_size", 0.01}}}, {"manifold", {{"name", "simplex"}, {"n", 3}}},
       {"target", {{"name", "dirichlet"}, {"alpha", {0.5, 1, 2}}}}},
  };
  int k = 0;
  for (json c : cases) {
    CAPTURE(c.dump());
    c["steps"] = 400, c["burn_in"] = 50, c["thin"] = 3, c["chains"] = 2, c["seed"] = 5;
    json whole = c;
    whole["steps"] = 800;
    const auto half_out = scratch() / fmt::format("rhalf{}.json", k), whole_out = scratch() / fmt::format("rwhole{}.json", k);
    const auto resumed = scratch() / fmt::format("rres{}.json", k);
    REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("rc.json", c).string(), half_out.string())).code == 0);
    REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("rw.json", whole).string(), whole_out.string())).code == 0);
    REQUIRE(sgmcmc(fmt::format("resume -q '{}' --steps 400 -o '{}'", half_out.string(), resumed.string())).code == 0);
    CHECK(sgmcmc_test::cli::chains_without_timing(read(whole_out)) == sgmcmc_test::cli::chains_without_timing(read(resumed)));
    ++k;
  }
  struct Bad {
    json sampler;
    std::string message;
  };
  const Bad bad[] = {
      {{{"name", "recipe"}, {"step_size", 0.05}, {"augment", "momentum"}, {"D", {{0, 0}, {0, -1}}}, {"Q", {{0, -1}, {1, 0}}}},
       "/sampler/D: expected a symmetric positive semidefinite matrix"},
      {{{"name", "recipe"}, {"step_size", 0.05}, {"augment", "momentum"}, {"D", {{0, 0}, {0, 1}}}, {"Q", {{0, 1}, {1, 0}}}},
       "/sampler/Q: expected a skew-symmetric matrix"},
      {{{"name", "recipe"}, {"step_size", 0.05}, {"D", {{1, 0}, {0, 1}}}, {"Q", {{0, -1}, {1, 0}}}}, "/sampler/D: expected an 1×1 matrix"},
      {{{"name", "sgrhmc"}, {"step_size", 0.01}, {"metric", {{"name", "riemann"}}}}, "/sampler/metric/name: unknown metric 'riemann'"},
      {{{"name", "sgrhmc"}, {"step_size", 0.01}, {"metric", {{"name", "diagonal"}, {"inverse", {-1.0}}}}}, "/sampler/metric/inverse: expected positive entries"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.message);
    const json cfg = {{"sampler", b.sampler}, {"target", {{"name", "double_well"}}}, {"steps", 10}};
    const Result r = sgmcmc(fmt::format("run -q '{}'", write_config("rbad.json", cfg).string()));
    CHECK(r.code == 1);
    CHECK(r.err.find(b.message) != std::string::npos);
  }
  // The level-set metric vanishes where U + offset = 0: a clear error, not a NaN run (docs/math.md#gsgrhmc).
  // U is the normalised double well (min U = -1 + log Z = 0.68), so offset 0.5 never vanishes; offset
  // -1 does, at θ² = 1 - sqrt(1 - (log Z - 1)): start there.
  const json vanishing = {{"sampler", {{"name", "sgrhmc"}, {"step_size", 0.01}, {"metric", {{"name", "level_set"}, {"offset", -1.0}}}}},
                          {"target", {{"name", "double_well"}}}, {"init", {0.6590045904980759}}, {"steps", 10}};
  const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", write_config("rvan.json", vanishing).string(), (scratch() / "rvan.run.json").string()));
  CHECK(r.code != 0);
  CHECK(r.err.find("metric.offset") != std::string::npos);
}

TEST_CASE("a config or record nested 100,000 levels deep is refused with an error, not a crash") {
  // Catches: a stack overflow in the JSON library's recursive printing or destruction (it segfaulted).
  const auto deep = scratch() / "deep.json";
  {
    std::ofstream out(deep);
    out << std::string(100000, '[') << std::string(100000, ']');
  }
  for (const char* cmd : {"run -q '{}'", "summary '{}'", "resume '{}' --steps 1 -o never.json", "convert '{}' --format csv -o never"}) {
    const Result r = sgmcmc(fmt::format(fmt::runtime(cmd), deep.string()));
    CHECK_MESSAGE(r.code == 1, cmd);
    CHECK_MESSAGE(r.err.find("nested deeper than 256 levels") != std::string::npos, r.err);
  }
  CHECK_FALSE(fs::exists(scratch() / "never.json"));
}

}  // namespace test_cli
