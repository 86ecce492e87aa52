// A diagonal preconditioner estimated in a warm-up (samplers/preconditioned.hpp): the scales it finds
// on an ill-conditioned Gaussian, the exact stationary variance of SGLD with the frozen scale, and the
// mixing it buys.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
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
    const VectorXd s = chain.state.factor.scale;
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

TEST_CASE("dense preconditioner: on a correlated Gaussian of condition number 10⁴ it recovers the covariance and mixes ≥ 10× faster per step than the diagonal one or none") {
  // Σ = QΛQᵀ in d = 10, Λ log-spaced 10⁻² … 10², Q a fixed random rotation (so no coordinate is an
  // eigen-direction and a diagonal preconditioner cannot help). SGHMC (ABOBA) at h = 0.05, C = 1, the
  // step the narrowest direction allows (ω_max h = 0.5). Without preconditioning the widest direction
  // (ω = 0.1) is overdamped, relaxing in C/ω² = 100 time units = 2000 steps; with a dense factor
  // φ = L⁻¹θ has covariance ≈ I (det L = 1 and det Σ = 1), every direction relaxing in about 2/C = 2
  // time units = 40 steps: about 50× the ESS per step in the slowest whitened direction. The check asks
  // for 10× (the ESS estimates of the slow chains, ~50 per chain, are uncertain by tens of percent).
  // The warm-up: 2·10⁵ steps, the covariance from the last 10⁵ draws (about 25 relaxation times of the
  // widest direction, so its variance is known to ±30 %); the preconditioned covariance L⁻¹ΣL⁻ᵀ is
  // then checked to have condition number below 30 (Marchenko–Pastur with every direction as badly
  // estimated as the widest gives about 20), against 10⁴ for none. Then the draws' whitened second
  // moments E[z_i²], z = Λ^{-1/2}Qᵀ(θ − μ), must be 1 within 4 MCSE + 0.01 (the ABOBA variance bias,
  // O(h²ω²/4) ≤ 0.01 for ω² ≤ 16 in φ). Catches L applied as Lᵀ, a factor from the gradients instead
  // of the draws, a chain not re-expressed in φ when L is fixed (θ would jump), a factor not
  // normalised (det L ≠ 1 would change the step's meaning and, here, its stability).
  const Eigen::Index d = 10;
  random::Stream make(5, 0);
  Eigen::MatrixXd g(d, d);
  for (Eigen::Index j = 0; j < d; ++j) {
    VectorXd col(d);
    make.normals(col);
    g.col(j) = col;
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  const Eigen::MatrixXd q = qr.householderQ();
  VectorXd lambda(d);
  for (Eigen::Index i = 0; i < d; ++i) lambda[i] = std::pow(10.0, -2.0 + 4.0 * static_cast<double>(i) / static_cast<double>(d - 1));
  const Eigen::MatrixXd cov = q * lambda.asDiagonal() * q.transpose();
  const VectorXd mu = VectorXd::LinSpaced(d, -1.0, 1.0);
  const models::Gaussian target = models::Gaussian::dense(mu, cov);
  const Eigen::MatrixXd whiten = lambda.cwiseSqrt().cwiseInverse().asDiagonal() * q.transpose();

  const double h = 0.05;
  const std::uint64_t warm = 200000, steps = 400000, thin = 10;
  const sghmc::Sampler<Euclidean> plain{{Euclidean(d), sghmc::Friction(1.0), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  using Pre = preconditioned::Sampler<sghmc::Sampler<Euclidean>>;
  const Pre dense{plain, warm, {}, 1e-12, preconditioned::Kind::dense};
  const Pre diagonal{plain, warm, {}};
  // Runs 4 chains; returns the smallest ESS per step over the whitened coordinates z_i, and fills
  // `second` with each coordinate's z_i² per chain.
  const auto run = [&](const auto& sampler, std::vector<std::vector<VectorXd>>& second, Eigen::MatrixXd* factor) {
    std::vector<std::vector<VectorXd>> first(static_cast<std::size_t>(d));
    second.assign(static_cast<std::size_t>(d), {});
    for (std::uint32_t c = 0; c < 4; ++c) {
      Chain chain(sampler, target, mu, random::Stream(33, c));
      Draws out;
      REQUIRE(chain.advance(steps, Retention{warm, thin}, out).ok());
      const Eigen::MatrixXd z = (out.matrix().rowwise() - mu.transpose()) * whiten.transpose();
      for (Eigen::Index i = 0; i < d; ++i) {
        first[static_cast<std::size_t>(i)].push_back(z.col(i));
        second[static_cast<std::size_t>(i)].push_back(z.col(i).array().square().matrix());
      }
      if constexpr (requires { chain.state.factor; })
        if (factor && c == 0) *factor = chain.state.factor.lower;
    }
    double least = std::numeric_limits<double>::infinity();
    for (const auto& f : first) least = std::min(least, testing::estimate(f).ess);
    return least / (4.0 * static_cast<double>(steps - warm));
  };
  std::vector<std::vector<VectorXd>> z2_dense, z2_diagonal, z2_none;
  Eigen::MatrixXd l;
  const double ess_dense = run(dense, z2_dense, &l);
  const double ess_diagonal = run(diagonal, z2_diagonal, nullptr);
  const double ess_none = run(plain, z2_none, nullptr);
  MESSAGE("smallest ESS per step over the whitened coordinates: dense " << ess_dense << ", diagonal " << ess_diagonal << ", none "
                                                                          << ess_none);
  CHECK(ess_dense > 10 * ess_diagonal);
  CHECK(ess_dense > 10 * ess_none);

  REQUIRE(l.rows() == d);
  CHECK(std::abs(l.diagonal().array().log().sum()) < 1e-12);  // det L = 1
  const Eigen::MatrixXd lower = l.triangularView<Eigen::Lower>();
  const Eigen::MatrixXd pre_cov = lower.inverse() * cov * lower.inverse().transpose();
  const VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(pre_cov).eigenvalues();
  MESSAGE("condition number of L⁻¹ΣL⁻ᵀ (chain 0): " << ev.maxCoeff() / ev.minCoeff() << " (of Σ: 10⁴)");
  CHECK(ev.maxCoeff() / ev.minCoeff() < 30);
  for (Eigen::Index i = 0; i < d; ++i) {
    const auto e = testing::estimate(z2_dense[static_cast<std::size_t>(i)]);
    CAPTURE(i);
    CHECK(std::abs(e.mean - 1.0) <= 4 * e.se + 0.01);
  }
  const auto widest = testing::estimate(z2_dense[static_cast<std::size_t>(d - 1)]);
  const auto widest_none = testing::estimate(z2_none[static_cast<std::size_t>(d - 1)]);
  MESSAGE("E[z²] of the widest direction: dense " << widest.mean << " ± " << widest.se << ", none " << widest_none.mean << " ± "
                                                  << widest_none.se);
}

}  // namespace preconditioned_stat
