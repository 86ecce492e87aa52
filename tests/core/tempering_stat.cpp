// `sampler.temperature` T through run configs: every sampler samples ∝ exp(−U/T). On N(0, diag(1, 4))
// the tempered law is N(0, T·diag(1, 4)), so E[x_i²]/σ_i² = T; checked within 4 Monte Carlo standard
// errors (ESS-based) for an exact sampler (HMC: the value and the gradient must both be scaled, or the
// Metropolis test pulls the chain back to T = 1) and a stochastic-gradient one (SGHMC with gradient
// noise: T scales the noisy gradient, and SGHMC's own O(h) heating is made small by a small step).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/run/runner.hpp>

#include "../support/statistics.hpp"

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
