// A diagonal preconditioner estimated in a warm-up (samplers/preconditioned.hpp): the scales it finds
// on an ill-conditioned Gaussian, the exact stationary variance of SGLD with the frozen scale, and the
// mixing it buys.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/sgld.hpp>

#include <sgmcmc/modules/diagnostics/testing.hpp>

namespace preconditioned_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::VectorXd;

static_assert(preconditioned::StateWithPosition<sgld::State>);
static_assert(preconditioned::StateWithPosition<splitting::PhaseState>);
static_assert(!preconditioned::StateWithPosition<preconditioned::State<sgld::State>>);  // its position is derived
static_assert(Sampler<preconditioned::Sampler<sgld::Sampler<Euclidean>>, models::Gaussian, random::Stream>);

TEST_CASE("preconditioned SGLD: the warm-up finds the coordinates' scales; after it the variance is exactly SGLD's on φ") {
  // N(0, diag(1, 100)). E[(∂_i U)²] = 1/σ_i², so the warm-up's s ∝ σ: s_1/s_0 = 10 in expectation. The
  // wide coordinate relaxes in σ²/h = 1000 steps of the warm-up's plain SGLD, so the 5000 collected
  // gradients hold only about 5 independent values of θ_1²: s_1 is known to about ±45 %, and only a
  // ratio above 3 is checked (the scale found, not its precision). With s frozen, SGLD runs on φ = θ/s with variance
  // τ_i² = σ_i²/s_i² and step h, whose exact stationary variance is τ²/(1 − h/(2τ²)), i.e.
  // E[θ_i²] = σ_i²/(1 − h s_i²/(2σ_i²)), checked within 4 MCSE for the s the state holds. Catches a
  // gradient scaled by 1/s instead of s, unscaled noise, positions reported in φ, a scale not frozen.
  // And the point of it: at the step the narrow coordinate allows, plain SGLD barely moves the wide one
  // (its ESS is far lower: checked at less than a quarter of the preconditioned chain's).
  const VectorXd sd{{1.0, 10.0}};
  const models::Gaussian target = models::Gaussian::dense(VectorXd::Zero(2), sd.array().square().matrix().asDiagonal());
  const double h = 0.1;
  const sgld::Sampler<Euclidean> plain{Euclidean(2), schedule::StepSize::constant(h), 0.0};
  const preconditioned::Sampler<sgld::Sampler<Euclidean>> pre{plain, 10000, {}};
  std::vector<std::vector<VectorXd>> scaled(2), wide_pre, wide_plain;
  wide_pre.resize(1), wide_plain.resize(1);
  for (std::uint32_t c = 0; c < 4; ++c) {
    Chain chain(pre, target, VectorXd::Zero(2), random::Stream(21, c));
    Draws d;
    REQUIRE(chain.advance(400000, Retention{20000, 5}, d).ok());
    const VectorXd s = chain.state.scale;
    MESSAGE("chain " << c << ": s_1/s_0 = " << s[1] / s[0]);
    CHECK(s[1] / s[0] > 3);
    CHECK(std::abs(std::log(s[0]) + std::log(s[1])) < 1e-12);  // geometric mean 1
    const auto m = d.matrix();
    for (int i = 0; i < 2; ++i) {
      const double exact = sd[i] * sd[i] / (1.0 - h * s[i] * s[i] / (2.0 * sd[i] * sd[i]));
      scaled[static_cast<std::size_t>(i)].push_back((m.col(i).array().square() / exact).matrix());
    }
    wide_pre[0].push_back(m.col(1));
    Chain other(plain, target, VectorXd::Zero(2), random::Stream(21, c));
    Draws e;
    REQUIRE(other.advance(400000, Retention{20000, 5}, e).ok());
    wide_plain[0].push_back(e.matrix().col(1));
  }
  for (int i = 0; i < 2; ++i) {
    const auto e = testing::estimate(scaled[static_cast<std::size_t>(i)]);
    MESSAGE("coordinate " << i << ": E[θ²] / exact frozen-scale variance = " << e.mean << " ± " << e.se);
    CHECK(std::abs(e.mean - 1) <= 4 * e.se);
  }
  const double ess_pre = testing::estimate(wide_pre[0]).ess, ess_plain = testing::estimate(wide_plain[0]).ess;
  MESSAGE("ESS of the wide coordinate: preconditioned " << ess_pre << ", plain " << ess_plain);
  CHECK(ess_plain < ess_pre / 4);
}

}  // namespace preconditioned_stat
