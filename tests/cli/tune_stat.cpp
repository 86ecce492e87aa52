// Untuned configs through the command line (docs/tuning.md): a config without a step size is tuned, and
// the tuned run samples its target within Monte Carlo error; the record keeps every arm and the choice,
// a resume continues with the chosen settings and never tunes again, `sgmcmc tune -o` writes a config
// that runs the same draws, the choice is the same on 1 and 2 threads, and every output says the step
// size was tuned. Each run takes well under a second.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tune_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_tune_scratch");
  return dir;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The SGHMC paper's ρ = 0.9 Gaussian (the embedded demo's target) with N(0, I) gradient noise and its
/// matching noise estimate: no step size, no friction.
json untuned_sghmc(std::uint64_t seed) {
  return {{"sampler", {{"name", "sghmc"}, {"noise_estimate", 1.0}}},
          {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", {{1, 0.9}, {0.9, 1}}}, {"grad_noise", 1.0}}},
          {"steps", 100000}, {"burn_in", 1000}, {"thin", 5}, {"chains", 2}, {"seed", seed}};
}

json summary_of(const fs::path& record) {
  const Result r = run_cli(scratch(), fmt::format("summary '{}' --json", record.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return json::parse(r.out);
}

/// Each chain of a run tuned by dual averaging accepts about the target 0.8 (Stan's runs land within
/// ±0.1 of it); a wrong sign in the adaptation gives 0 or 1.
void check_adapted_to_target_acceptance(const fs::path& rec) {
  const json record = read_json(rec);
  CHECK(record["config"]["tune"]["method"] == "dual_averaging");
  for (const json& ch : record["chains"]) {
    CAPTURE(ch["diagnostics"].dump());
    CHECK(ch["diagnostics"]["mean_accept_stat"].get<double>() == doctest::Approx(0.8).epsilon(0.125));
  }
}

}  // namespace

TEST_CASE("a config without a step size is tuned, and the tuned run samples its target") {
  const fs::path rec = run_to(scratch(), "sghmc", untuned_sghmc(7), "json,csv");
  const json record = read_json(rec);
  const json& tune = record["config"]["tune"];
  REQUIRE(tune.is_object());
  CHECK(tune["method"] == "stein");
  CHECK(tune["arms"].size() == 14);  // 7 step sizes × 2 frictions
  const std::size_t arm = tune["chosen"]["arm"].get<std::size_t>();
  // The chosen settings are the run's, in the sections a resume reads.
  CHECK(record["config"]["sampler"]["step_size"] == tune["chosen"]["step_size"]);
  CHECK(tune["chosen"]["step_size"].get<double>() <= tune["arms"][arm]["step_size"].get<double>());  // less a margin, if any
  CHECK(record["config"]["sampler"]["friction"] == tune["arms"][arm]["friction"]);
  CHECK(tune["gradient_evaluations"].get<double>() <= tune["budget"].get<double>());
  CHECK(record["timings"]["phases"][0]["tuning_seconds"].get<double>() > 0);
  // The target's moments: x ~ N(0, Σ), Σ = [[1, .9], [.9, 1]]. Each mean within 4 MCSEs of 0; each sd
  // within 4 of its standard errors (sd/√(2 ESS) for a Gaussian) of 1, plus the O(h²) bias SGHMC's
  // splitting leaves at the largest step of the grid the tuner would accept (h√λ_max ≤ 0.32: 3 %).
  // Catches a tuner that picks a step too large to be accurate, or settings the run does not use.
  const json s = summary_of(rec);
  for (const json& row : s["summary"]) {
    CAPTURE(row.dump());
    CHECK(std::abs(row["mean"].get<double>()) < 4 * row["mcse_mean"].get<double>());
    const double se = row["sd"].get<double>() / std::sqrt(2 * row["ess_bulk"].get<double>());
    CHECK(std::abs(row["sd"].get<double>() - 1) < 4 * se + 0.03);
  }
  CHECK(s["tuning"]["step_size"] == record["config"]["sampler"]["step_size"]);
  const Result text = run_cli(scratch(), fmt::format("summary '{}'", rec.string()));
  CHECK(has(text.out, "tuned (stein, 14 arms"));
  // Stan CSV: the adaptation engaged, the choice in the header, the step size in the adaptation block.
  const std::string csv = slurp(scratch() / "sghmc_1.csv");
  CHECK(has(csv, "#       engaged = 1"));
  CHECK(has(csv, "# sgmcmc_tuning = {\"chosen\""));
}

TEST_CASE("a tuned run resumes with its choice and never tunes again; `tune -o` writes a config that runs the same draws") {
  json c = untuned_sghmc(11);
  c["steps"] = 20000;
  const fs::path rec = run_to(scratch(), "first", c);
  const json first = read_json(rec);
  const Result resumed = run_cli(scratch(), fmt::format("resume '{}' --steps 5000 -o '{}' -q", rec.string(), (scratch() / "resumed.json").string()));
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  const json second = read_json(scratch() / "resumed.json");
  CHECK(second["config"] == first["config"]);  // the same settings and the same tune record
  CHECK_FALSE(second["timings"]["phases"][1].contains("tuning_seconds"));
  // A record whose step size was taken out is refused, not resumed with some placeholder or tuned anew.
  json edited = first;
  edited["config"]["sampler"].erase("step_size");
  const Result refused = run_cli(scratch(), fmt::format("resume '{}' --steps 10 --allow-changed -o '{}' -q",
                                                        write_json(scratch(), "edited.json", edited).string(), (scratch() / "edited_out.json").string()));
  CHECK(refused.code != 0);
  CHECK(has(refused.err, "/config/sampler/step_size: required in a run record"));
  // The tuning alone: its table, and the tuned config, which runs the same draws without tuning.
  const Result t = run_cli(scratch(), fmt::format("tune '{}' -o '{}' --svg '{}'", write_json(scratch(), "c.json", c).string(),
                                                 (scratch() / "tuned.json").string(), (scratch() / "tune.svg").string()));
  REQUIRE_MESSAGE(t.code == 0, t.err);
  CHECK(has(t.out, "<- chosen"));
  CHECK(has(slurp(scratch() / "tune.svg"), "<polyline"));
  const json tuned = read_json(scratch() / "tuned.json");
  CHECK(tuned["tune"] == first["config"]["tune"]);
  const json again = read_json(run_to(scratch(), "again", tuned));
  CHECK(again["chains"][0]["samples"] == first["chains"][0]["samples"]);
  CHECK_FALSE(again["timings"]["phases"][0].contains("tuning_seconds"));
}

TEST_CASE("`tune -o` keeps a config's relative data paths: the tuned config runs from where the config ran") {
  // A config's relative paths are the working directory's; rebased to the output's folder (as a
  // record's are), the tuned config named a file that is not there.
  const fs::path dir = scratch() / "relative";
  fs::create_directories(dir / "out");
  {
    std::ofstream csv(dir / "d.csv");
    for (int i = 0; i < 200; ++i) csv << fmt::format("{},{},{}\n", (i % 17) / 8.0 - 1, (i % 11) / 5.0 - 1, (i * 7) % 3 == 0 ? 1 : 0);
  }
  write_json(dir, "c.json", {{"sampler", {{"name", "sgld"}}}, {"target", {{"name", "logistic"}, {"data", "d.csv"}}},
                             {"steps", 2000}, {"chains", 1}, {"seed", 1}});
  const Result t = run_cli_in(dir, "tune c.json -o out/tuned.json -q");
  REQUIRE_MESSAGE(t.code == 0, t.err);
  CHECK(read_json(dir / "out" / "tuned.json")["target"]["data"] == "d.csv");
  const Result r = run_cli_in(dir, "run out/tuned.json -o out/r.json -q");
  CHECK_MESSAGE(r.code == 0, r.err);
}

TEST_CASE("the same seed makes the same choice on 1 and 2 threads") {
  json c = untuned_sghmc(3);
  c["steps"] = 8000;
  const fs::path cfg = write_json(scratch(), "threads.json", c);
  std::string tables[2];
  for (int threads : {1, 2}) {
    const Result t = run_cli(scratch(), fmt::format("tune '{}' --threads {}", cfg.string(), threads));
    REQUIRE_MESSAGE(t.code == 0, t.err);
    tables[threads - 1] = t.out.substr(0, t.out.rfind("tuned in"));  // all but the wall time
  }
  CHECK(tables[0] == tables[1]);
}

TEST_CASE("dual averaging tunes HMC to its target acceptance") {
  // A 10-d Gaussian with variances 1 … 10.
  json cov = json::array();
  for (int i = 0; i < 10; ++i) {
    json row = json::array();
    for (int j = 0; j < 10; ++j) row.push_back(i == j ? 1.0 + i : 0.0);
    cov.push_back(row);
  }
  const json c = {{"sampler", {{"name", "hmc"}, {"leapfrog_steps", 10}}},
                  {"target", {{"name", "gaussian"}, {"mean", json::array({0, 0, 0, 0, 0, 0, 0, 0, 0, 0})}, {"cov", cov}}},
                  {"steps", 2000}, {"burn_in", 200}, {"chains", 2}, {"seed", 5}};
  check_adapted_to_target_acceptance(run_to(scratch(), "hmc", c));
}

TEST_CASE("a run tuned by dual averaging starts each chain where its adaptation ended") {
  // A gaussian glm on 200 rows (y = 1 + 2x + 0.5ε), HMC without a step size. Restarted from its random
  // start instead, a chain of the adapted step could sit rejecting every proposal (mean accept_stat 0:
  // a glm's chain did for 20,000 steps); from the adaptation's end every chain accepts about 0.8. The
  // points are the config's init, so the tuned config runs the same draws.
  const fs::path dir = scratch() / "hmc_glm";
  fs::create_directories(dir);
  {
    std::ofstream csv(dir / "d.csv");
    csv << "x,y\n";
    for (int i = 0; i < 200; ++i) {
      const double x = std::sin(1.7 * i) * 1.6, e = std::cos(2.3 * i * i + 0.4) * 1.7;
      csv << fmt::format("{},{}\n", x, 1 + 2 * x + 0.5 * e);
    }
  }
  const json c = {{"sampler", {{"name", "hmc"}}},
                  {"target", {{"name", "glm"}, {"data", (dir / "d.csv").string()}, {"response", "y"}, {"family", "gaussian"},
                              {"prior", {{"b", "normal(0, 10)"}, {"sigma", "cauchy(0, 2.5)"}}}}},
                  {"steps", 3000}, {"burn_in", 500}, {"chains", 4}, {"seed", 2}};
  const fs::path rec = run_to(dir, "hmc", c);
  check_adapted_to_target_acceptance(rec);
  const json record = read_json(rec);
  REQUIRE(record["config"]["init"].size() == 4);
  const fs::path cfg = write_json(dir, "c.json", c);
  const Result t = run_cli(dir, fmt::format("tune '{}' -o '{}' -q", cfg.string(), (dir / "tuned.json").string()));
  REQUIRE_MESSAGE(t.code == 0, t.err);
  const fs::path again = run_to(dir, "again", read_json(dir / "tuned.json"));
  CHECK(read_json(again)["chains"][0]["samples"] == record["chains"][0]["samples"]);
}

TEST_CASE("the SG tuner's arms and the run start at the control variate's centre: a glm's sds are the posterior's") {
  // A gaussian glm on N = 2000 rows (y = 1 + 2x + 0.5ε, x and ε standard normal), control variates, SGHMC
  // without step size, friction or batch size, 4000 steps. From the glm's own start (the constant
  // model's fit, some 180 posterior sds from b_x) short arms measured how fast each setting travelled,
  // the fastest were too hot, and the run's sds came out 13–25 % too wide; from the centre they are the
  // posterior's within 4 of their standard errors (sd/√(2 ESS)). The reference is the flat-prior
  // posterior's closed form, which the weak priors (normal(0, 10), cauchy(0, 2.5)) move by far less than
  // 0.1 %: b ~ t_{N−2}(β̂, s²(XᵀX)⁻¹) with s² = RSS/(N − 2), σ's sd √(RSS/N)/√(2N) to O(1/N).
  const fs::path dir = scratch() / "glm_centre";
  fs::create_directories(dir);
  const int n = 2000;
  std::vector<double> xs(n), ys(n);
  {
    std::uint64_t state = 12345;
    const auto uniform = [&] {  // a 64-bit LCG's top 53 bits: deterministic, independent of the library
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
    };
    const auto normal = [&] { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * 3.141592653589793 * uniform()); };
    std::ofstream csv(dir / "d.csv");
    csv << "x,y\n";
    for (int i = 0; i < n; ++i) {
      xs[i] = normal();
      ys[i] = 1 + 2 * xs[i] + 0.5 * normal();
      csv << fmt::format("{},{}\n", xs[i], ys[i]);
    }
  }
  // Least squares with X = [1, x]: (XᵀX)⁻¹, β̂ and RSS.
  double sx = 0, sxx = 0, sy = 0, sxy = 0;
  for (int i = 0; i < n; ++i) sx += xs[i], sxx += xs[i] * xs[i], sy += ys[i], sxy += xs[i] * ys[i];
  const double det = n * sxx - sx * sx, inv00 = sxx / det, inv11 = n / det;
  const double b1 = (n * sxy - sx * sy) / det, b0 = (sy - b1 * sx) / n;
  double rss = 0;
  for (int i = 0; i < n; ++i) rss += (ys[i] - b0 - b1 * xs[i]) * (ys[i] - b0 - b1 * xs[i]);
  const double s2 = rss / (n - 2), t_scale = std::sqrt((n - 2.0) / (n - 4.0));
  const double reference[3] = {std::sqrt(s2 * inv00) * t_scale, std::sqrt(s2 * inv11) * t_scale, std::sqrt(rss / n) / std::sqrt(2.0 * n)};

  const json target = {{"name", "glm"}, {"data", (dir / "d.csv").string()}, {"response", "y"}, {"family", "gaussian"},
                       {"estimator", "control_variate"}, {"prior", {{"b", "normal(0, 10)"}, {"sigma", "cauchy(0, 2.5)"}}}};
  const fs::path sg = run_to(dir, "sg", {{"sampler", {{"name", "sghmc"}}}, {"target", target}, {"steps", 4000}, {"burn_in", 1000},
                                         {"chains", 2}, {"seed", 2}});
  const json record = read_json(sg);
  CHECK(record["config"]["tune"]["start"] == "centre");
  CHECK(record["config"]["init"].is_array());
  const json rows = summary_of(sg)["summary"];
  REQUIRE(rows.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(rows[k].dump());
    CAPTURE(reference[k]);
    const double sd = rows[k]["sd"].get<double>(), se = sd / std::sqrt(2 * rows[k]["ess_bulk"].get<double>());
    CHECK(std::abs(sd - reference[k]) < 4 * se);
  }
}

TEST_CASE("dual averaging tunes AMAGOLD's window to its target acceptance") {
  // One AMAGOLD step is a window of mh_every SG steps ending in a Metropolis–Hastings test: dual
  // averaging adapts h so that the test accepts about 0.8 of the windows.
  const json c = {{"sampler", {{"name", "amagold"}, {"friction", 1.0}, {"mh_every", 10}}},
                  {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", {{1, 0.9}, {0.9, 1}}}, {"grad_noise", 1.0}}},
                  {"steps", 2000}, {"burn_in", 200}, {"chains", 2}, {"seed", 9}};
  check_adapted_to_target_acceptance(run_to(scratch(), "amagold", c));
}

TEST_CASE("a data target's batch size is tuned with the step size, and the run uses the choice") {
  const json c = {{"sampler", {{"name", "sgld"}}},
                  {"target", {{"name", "logistic"}, {"data", {{"examples", 5000}, {"features", 3}, {"seed", 2}}}, {"estimator", "control_variate"}}},
                  {"steps", 4000}, {"burn_in", 500}, {"chains", 1}, {"seed", 1}, {"init", "mode"}};
  const json record = read_json(run_to(scratch(), "logistic", c));
  const json& tune = record["config"]["tune"];
  CHECK(tune["grid"]["batch_size"] == json::array({10, 16, 50}));  // N/1000 (at least 10), N/316, N/100
  CHECK(tune["arms"].size() == 21);
  CHECK(record["config"]["target"]["batch_size"] == tune["chosen"]["batch_size"]);
  // Given a batch size, the tuner keeps it, and a grid of them is an error naming the field.
  json fixed = c;
  fixed["target"]["batch_size"] = 25;
  fixed["tune"] = {{"grid", {{"batch_size", {10, 20}}}}};
  const Result r = run_cli(scratch(), fmt::format("run '{}' -o '{}'", write_json(scratch(), "fixed.json", fixed).string(),
                                                  (scratch() / "fixed_out.json").string()));
  CHECK(r.code != 0);
  CHECK(has(r.err, "/tune/grid/batch_size"));
}

}  // namespace tune_stat
