// The tuner's parts (modules/tuning/, run/tune.hpp; docs/tuning.md): successive halving's rounds and
// who goes on, dual averaging's fixed point, the U-statistic KSD's value, and which configs leave what
// to the tuner — or are refused, with the JSON path to change. Runs of the tuner are in
// tests/cli/tune_stat.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/diagnostics/stein.hpp>
#include <sgmcmc/modules/diagnostics/stein_sphere.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/tuning/dual_averaging.hpp>
#include <sgmcmc/modules/tuning/successive_halving.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/tune.hpp>

using namespace sgmcmc;
using run::json;

namespace {

std::string parse_error(const json& c) {
  try {
    (void)run::parse_config(c, run::shipped_registry());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

json gaussian_with(json sampler) {
  return {{"sampler", std::move(sampler)}, {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}}, {"steps", 1000}};
}

}  // namespace

TEST_CASE("successive halving: rounds of ⌈n/η⌉ survivors, equal shares of each round's budget") {
  const tuning::HalvingPlan plan{21, 3, 6300};
  CHECK(plan.rounds() == 3);
  CHECK(plan.alive_in(0) == 21);
  CHECK(plan.alive_in(1) == 7);
  CHECK(plan.alive_in(2) == 3);
  CHECK(plan.per_arm(0) == doctest::Approx(100));   // 6300 / (3 rounds × 21 arms)
  CHECK(plan.per_arm(2) == doctest::Approx(700));
  CHECK(tuning::HalvingPlan{1, 3, 10}.rounds() == 1);  // one arm still plays a round
  CHECK(tuning::HalvingPlan{4, 2, 10}.rounds() == 2);
}

TEST_CASE("successive halving: the best third goes on, ties to the lower index, a failed arm never") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> score = {3, 1, inf, 1, 0.5, 7};
  CHECK(tuning::survivors({0, 1, 2, 3, 4, 5}, score, 3) == std::vector<std::size_t>{1, 4});
  CHECK(tuning::survivors({0, 1, 2, 3}, score, 3) == std::vector<std::size_t>{1, 3});  // tie: both kept (⌈4/3⌉ = 2)
  CHECK(tuning::survivors({0, 1, 3}, score, 3) == std::vector<std::size_t>{1});        // tie broken by index
  CHECK(tuning::survivors({2}, score, 3).empty());

  // Each arm's score is its index's distance from 11: the halving must end at arm 11, having played
  // every arm in the first round and fewer after.
  std::vector<std::size_t> played;
  const std::size_t best = tuning::successive_halving(
      tuning::HalvingPlan{27, 3, 27},
      [&](std::size_t, const std::vector<std::size_t>& alive, double, std::vector<double>& s) {
        played.push_back(alive.size());
        for (std::size_t a : alive) s[a] = std::abs(static_cast<double>(a) - 11);
      },
      [](std::size_t, const std::vector<std::size_t>&, const std::vector<double>&) {});
  CHECK(best == 11);
  CHECK(played == std::vector<std::size_t>{27, 9, 3});
  // Every arm failing: no choice (the caller says why).
  const std::size_t none = tuning::successive_halving(
      tuning::HalvingPlan{5, 3, 5}, [](std::size_t, const std::vector<std::size_t>&, double, std::vector<double>&) {},
      [](std::size_t, const std::vector<std::size_t>&, const std::vector<double>&) {});
  CHECK(none == 5);
}

TEST_CASE("dual averaging converges to the step whose acceptance is the target") {
  // A deterministic acceptance a(h) = exp(−h): the fixed point is h* = −log δ. A sign error in the
  // update, or averaging the wrong iterate, drives h away from it.
  for (const double delta : {0.6, 0.8, 0.95}) {
    tuning::DualAveraging da = tuning::DualAveraging::starting_at(1.0, delta);
    for (int t = 0; t < 4000; ++t) da.update(std::exp(-da.step()));
    CHECK(da.adapted() == doctest::Approx(-std::log(delta)).epsilon(0.02));
  }
  // A divergence (NaN) counts as acceptance 0: repeated, the step shrinks (after Stan's first steps up,
  // μ = log 10h₀).
  tuning::DualAveraging da = tuning::DualAveraging::starting_at(1.0);
  for (int t = 0; t < 20; ++t) da.update(std::numeric_limits<double>::quiet_NaN());
  CHECK(da.step() < 0.01);
  CHECK_THROWS_WITH_AS(tuning::DualAveraging::starting_at(0.0), doctest::Contains("positive"), Error);
}

TEST_CASE("the U-statistic KSD² is the V-statistic without its diagonal") {
  Eigen::MatrixXd x(2, 3), s(2, 3);
  x << 0.1, -0.4, 1.2, 0.3, 0.8, -0.5;
  s << -0.1, 0.5, -1.0, -0.2, -0.9, 0.4;
  double off = 0, diag = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      (i == j ? diag : off) += diagnostics::stein_kernel(x.col(i), s.col(i), x.col(j), s.col(j));
  CHECK(diagnostics::kernel_stein_discrepancy_squared_u(x, s) == doctest::Approx(off / 6));
  const double v = diagnostics::kernel_stein_discrepancy(x, s);
  CHECK(v * v == doctest::Approx((off + diag) / 9));
}

TEST_CASE("a config leaves the step size to the tuner by leaving it out or saying \"auto\"") {
  const auto& registry = run::shipped_registry();
  {
    const run::RunConfig c = run::parse_config(gaussian_with({{"name", "sghmc"}}), registry);
    REQUIRE(c.tune.has_value());
    CHECK(c.tune->facts.method == run::TuningFacts::Method::stein);
    CHECK(c.tune->friction);     // SGHMC's friction, left out, is chosen too
    CHECK_FALSE(c.tune->batch);  // an analytic target has no batch size
    CHECK_FALSE(c.tune->sampler.contains("step_size"));
  }
  {
    const run::RunConfig c = run::parse_config(gaussian_with({{"name", "sghmc"}, {"step_size", "auto"}, {"friction", 2}}), registry);
    REQUIRE(c.tune.has_value());
    CHECK_FALSE(c.tune->friction);  // given: kept
  }
  CHECK(run::parse_config(gaussian_with({{"name", "hmc"}}), registry).tune->facts.method == run::TuningFacts::Method::dual_averaging);
  CHECK_FALSE(run::parse_config(gaussian_with({{"name", "sgld"}, {"step_size", 0.1}}), registry).tune.has_value());
  // A data target's batch size, left out, is chosen too; given, it is kept.
  json logistic = {{"sampler", {{"name", "sgld"}}}, {"target", {{"name", "logistic"}, {"data", {{"examples", 200}, {"features", 2}, {"seed", 1}}}}}};
  CHECK(run::parse_config(logistic, registry).tune->batch);
  logistic["target"]["batch_size"] = 20;
  CHECK_FALSE(run::parse_config(logistic, registry).tune->batch);
}

TEST_CASE("what the tuner cannot do is refused with the field to change") {
  CHECK(parse_error(gaussian_with({{"name", "recipe"}})).find("/sampler/step_size") != std::string::npos);
  json c = gaussian_with({{"name", "sgld"}, {"step_size", 0.1}});
  c["tune"] = {{"budget", 1000}};
  CHECK(parse_error(c).find("/tune: nothing to tune") != std::string::npos);
  c["sampler"].erase("step_size");
  c["tune"] = {{"budgett", 1000}};
  run::RunConfig parsed = run::parse_config(c, run::shipped_registry());  // the section is read by the tuner
  CHECK_THROWS_WITH_AS(run::tune(parsed, run::shipped_registry(), {.threads = 1}), doctest::Contains("/tune/budgett"), Error);
  c["tune"] = {{"budget", 10}};
  parsed = run::parse_config(c, run::shipped_registry());
  CHECK_THROWS_WITH_AS(run::tune(parsed, run::shipped_registry(), {.threads = 1}), doctest::Contains("/tune/budget"), Error);
  // On a manifold without a Stein operator here (the Stiefel manifold's divergence is not built).
  json stiefel = {{"sampler", {{"name", "sgld"}}}, {"manifold", {{"name", "stiefel"}, {"n", 3}, {"p", 2}}},
                  {"target", {{"name", "matrix_vmf"}, {"F", {{1, 0}, {0, 1}, {0, 0}}}}}};
  parsed = run::parse_config(stiefel, run::shipped_registry());
  CHECK_THROWS_WITH_AS(run::tune(parsed, run::shipped_registry(), {.threads = 1}), doctest::Contains("manifold 'stiefel'"), Error);
}

TEST_CASE("a preconditioner estimated in burn-in is refused; a fixed one is tuned through") {
  CHECK(parse_error(gaussian_with({{"name", "sgld"}, {"preconditioner", "diagonal"}})).find("estimated in burn-in") != std::string::npos);
  CHECK(run::parse_config(gaussian_with({{"name", "sgld"}, {"preconditioner", {{"scale", {1, 2}}}}}), run::shipped_registry()).tune.has_value());
}

TEST_CASE("the tuner says so when every arm diverges, and bounds its memory before it allocates") {
  // Steps of 10⁶ on a unit Gaussian: every arm's chain leaves for infinity.
  json c = gaussian_with({{"name", "sgld"}});
  c["tune"] = {{"grid", {{"step_size", {1e6, 1e7}}}}};
  run::RunConfig parsed = run::parse_config(c, run::shipped_registry());
  CHECK_THROWS_WITH_AS(run::tune(parsed, run::shipped_registry(), {.threads = 1}), doctest::Contains("no arm gave a usable run"), Error);
  // 64 × 2 step sizes... on a 10⁶-dimensional target: refused before anything of that size exists.
  json big = {{"sampler", {{"name", "sgld"}}}, {"manifold", {{"name", "euclidean"}, {"dim", 1000000}}},
              {"target", {{"name", "gaussian"}}}, {"steps", 100}};
  json steps = json::array();
  for (int k = 0; k < 64; ++k) steps.push_back(1e-3 * (k + 1));
  big["tune"] = {{"grid", {{"step_size", steps}}}};
  parsed = run::parse_config(big, run::shipped_registry());
  CHECK_THROWS_WITH_AS(run::tune(parsed, run::shipped_registry(), {.threads = 1}), doctest::Contains("/tune/grid"), Error);
}

TEST_CASE("dual averaging goes on from before a trajectory that overflowed") {
  // Stan's first step h = 1 on a variance of 1e-8, 100 leapfrog steps: the trajectory overflows and its
  // momentum becomes NaN. The next iteration must start from the last finite state; restoring the NaN
  // one failed with "/tune/sampler/v/0: expected a finite number" (a glm at h = 1 did the same).
  json c = {{"sampler", {{"name", "hmc"}, {"leapfrog_steps", 100}}}, {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
            {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", {{1e-8, 0}, {0, 1}}}}}, {"steps", 300}, {"burn_in", 200}};
  run::RunConfig parsed = run::parse_config(c, run::shipped_registry());
  const json record = run::tune(parsed, run::shipped_registry(), {.threads = 1});
  const double h = record["chosen"]["step_size"].get<double>();
  CHECK(h > 1e-5);
  CHECK(h < 1e-3);  // about 1.2e-4: a stable step is below 2/√(1e8) = 2e-4
}

namespace {
/// n exact draws of vMF(e₃, κ) on S² (Wood 1994; on S² the cosine w has a closed-form inverse CDF).
Eigen::MatrixXd vmf_draws(double kappa, int n, random::Stream& rng) {
  Eigen::MatrixXd x(3, n);
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform(), phi = 2 * std::numbers::pi * rng.uniform();
    const double w = 1 + std::log(u + (1 - u) * std::exp(-2 * kappa)) / kappa;
    const double rho = std::sqrt(std::max(0.0, 1 - w * w));
    x.col(i) << rho * std::cos(phi), rho * std::sin(phi), w;
  }
  return x;
}
}  // namespace

TEST_CASE("the sphere's Stein discrepancy has mean 0 under the target and sees a wrong concentration") {
  // Unbiasedness is the Stein identity E_p[A f] = 0 on the sphere: a wrong divergence term (the
  // (d − 1)x of s̃, the projected trace) makes the U-statistic's mean non-zero on exact draws.
  random::Stream rng(17, 0);
  const double kappa = 4;
  Eigen::MatrixXd score(3, 200);
  score.colwise() = Eigen::Vector3d(0, 0, kappa);  // s = −∇U = κμ for U = −κμᵀx
  const auto mean_and_se = [&](double drawn_kappa) {
    std::vector<double> v;
    for (int rep = 0; rep < 20; ++rep) v.push_back(diagnostics::sphere_stein_discrepancy_squared_u(vmf_draws(drawn_kappa, 200, rng), score));
    double m = 0, s2 = 0;
    for (double x : v) m += x / 20;
    for (double x : v) s2 += (x - m) * (x - m) / 19;
    return std::pair{m, std::sqrt(s2 / 20)};
  };
  const auto right = mean_and_se(kappa);
  CHECK(std::abs(right.first) < 4 * right.second);
  const auto wrong = mean_and_se(2 * kappa);  // draws twice as concentrated
  CHECK(wrong.first > 10 * right.second + 4 * wrong.second);
}
