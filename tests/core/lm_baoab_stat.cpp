// Statistical tests of Leimkuhler & Matthews's BAOAB (splitting::lm_baoab, docs/math.md#leimkuhler-matthews-baoab):
// its x-marginal on a Gaussian, exact at any step size with exact gradients, and kept exact to leading
// order with noisy gradients by the OU's noise correction. Fixed seeds; every tolerance a multiple of a
// batch-means Monte Carlo standard error plus, where stated, an allowance computed from the scheme's exact
// discrete stationary law (Lyapunov), never tuned.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/diagnostics/testing.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace lm_baoab_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The SGHMC paper's Fig. 3 target, N(μ, Σ) with ρ = 0.9 (μ ≠ 0 to catch sign slips in the mean): its
// precision's eigenvalues are 1/1.9 and 10, so the flow's stiff direction has ω = 3.16.
const MatrixXd kCov{{1.0, 0.9}, {0.9, 1.0}};
const VectorXd kMean{{1.0, -1.0}};

// One step of a scheme on this target, affine in z = (x - μ, v): z <- M z + ε, ε ~ N(0, S). Written here
// from docs/math.md, independently of the library: both alphabets, additive N(0, σ²I) gradient noise, a
// fresh gradient in each kick, and the OU's correction for the noise estimate V̂.
struct Affine {
  MatrixXd M, S;
};
// `naive`: the OU removes the kicks' whole excess V̂ Σ t_k² (the obvious guess) instead of (1 + c)²/4 of it.
Affine linear_scheme(const splitting::StageList& scheme, const MatrixXd& P, double C, double V, double sigma, double h,
                     bool naive = false) {
  const auto d = P.rows(), n = 2 * d;
  const MatrixXd I = MatrixXd::Identity(d, d);
  double kicks = 0;  // Σ t_k² over the gradient-only kicks
  for (const Stage& st : scheme.stages())
    if (st.op == Op::gradient_kick) kicks += st.fraction * h * st.fraction * h;
  Affine a{MatrixXd::Identity(n, n), MatrixXd::Zero(n, n)};
  for (const Stage& st : scheme.stages()) {
    const double t = st.fraction * h, c = std::exp(-C * t);
    MatrixXd T = MatrixXd::Identity(n, n), N = MatrixXd::Zero(n, n);
    switch (st.op) {
      case Op::A: T.topRightCorner(d, d) = t * I; break;
      case Op::B: T.bottomRightCorner(d, d) = c * I; break;
      case Op::B_explicit: T.bottomRightCorner(d, d) = (1 - C * t) * I; break;
      case Op::O:
        T.bottomLeftCorner(d, d) = -t * P;
        N.bottomRightCorner(d, d) = (2 * C * t - V * t * t + t * t * sigma * sigma) * I;
        break;
      case Op::gradient_kick:
        T.bottomLeftCorner(d, d) = -t * P;
        N.bottomRightCorner(d, d) = t * t * sigma * sigma * I;
        break;
      case Op::exact_ou:
        T.bottomRightCorner(d, d) = c * I;
        N.bottomRightCorner(d, d) = (1 - c * c - (naive ? 1.0 : (1 + c) * (1 + c) / 4) * V * kicks) * I;
        break;
    }
    a.M = (T * a.M).eval();
    a.S = (T * a.S * T.transpose() + N).eval();
  }
  return a;
}
MatrixXd stationary(const Affine& a) { return testing::discrete_lyapunov(a.M, a.S); }

// Empirical second moments of (x - μ, v) about the known mean, each with a batch-means SE.
struct Moments {
  testing::Estimate c00, c01, c11, v00, v11;
};
template <class P>
Moments moments(const sghmc::Sampler<Euclidean>& smp, const P& potential, long steps, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  auto st = smp.init(kMean, rng);
  for (long k = 0; k < 5000; ++k) smp.step(st, potential, rng, 0);
  testing::BatchMeans c00(steps, 50), c01(steps, 50), c11(steps, 50), v00(steps, 50), v11(steps, 50);
  for (long k = 0; k < steps; ++k) {
    smp.step(st, potential, rng, 0);
    const double a = st.x[0] - kMean[0], b = st.x[1] - kMean[1];
    c00.add(a * a), c01.add(a * b), c11.add(b * b), v00.add(st.v[0] * st.v[0]), v11.add(st.v[1] * st.v[1]);
  }
  return {c00.result(), c01.result(), c11.result(), v00.result(), v11.result()};
}

constexpr double z = 4.5;  // each check fails by chance with probability ~7e-6

// |each of E[xxᵀ]'s entries - expected| < z SE + allowance.
void check_position(const Moments& m, const MatrixXd& expected, double allowance, const std::string& what) {
  CAPTURE(what);
  CHECK(std::abs(m.c00.mean - expected(0, 0)) < z * m.c00.se + allowance);
  CHECK(std::abs(m.c01.mean - expected(0, 1)) < z * m.c01.se + allowance);
  CHECK(std::abs(m.c11.mean - expected(1, 1)) < z * m.c11.se + allowance);
  MESSAGE(what, ": E[xxᵀ] = [", m.c00.mean, ", ", m.c01.mean, ", ", m.c11.mean, "] ± ", m.c00.se, " vs [", expected(0, 0), ", ",
          expected(0, 1), ", ", expected(1, 1), "]");
}
// The largest |entry - Σ| of E[xxᵀ], in units of that entry's SE.
double position_off(const Moments& m) {
  return std::max({std::abs(m.c00.mean - kCov(0, 0)) / m.c00.se, std::abs(m.c01.mean - kCov(0, 1)) / m.c01.se,
                   std::abs(m.c11.mean - kCov(1, 1)) / m.c11.se});
}

}  // namespace

TEST_CASE("lm_baoab samples a Gaussian's x-marginal exactly at a large step, at low and high friction; the seed's baoab does not") {
  // Leimkuhler & Matthews (2013): for a harmonic potential BAOAB's configurational marginal is exact at
  // any stable h and any friction (docs/math.md#leimkuhler-matthews-baoab derives it). Exact gradients,
  // h = 0.4 (hω = 1.26 in the stiff direction: every second-order scheme is visibly biased there).
  // Tolerance z SEs and no allowance: the exact answer is Σ itself. Catches: a kick with noise (the
  // seed's O), an OU of the wrong variance (1 - e^{-Ch}, 2Ch), the flows not split evenly about the OU,
  // the stages in another order — each moves E[xxᵀ] off Σ at this h by many SEs.
  // Power: the seed papers' baoab (friction, flow, noisy kick), run the same way, is off by > z SEs.
  const double h = 0.4;
  const models::Gaussian exact = models::Gaussian::dense(kMean, kCov);
  for (const double C : {1.0, 10.0}) {
    const std::string label = "C = " + std::to_string(C);
    const auto step = schedule::StepSize::constant(h);
    const sghmc::Sampler<Euclidean> lm{{Euclidean(2), sghmc::Friction(C), 0.0}, splitting::lm_baoab, step};
    const Moments m = moments(lm, exact, 2'000'000, 61);
    check_position(m, kCov, 0.0, "lm_baoab, " + label);
    // The library's scheme is the one written here: its whole exact law, v included (at the step's end
    // v is not N(0, I): BAOAB's kinetic temperature is O(h²) off).
    const MatrixXd law = stationary(linear_scheme(splitting::lm_baoab, kCov.inverse(), C, 0, 0, h));
    CHECK((law.topLeftCorner(2, 2) - kCov).cwiseAbs().maxCoeff() < 1e-10);
    CHECK(std::abs(m.v00.mean - law(2, 2)) < z * m.v00.se);
    CHECK(std::abs(m.v11.mean - law(3, 3)) < z * m.v11.se);
    const sghmc::Sampler<Euclidean> seed{{Euclidean(2), sghmc::Friction(C), 0.0}, splitting::baoab, step};
    const double off = position_off(moments(seed, exact, 2'000'000, 62));
    MESSAGE("seed baoab, ", label, ": E[xxᵀ] off Σ by ", off, " SEs");
    CHECK(off > z);
  }
}

TEST_CASE("lm_baoab with noisy gradients: the OU's noise correction keeps E[xxᵀ] at Σ; without it the chain is too hot") {
  // Gradient noise N(0, σ²I), σ = 4, told to the sampler as V̂ = σ² (or not: V̂ = 0). h = 0.1, C = 3: a
  // friction at which the derived share (1 + e^{-Ch})²/4 = 0.76 of the excess differs resolvably from 1.
  // Each step's two kicks add (h/2)²σ² each to v's variance; the OU removes (1 + e^{-Ch})²/4 of their
  // sum, which keeps the x-marginal exact up to O(h³) (docs/math.md#leimkuhler-matthews-baoab).
  // - corrected: E[xxᵀ] = Σ within z SEs plus the correction's exact O(h³) residual (computed: the
  //   scheme's Lyapunov covariance minus Σ, checked to be below a quarter of an SE, so this is Σ);
  //   E[vvᵀ] = its exact value. Catches: no correction, the naive full excess h²V̂/2 (too cold: its exact
  //   law is checked to be off Σ by more than z SEs), V̂ with the wrong power of h, the
  //   noise removed from a kick instead of the OU.
  // - uncorrected: E[xxᵀ] is off Σ by more than z SEs (its exact law is 13 % too wide): the test has power.
  const double h = 0.1, C = 3.0, sigma = 4.0, V = sigma * sigma;
  const models::WithGradientNoise<models::Gaussian> noisy{models::Gaussian::dense(kMean, kCov), sigma};
  const MatrixXd P = kCov.inverse();
  const auto step = schedule::StepSize::constant(h);

  const sghmc::Sampler<Euclidean> corrected{{Euclidean(2), sghmc::Friction(C), V}, splitting::lm_baoab, step};
  const Moments m = moments(corrected, noisy, 4'000'000, 71);
  const MatrixXd law = stationary(linear_scheme(splitting::lm_baoab, P, C, V, sigma, h));
  const double residual = (law.topLeftCorner(2, 2) - kCov).cwiseAbs().maxCoeff();
  CHECK(residual < 0.25 * m.c00.se);
  check_position(m, kCov, residual, "lm_baoab, V̂ = σ²");
  CHECK(std::abs(m.v00.mean - law(2, 2)) < z * m.v00.se);
  CHECK(std::abs(m.v11.mean - law(3, 3)) < z * m.v11.se);
  // Power against the naive correction (the kicks' whole excess): its exact law is off Σ by more than z SEs.
  const MatrixXd cold = stationary(linear_scheme(splitting::lm_baoab, P, C, V, sigma, h, /*naive=*/true)).topLeftCorner(2, 2);
  const double naive_off = std::max({std::abs(cold(0, 0) - kCov(0, 0)) / m.c00.se, std::abs(cold(0, 1) - kCov(0, 1)) / m.c01.se,
                                     std::abs(cold(1, 1) - kCov(1, 1)) / m.c11.se});
  MESSAGE("the naive correction's exact E[xxᵀ] is off Σ by ", naive_off, " SEs");
  CHECK(naive_off > z);

  const sghmc::Sampler<Euclidean> uncorrected{{Euclidean(2), sghmc::Friction(C), 0.0}, splitting::lm_baoab, step};
  const Moments u = moments(uncorrected, noisy, 4'000'000, 72);
  const MatrixXd hot = stationary(linear_scheme(splitting::lm_baoab, P, C, 0, sigma, h));
  check_position(u, hot.topLeftCorner(2, 2), 0.0, "lm_baoab, V̂ = 0 (its own exact law)");
  const double off = position_off(u);
  MESSAGE("uncorrected: E[xxᵀ] off Σ by ", off, " SEs");
  CHECK(off > z);
}

}  // namespace lm_baoab_stat
