// The default checks of a chain (driver/check.hpp, issue #39) on the silently wrong runs the issue found
// — each must be flagged — and on correct runs of the same samplers, which must not be. Fixed seeds; the
// checks' thresholds are the library's defaults (|T − 1| > 4 se and > 0.1), not chosen for these runs.
// The exact values the wrong runs give are derived below, so each case says how far off it is. Each case
// prints what it measured (docs/diagnostics.md's numbers: build/tests/test_core_stat -tc='*flagged*').
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/check.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/product.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>

namespace checks_stat {  // this file's names: its group compiles as one translation unit

using namespace sgmcmc;
using diagnostics::CheckKind;
using Eigen::VectorXd;

template <class S, class P>
diagnostics::ChainCheck run_and_check(S sampler, P potential, VectorXd x0, std::uint64_t steps, std::uint64_t burn_in,
                                      std::uint64_t seed = 7) {
  Chain chain(std::move(sampler), std::move(potential), std::move(x0), random::Stream(seed, 0));
  Draws draws;
  const ChainStatus status = chain.advance(steps, Retention{burn_in, 1}, draws);
  INFO(status.error);
  REQUIRE(status.ok());
  MESSAGE("mean of x[0] over the kept draws: " << draws.matrix().col(0).mean());  // the torus's E cos θ₁
  return check(chain, draws);
}

// Two circles (a torus in R⁴) with U = −κ(x₀ + x₂): a von Mises(κ) angle on each circle.
struct TorusVonMises {
  double kappa = 1.0;
  void exact_gradient(const VectorXd& x, VectorXd& g) const {
    g = VectorXd::Zero(x.size());
    g[0] = g[2] = -kappa;
  }
  double value(const VectorXd& x) const { return -kappa * (x[0] + x[2]); }
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R&) const { exact_gradient(x, g); }
};
using Torus = Product<Sphere, Sphere>;

TEST_CASE("SGHMC at h = 5, C = 10 on N(0, 1): the chain barely moves, flagged by both temperatures; h = 0.1 is not") {
  // Exact friction e^{−Ch/2} = e^{−25} leaves almost no momentum: x creeps, its spread far below 1, and
  // nothing diverges. Catches: a too-large step where nothing blows up passing silently.
  const models::Gaussian target = models::Gaussian::isotropic(VectorXd::Zero(1), 1.0);
  const auto sampler = [](double h, double c) {
    return sghmc::Sampler<Euclidean>{{Euclidean(1), sghmc::Friction(c)}, splitting::aboba, schedule::StepSize::constant(h)};
  };
  const diagnostics::ChainCheck wrong = run_and_check(sampler(5.0, 10.0), target, VectorXd::Zero(1), 20000, 1000);
  MESSAGE("T_conf = " << wrong.configurational.value << " ± " << wrong.configurational.se << ", T_kin = " << wrong.kinetic.value);
  CHECK(wrong.has(CheckKind::configurational_temperature));
  CHECK(wrong.has(CheckKind::kinetic_temperature));
  CHECK(wrong.configurational.value < 0.5);
  const diagnostics::ChainCheck right = run_and_check(sampler(0.1, 1.0), target, VectorXd::Zero(1), 20000, 1000);
  MESSAGE("T_conf = " << right.configurational.value << " ± " << right.configurational.se << ", T_kin = " << right.kinetic.value);
  CHECK(right.configurational.measured());
  CHECK(right.kinetic.measured());
  CHECK(right.ok());
}

TEST_CASE("SGLD at h = 1 on N(0, 1) samples N(0, 1/(1 − h/2)) = N(0, 2): flagged; h = 0.01 is not") {
  // SGLD on N(0, σ²) is the AR(1) chain x ← (1 − h/σ²)x + √(2h)ζ, stationary variance σ²/(1 − h/(2σ²)):
  // T_conf = 2 at h = 1. Catches: a step too large for the target's curvature with a bounded drift.
  const models::Gaussian target = models::Gaussian::isotropic(VectorXd::Zero(2), 1.0);
  const auto sampler = [](double h) { return sgld::Sampler<Euclidean>{Euclidean(2), schedule::StepSize::constant(h)}; };
  const diagnostics::ChainCheck wrong = run_and_check(sampler(1.0), target, VectorXd::Zero(2), 20000, 1000);
  MESSAGE("T_conf = " << wrong.configurational.value << " ± " << wrong.configurational.se);
  CHECK(wrong.has(CheckKind::configurational_temperature));
  CHECK(wrong.configurational.value == doctest::Approx(2.0).epsilon(0.25));
  const diagnostics::ChainCheck right = run_and_check(sampler(0.01), target, VectorXd::Zero(2), 200000, 1000);
  MESSAGE("T_conf = " << right.configurational.value << " ± " << right.configurational.se);
  CHECK(right.ok());
  CHECK_FALSE(right.kinetic.measured());  // no momentum
}

TEST_CASE("HMC at h = 0.5 on a target with sd 0.01 accepts nothing: flagged (acceptance 0, never moved); h = 0.005 is not") {
  // Leapfrog is unstable for h > 2 sd: every proposal's energy explodes and is rejected, so every
  // draw is the start point (mean 0, sd 0, ESS NaN). Catches: a run that is its initial value, status ok.
  Eigen::MatrixXd cov = Eigen::MatrixXd::Identity(2, 2);
  cov(1, 1) = 1e-4;
  const models::Gaussian target = models::Gaussian::dense(VectorXd::Zero(2), cov);
  const auto sampler = [](double h, int L) {
    hmc::Sampler<Euclidean> s{Euclidean(2), schedule::StepSize::constant(h)};
    s.leapfrog_steps = L;
    return s;
  };
  const diagnostics::ChainCheck wrong = run_and_check(sampler(0.5, 10), target, VectorXd::Zero(2), 2000, 100);
  CHECK(wrong.acceptance == 0.0);
  CHECK(wrong.has(CheckKind::acceptance_zero));
  CHECK(wrong.has(CheckKind::never_moved));
  const diagnostics::ChainCheck right = run_and_check(sampler(0.005, 20), target, VectorXd::Zero(2), 4000, 200);
  MESSAGE("acceptance " << right.acceptance << ", T_conf = " << right.configurational.value << " ± " << right.configurational.se);
  CHECK(right.acceptance > 0.6);
  CHECK(right.ok());
}

TEST_CASE("SGGMC at h = 3 on a torus: flagged by the kinetic temperature; h = 0.05 is not") {
  // On a compact manifold with exact friction nothing can diverge. With C = 1, h = 3 the momentum left
  // by B(h/2)·O(h)·B(h/2) has variance ≈ e^{−3}(2·3 + ...) ≪ 1 per tangent direction. Catches: SGGMC's
  // E cos θ far from I₁(κ)/I₀(κ) with status ok (T_conf is not measured on a manifold).
  const auto sampler = [](double h) {
    return sghmc::Sampler<Torus>{{Torus(Sphere(2), Sphere(2)), sghmc::Friction(1.0)}, splitting::aboba, schedule::StepSize::constant(h)};
  };
  const VectorXd x0{{1.0, 0.0, 1.0, 0.0}};
  const diagnostics::ChainCheck wrong = run_and_check(sampler(3.0), TorusVonMises{}, x0, 20000, 1000);
  MESSAGE("T_kin = " << wrong.kinetic.value << " ± " << wrong.kinetic.se);
  CHECK(wrong.has(CheckKind::kinetic_temperature));
  CHECK_FALSE(wrong.configurational.measured());
  CHECK(wrong.configurational_skipped.find("manifold") != std::string::npos);
  const diagnostics::ChainCheck right = run_and_check(sampler(0.05), TorusVonMises{}, x0, 100000, 1000);
  MESSAGE("T_kin = " << right.kinetic.value << " ± " << right.kinetic.se);
  CHECK(right.kinetic.measured());
  CHECK(right.ok());
}

TEST_CASE("print_summary prints the draws' summary, then each chain's warnings and the chain that stopped") {
  // docs/api.md §4 shows this code and its output (an excerpt of this file).
  const models::Gaussian target = models::Gaussian::isotropic(VectorXd::Zero(1), 1.0);
  std::ostringstream os;
  // SGLD at h = 1 on N(0, 1): the AR(1) chain x <- (1 - h)x + sqrt(2h) z, whose variance is 1/(1 - h/2) = 2
  Chain chain(sgld::Sampler<Euclidean>{Euclidean(1), schedule::StepSize::constant(1.0)}, target, Eigen::VectorXd::Zero(1),
              random::Stream(7, 0));
  std::vector<Draws> draws(1);
  const ChainStatus status = chain.advance(20000, Retention{1000, 1}, draws[0]);
  const diagnostics::ChainCheck c = check(chain, draws[0]);
  if (c.has(diagnostics::CheckKind::configurational_temperature)) { /* lower the step size */ }
  print_summary(os, draws, {c}, {status});  // os: std::cout, a file, ...
  const std::string text = os.str();
  MESSAGE(text);  // docs/api.md's output
  CHECK(text.find("x[0]") != std::string::npos);
  CHECK(text.find("warning: chain 0: configurational temperature") != std::string::npos);
  std::ostringstream stopped;
  print_summary(stopped, draws, {c}, {ChainStatus{"non-finite state at step 9"}});
  CHECK(stopped.str().find("warning: chain 0 stopped early: non-finite state at step 9") != std::string::npos);
}

}  // namespace checks_stat
