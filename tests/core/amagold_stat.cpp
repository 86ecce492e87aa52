// AMAGOLD (samplers/amagold.hpp): every window accepted with exact gradients as h → 0, the exact
// answer under heavy gradient noise where plain SGHMC at the same step is visibly too hot, the same on
// a sphere, and the chain's own statistics.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/amagold.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

#include <sgmcmc/modules/diagnostics/testing.hpp>

namespace amagold_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

/// E[x_i²]/σ_i² per coordinate over `chains` chains (with MCSE from the chains' ESS), and the mean
/// acceptance.
struct Moments {
  std::vector<testing::Estimate> scaled_square, mean;
};
template <class S, class P>
Moments moments(const S& sampler, const P& target, const VectorXd& sd, std::uint64_t steps, std::uint64_t seed) {
  const auto d = sd.size();
  std::vector<std::vector<VectorXd>> sq(static_cast<std::size_t>(d)), x(static_cast<std::size_t>(d));
  for (std::uint32_t c = 0; c < 4; ++c) {
    Chain chain(sampler, target, VectorXd::Zero(d), random::Stream(seed, c));
    Draws draws;
    REQUIRE(chain.advance(steps, Retention{steps / 10, 1}, draws).ok());
    const Eigen::MatrixXd m = draws.matrix();
    for (Eigen::Index i = 0; i < d; ++i) {
      sq[static_cast<std::size_t>(i)].push_back((m.col(i).array().square() / (sd[i] * sd[i])).matrix());
      x[static_cast<std::size_t>(i)].push_back(m.col(i) / sd[i]);
    }
  }
  Moments out;
  for (Eigen::Index i = 0; i < d; ++i) {
    out.scaled_square.push_back(testing::estimate(sq[static_cast<std::size_t>(i)]));
    out.mean.push_back(testing::estimate(x[static_cast<std::size_t>(i)]));
  }
  return out;
}

}  // namespace

static_assert(Sampler<amagold::Sampler<Euclidean>, models::Gaussian, random::Stream>);

TEST_CASE("amagold: with exact gradients every window is accepted as h → 0") {
  // ρ = Σ(h/2)gᵀ(v_{t−1} + v_t) → U(x_T) − U(x₀): the acceptance exp(U(x₀) − U(x_T) + ρ) → 1 with an
  // O(h³) error per step. Catches ρ with the wrong sign (the acceptance would be exp(−2ΔU): tiny on
  // moves across the target) or the kinetic energy wrongly added to it.
  const models::Gaussian target = models::Gaussian::dense(VectorXd::Zero(3), VectorXd{{1.0, 2.0, 0.5}}.asDiagonal());
  for (double h : {0.1, 0.01}) {
    CAPTURE(h);
    const amagold::Sampler<Euclidean> s{Euclidean(3), schedule::StepSize::constant(h), 0.5, 20};
    random::Stream rng(3, 0);
    auto state = s.init(VectorXd::Constant(3, 0.5), rng);
    double acceptance = 0;
    for (std::uint64_t t = 0; t < 500; ++t) acceptance += s.step(state, target, rng, t).acceptance / 500;
    MESSAGE("h = ", h, ": mean acceptance ", acceptance);
    CHECK(acceptance > (h == 0.1 ? 0.99 : 0.9999));
    CHECK(state.proposals == 500);
    CHECK(state.gradient_evals == 500 * 20);
  }
}

TEST_CASE("amagold: exact under heavy gradient noise where SGHMC at the same step runs hot") {
  // N(0, diag(1, 4)) with added gradient noise σ = 3 (V = 9): SGHMC at h = 0.1, C = 1, told nothing of
  // the noise, runs at about 1 + hV/(2C) = 1.45 times the variance. AMAGOLD with the same step, friction
  // and noisy gradients, windows of 10, is exact: E[x²]/σ² = 1 and E[x]/σ = 0 within 4 MCSE. Catches a
  // test that does not correct (it would be as hot as SGHMC), a momentum not flipped on rejection or a
  // friction step that is not reversible (both leave a bias of the order of the rejection rate).
  const VectorXd sd{{1.0, 2.0}};
  const models::Gaussian exact = models::Gaussian::dense(VectorXd::Zero(2), sd.array().square().matrix().asDiagonal());
  const models::WithGradientNoise<models::Gaussian> noisy{exact, 3.0};
  const double h = 0.1;
  const sghmc::Sampler<Euclidean> plain{{Euclidean(2), sghmc::Friction(1.0), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  const Moments hot = moments(plain, noisy, sd, 400000, 5);
  const amagold::Sampler<Euclidean> corrected{Euclidean(2), schedule::StepSize::constant(h), 1.0, 10};
  const Moments right = moments(corrected, noisy, sd, 40000, 6);
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto& a = right.scaled_square[static_cast<std::size_t>(i)];
    const auto& b = hot.scaled_square[static_cast<std::size_t>(i)];
    MESSAGE("coordinate ", i, ": E[x²]/σ² amagold ", a.mean, " ± ", a.se, ", sghmc ", b.mean, " ± ", b.se);
    CHECK(std::abs(a.mean - 1) <= 4 * a.se);
    CHECK(std::abs(right.mean[static_cast<std::size_t>(i)].mean) <= 4 * right.mean[static_cast<std::size_t>(i)].se);
    CHECK(b.mean - 1 > 20 * b.se);  // SGHMC: visibly too hot
  }
}

TEST_CASE("amagold on the sphere: the vMF's E[μᵀx] under gradient noise") {
  // The same step with the tangent projection and the geodesic flow. vMF(μ, κ = 3) on S²:
  // E[μᵀx] = coth κ − 1/κ = 0.67163. Catches noise or gradients not projected (the chain would leave the
  // sphere or sample the wrong law) and a flow that is not reversed on rejection.
  VectorXd mu(3);
  mu << 0, 0, 1;
  const models::WithGradientNoise<models::Linear> noisy{models::von_mises_fisher(mu, 3.0), 2.0};
  const amagold::Sampler<Sphere> s{Sphere(3), schedule::StepSize::constant(0.1), 1.0, 10};
  std::vector<VectorXd> cosines;
  for (std::uint32_t c = 0; c < 4; ++c) {
    Chain chain(s, noisy, mu, random::Stream(8, c));
    Draws draws;
    REQUIRE(chain.advance(30000, Retention{3000, 1}, draws).ok());
    const Eigen::MatrixXd m = draws.matrix();
    CHECK((m.rowwise().norm().array() - 1).abs().maxCoeff() < 1e-10);
    cosines.push_back(m * mu);
  }
  const auto e = testing::estimate(cosines);
  const double expected = 1 / std::tanh(3.0) - 1 / 3.0;
  MESSAGE("E[μᵀx] = ", e.mean, " ± ", e.se, " (exact ", expected, ")");
  CHECK(std::abs(e.mean - expected) <= 4 * e.se);
}

}  // namespace amagold_stat
