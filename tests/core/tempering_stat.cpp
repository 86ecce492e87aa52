// `sampler.temperature` T through run configs: every sampler samples ∝ exp(−U/T). On N(0, diag(1, 4))
// the tempered law is N(0, T·diag(1, 4)), so E[x_i²]/σ_i² = T; checked within 4 Monte Carlo standard
// errors (ESS-based) for an exact sampler (HMC: the value and the gradient must both be scaled, or the
// Metropolis test pulls the chain back to T = 1) and a stochastic-gradient one (SGHMC with gradient
// noise: T scales the noisy gradient, and SGHMC's own O(h) heating is made small by a small step).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/schedule/temperature.hpp>
#include <sgmcmc/run/runner.hpp>

#include <sgmcmc/modules/diagnostics/testing.hpp>

namespace tempering_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::json;

namespace {

/// E[x_i²]/σ_i² per coordinate over all chains of a run record, with its MCSE.
std::vector<testing::Estimate> scaled_second_moments(const json& record, const Eigen::Vector2d& variance) {
  std::vector<testing::Estimate> out;
  for (int i = 0; i < 2; ++i) {
    std::vector<Eigen::VectorXd> chains;
    for (const auto& ch : record["chains"]) {
      Eigen::VectorXd c(ch["samples"].size());
      for (Eigen::Index k = 0; k < c.size(); ++k) c[k] = std::pow(ch["samples"][k][i].get<double>(), 2) / variance[i];
      chains.push_back(c);
    }
    out.push_back(testing::estimate(chains));
  }
  return out;
}

json config(json sampler, double temperature, std::uint64_t steps, std::uint64_t thin) {
  sampler["temperature"] = temperature;
  return {{"sampler", std::move(sampler)},
          {"target", {{"name", "gaussian"}, {"mean", {0.0, 0.0}}, {"cov", {{1.0, 0.0}, {0.0, 4.0}}}}},
          {"steps", steps}, {"burn_in", steps / 10}, {"thin", thin}, {"chains", 4}, {"seed", 11}};
}

void check_temperature(const json& record, double expected) {
  REQUIRE(record["status"] == "ok");
  const auto m = scaled_second_moments(record, Eigen::Vector2d(1.0, 4.0));
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    CAPTURE(m[i].mean);
    CAPTURE(m[i].se);
    CAPTURE(m[i].ess);
    CHECK(m[i].ess > 1000);
    CHECK(std::abs(m[i].mean - expected) < 4 * m[i].se);
  }
}

}  // namespace

TEST_CASE("temperature: HMC samples N(0, T·Σ) at T = 0.5 and T = 3") {
  for (double t : {0.5, 3.0}) {
    CAPTURE(t);
    check_temperature(run::run(config({{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 8}}, t, 22000, 2), {.threads = 2}), t);
  }
}

TEST_CASE("temperature: SGHMC with gradient noise samples N(0, T·Σ) at T = 2") {
  json c = config({{"name", "sghmc"}, {"step_size", 0.02}, {"friction", 2.0}}, 2.0, 220000, 20);
  c["target"]["grad_noise"] = 0.5;
  check_temperature(run::run(c, {.threads = 2}), 2.0);
}

TEST_CASE("temperature schedule: HMC follows a geometric annealing from T = 8 to 1, then samples T = 1") {
  // HMC with trajectories of length 2.4 (near a half-period of N(0, 1): draws nearly independent)
  // samples each step's law exactly, and T_t falls by a factor 8^(1/K) ≈ 1 + 1e-4 per step, so the
  // draw after step t is, to within that lag, from N(0, T_t Σ): E[x_i² / (σ_i² T_t)] = 1 during the
  // annealing and E[x_i²/σ_i²] = 1 after it. Catches: the schedule not applied (the annealing draws
  // would give ≈ 1/T_t, far below 1), applied late or reversed, the value left unscaled (the
  // Metropolis test would pull the chain to T = 1), the final temperature not held.
  const std::uint64_t k = 20000;
  json c = config({{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 8}}, 1.0, 2 * k, 1);
  c["sampler"]["temperature"] = {{"schedule", "geometric"}, {"from", 8.0}, {"steps", k}};
  c["burn_in"] = 0;
  const json record = run::run(c, {.threads = 2});
  REQUIRE(record["status"] == "ok");
  const auto anneal = schedule::Temperature::geometric(8.0, 1.0, k);
  const Eigen::Vector2d variance(1.0, 4.0);
  for (int i = 0; i < 2; ++i) {
    std::vector<Eigen::VectorXd> during, after;
    for (const auto& ch : record["chains"]) {
      const auto& s = ch["samples"];
      Eigen::VectorXd d(static_cast<Eigen::Index>(k)), a(static_cast<Eigen::Index>(k));
      for (std::uint64_t n = 0; n < 2 * k; ++n) {  // draw n follows step n (0-based), run at T_n
        const double y = std::pow(s[n][i].get<double>(), 2) / variance[i];
        if (n < k) d[static_cast<Eigen::Index>(n)] = y / anneal.at(n);
        else a[static_cast<Eigen::Index>(n - k)] = y;
      }
      during.push_back(d), after.push_back(a);
    }
    for (const auto& [name, chains] : {std::pair{std::string("during"), during}, std::pair{std::string("after"), after}}) {
      const auto e = testing::estimate(chains);
      MESSAGE("coordinate ", i, " ", name, " the annealing: E[x²/(σ²T)] = ", e.mean, " ± ", e.se, " (ESS ", e.ess, ")");
      CAPTURE(i);
      CAPTURE(name);
      CAPTURE(e.mean);
      CAPTURE(e.se);
      CHECK(e.ess > 1000);
      CHECK(std::abs(e.mean - 1) < 4 * e.se);
    }
  }
}

}  // namespace tempering_stat
