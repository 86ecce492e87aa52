// The diagnostics that say how wrong an SG chain is, through the command line, on chains whose bias is
// known in closed form: `summary --stein` (KSD, configurational temperature) on SGLD, the kinetic
// temperature of SGHMC heated by gradient noise, and `sgmcmc sweep` against an HMC reference.
#include <doctest/doctest.h>

#include "../support/cli.hpp"
#include "sgld_gaussian.hpp"

#include <cmath>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/modules/diagnostics/stein.hpp>

namespace test_cli_sg_diagnostics_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_sg_diagnostics_stat_scratch");
  return dir;
}


json stein_of(const fs::path& record) {
  const Result r = run_cli(scratch(), fmt::format("summary '{}' --stein --json", record.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return json::parse(r.out)["stein"];
}

}  // namespace

TEST_CASE("summary --stein: SGLD's configurational temperature is 1/(1 − h/2), and KSD grows with the step") {
  // SGLD's Euler step on N(0, 1), x ← (1 − h)x + √(2h)ξ, is an AR(1) with stationary variance
  // 1/(1 − h/2): a chain that runs hot by exactly that factor, which T_conf = ⟨xᵀ∇U⟩/d must report
  // (1.333 at h = 0.5, 1.026 at h = 0.05). Tolerance: 4 standard errors of the four chains' average,
  // T·√(2/(n d)) per chain inflated by the draws' lag-1 correlation ρ² of xᵀx (ρ = (1 − h)^thin).
  // Catches a temperature without the 1/d, with the score's sign flipped, or from minibatch scores; a
  // KSD blind to a 33 % too wide sample.
  double ksd[2] = {0, 0};
  int k = 0;
  for (const auto& point : {std::pair{0.5, std::uint64_t{5}}, std::pair{0.05, std::uint64_t{50}}}) {
    const double h = point.first;  // not a structured binding: Clang 14 cannot capture one (CAPTURE)
    const std::uint64_t thin = point.second;
    CAPTURE(h);
    const fs::path cfg = write_json(scratch(), fmt::format("sgld{}.json", k), sgld_gaussian_config(h, thin));
    const fs::path out = scratch() / fmt::format("sgld{}_run.json", k);
    REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), out.string())).code == 0);
    const json stein = stein_of(out);
    REQUIRE(stein["chains"].size() == 4);
    double mean = 0;
    for (const auto& ch : stein["chains"]) {
      CHECK(ch["draws"] == 2000);
      mean += ch["configurational_temperature"].get<double>() / 4;
    }
    const double predicted = 1 / (1 - h / 2);
    const double rho2 = std::pow(1 - h, 2.0 * static_cast<double>(thin));
    const double se = predicted * std::sqrt(2.0 / (2000 * 2) * (1 + rho2) / (1 - rho2)) / 2;
    MESSAGE("h = ", h, ": configurational temperature ", mean, " (predicted ", predicted, ", se ", se, "), pooled KSD ",
            stein["pooled"]["ksd"].get<double>());
    CHECK(std::abs(mean - predicted) <= 4 * se);
    if (h == 0.5) CHECK(mean - 1 > 8 * se);  // the hot chain is seen as hot
    CHECK(stein["kernel"]["name"] == "imq");
    CHECK(stein["pooled"]["ksd_draws"] == 4000);  // 8000 draws pooled, over the bound of 5000: every 2nd of each chain
    ksd[k++] = stein["pooled"]["ksd"].get<double>();
  }
  // 4000 exact draws have a KSD of about 0.04 (tests/diagnostics/test_stein.cpp: 0.039 at d = 3); the
  // h = 0.05 chain sits at that floor, the h = 0.5 chain (sd 15 % too wide) well above it (0.10 here).
  CHECK(ksd[0] > 2 * ksd[1]);

  // The text summary prints the same numbers.
  const Result text = run_cli(scratch(), fmt::format("summary '{}' --stein", (scratch() / "sgld0_run.json").string()));
  CHECK(text.code == 0);
  CHECK(text.out.find("Stein diagnostics (full-data scores; IMQ kernel c = 1, beta = -0.5)") != std::string::npos);
  CHECK(text.out.find("configurational temperature 1.3") != std::string::npos);
}

TEST_CASE("kinetic temperature: SGHMC heated by gradient noise runs at 1 + hV/(2C), and 1 once V̂ = V is subtracted") {
  // Per step the velocity gains 2Ch of injected noise and h²V from the gradient noise, and friction
  // removes 2hC·E[v²]: E[vᵀv]/m = 1 + hV/(2C) (docs/math.md §9) — 1.1 at h = 0.05, C = 1, V = 4. With the
  // noise estimate V̂ = V the sampler injects 2Ch − h²V̂ and the balance is back at 1. Measured against
  // the same run without gradient noise, which carries the same discretisation error. Tolerance: 4
  // standard errors, vᵀv/m having sd T·√(2/m) per draw, the draws 50 steps (2.5 friction times) apart.
  // Catches a kinetic temperature over the ambient instead of the momentum's dimension, a missing
  // mean (a sum), or noise correction that is not applied.
  const auto config = [](double sigma, double v_hat) {
    return json{{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}, {"noise_estimate", v_hat}}},
                {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", 1}, {"grad_noise", sigma}}},
                {"steps", 1000 + 4000 * 50}, {"burn_in", 1000}, {"thin", 50}, {"chains", 4}, {"seed", 23}};
  };
  const auto temperature = [&](double sigma, double v_hat, const std::string& name) {
    const fs::path cfg = write_json(scratch(), name + ".json", config(sigma, v_hat)), out = scratch() / (name + "_run.json");
    REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), out.string())).code == 0);
    const json r = read_json(out);
    double mean = 0;
    for (const auto& ch : r["chains"]) mean += ch["diagnostics"]["kinetic_temperature"].get<double>() / 4;
    return mean;
  };
  const double cold = temperature(0, 0, "noiseless"), hot = temperature(2, 0, "hot"), corrected = temperature(2, 4, "corrected");
  const double se_one = std::sqrt(2.0 / 2 / (4 * 4000));  // T = 1, m = 2, 16000 draws
  MESSAGE("kinetic temperature: no gradient noise ", cold, ", V = 4 uncorrected ", hot, " (predicted +0.1), corrected ", corrected);
  CHECK(std::abs(cold - 1) <= 4 * se_one + 0.05 * 0.05);  // ABOBA's own error is O(h²)
  CHECK(std::abs(hot - cold - 0.05 * 4 / 2) <= 4 * std::sqrt(se_one * se_one * (1 + 1.1 * 1.1)));
  CHECK(std::abs(corrected - cold) <= 4 * std::sqrt(2.0) * se_one);

  // On the sphere S² the velocity is tangent: m = 2, not the 3 ambient coordinates.
  const json sphere = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"friction", 1.0}}},
                       {"manifold", {{"name", "sphere"}, {"n", 3}}},
                       {"target", {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}},
                       {"steps", 1000 + 4000 * 50}, {"burn_in", 1000}, {"thin", 50}, {"chains", 4}, {"seed", 29}};
  const fs::path cfg = write_json(scratch(), "sphere.json", sphere), out = scratch() / "sphere_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), out.string())).code == 0);
  const json record = read_json(out);
  double on_sphere = 0;
  for (const auto& ch : record["chains"]) on_sphere += ch["diagnostics"]["kinetic_temperature"].get<double>() / 4;
  MESSAGE("kinetic temperature on S²: ", on_sphere);
  CHECK(std::abs(on_sphere - 1) <= 4 * se_one + 0.05 * 0.05);
}

TEST_CASE("sweep: a grid scored against a reference from Stan CSV or a run record, as JSON and a plot") {
  // The reference: a long exact HMC run on N(0, I₂), written as a run record and as Stan CSV. The grid:
  // SGLD and SGHMC at two step sizes. SGLD's sd ratio is 1/√(1 − h/2) per coordinate (the Euler
  // scheme's variance inflation, as above): 1.145 at h = 0.5, 1.0127 at h = 0.05, checked within 4
  // standard errors of the ratio (√(1/(2·ESS)) of each side). Catches z or sd ratios computed against
  // the wrong reference column (the CSV's lp__ or stats taken as parameters), points in the wrong
  // order, a grid that silently drops a point, a plot without its lines; with the reference's wall
  // time, a fraction of it not taken from the point's own seconds, or a plot in seconds without it.
  const json hmc = {{"sampler", {{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 8}}},
                    {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                    {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", 1}}},
                    {"steps", 20500}, {"burn_in", 500}, {"chains", 4}, {"seed", 31}};
  const fs::path hmc_cfg = write_json(scratch(), "hmc.json", hmc), ref = scratch() / "ref.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}' --format json,csv", hmc_cfg.string(), ref.string())).code == 0);
  json grid = sgld_gaussian_config(0.5, 5);
  grid["sweep"] = {{"samplers", json::array({{{"name", "sgld"}}, {{"name", "sghmc"}, {"friction", 2}}})}, {"step_sizes", {0.05, 0.5}}};
  grid["steps"] = 1000 + 2000 * 20, grid["thin"] = 20;
  const fs::path cfg = write_json(scratch(), "sweep.json", grid), out = scratch() / "sweep_out.json", svg = scratch() / "sweep.svg";
  for (const std::string& reference : {ref.string(), fmt::format("{0}_1.csv,{0}_2.csv,{0}_3.csv,{0}_4.csv", (scratch() / "ref").string())}) {
    CAPTURE(reference);
    const bool timed = reference.ends_with(".csv");  // the second pass: the reference's seconds, a plot against time
    const Result r = run_cli(scratch(), fmt::format("sweep '{}' --reference '{}' -o '{}' --svg '{}'{}", cfg.string(), reference, out.string(),
                                                    svg.string(), timed ? " --reference-seconds 250 --plot-x seconds --plot-y max_sd_error" : ""));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const json s = read_json(out);
    CHECK(s["reference"]["draws"] == 80000);
    REQUIRE(s["points"].size() == 4);
    CHECK(s["points"][0]["sampler"] == "sgld");
    CHECK(s["points"][0]["step_size"] == 0.05);
    CHECK(s["points"][3]["sampler"] == "sghmc");
    const double ref_ess = 80000 / 2.0;  // HMC at this step: draws nearly independent (antithetic at best); a floor
    for (const json& p : s["points"]) {
      CAPTURE(p.dump());
      REQUIRE(p["status"] == "ok");
      CHECK(p["gradient_evals"].get<double>() > 0);
      CHECK(p["ksd"].is_number());
      if (timed) {
        CHECK(p["fraction_of_reference"].get<double>() ==
              doctest::Approx((p["setup_seconds"].get<double>() + p["sampling_seconds"].get<double>()) / 250).epsilon(1e-12));
      } else {
        CHECK_FALSE(p.contains("fraction_of_reference"));
      }
      if (p["sampler"] != "sgld") continue;
      const double h = p["step_size"].get<double>(), predicted = 1 / std::sqrt(1 - h / 2);
      const double se = predicted * std::sqrt(0.5 / p["min_ess_bulk"].get<double>() + 0.5 / ref_ess);
      for (const auto& ratio : p["sd_ratio"]) CHECK(std::abs(ratio.get<double>() - predicted) <= 4 * se);
    }
    const std::string plot = slurp(svg);
    CHECK(plot.starts_with("<svg"));
    CHECK(plot.find(">sgld</text>") != std::string::npos);
    CHECK(plot.find(">sghmc</text>") != std::string::npos);
    CHECK(plot.find("<polyline") != std::string::npos);
    CHECK((plot.find("reference: 250 s") != std::string::npos) == timed);
    CHECK((plot.find(">wall seconds (set-up and sampling)</text>") != std::string::npos) == timed);
    CHECK((plot.find(">max |sd ratio − 1| against the reference</text>") != std::string::npos) == timed);
    CHECK((plot.find(">step size</text>") != std::string::npos) == !timed);  // the default x axis
    CHECK(s["reference"].contains("seconds") == timed);
  }
  const Result bad_axis = run_cli(scratch(), fmt::format("sweep '{}' --reference '{}' -o '{}' --plot-x steps", cfg.string(), ref.string(), out.string()));
  CHECK(bad_axis.code != 0);
  CHECK(bad_axis.err.find("--plot-x") != std::string::npos);
  // ksd_draws bounds the draws scored for the KSD (each a full-data gradient) and 0 leaves it out; the
  // moments still use every draw. Catches the bound thinning the draws the z and sd ratios are made of.
  double full_max_z = -1;
  for (const int k : {-1, 0, 50}) {  // -1: every draw scored (the default)
    json one = grid;
    if (k >= 0) one["sweep"]["ksd_draws"] = k;
    const fs::path one_cfg = write_json(scratch(), "sweep_ksd.json", one);
    const Result r = run_cli(scratch(), fmt::format("sweep '{}' --reference '{}' -o '{}'", one_cfg.string(), ref.string(), out.string()));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const json p = read_json(out)["points"][0];
    if (k < 0) full_max_z = p["max_z"].get<double>();
    CHECK(p["max_z"].get<double>() == full_max_z);
    CHECK(p["ksd"].is_number() == (k != 0));
    CHECK(p.contains("ksd_unavailable") == (k == 0));
  }
  // A bad grid is an error naming the field, before anything runs.
  grid["sweep"]["step_sizes"] = json::array();
  write_json(scratch(), "bad_sweep.json", grid);
  const Result bad = run_cli(scratch(), fmt::format("sweep '{}' --reference '{}' -o '{}'", (scratch() / "bad_sweep.json").string(),
                                                    ref.string(), out.string()));
  CHECK(bad.code == 1);
  CHECK(bad.err.find("/sweep/step_sizes: expected a non-empty list of positive numbers") != std::string::npos);
}

}  // namespace test_cli_sg_diagnostics_stat
