// Statistical tests of the flat samplers and splitting schemes. Fixed seeds; every tolerance is a
// multiple of a Monte Carlo standard error (batch means or Stan's ESS) plus, where stated, a
// discretisation allowance that is computed, not tuned.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

#include <sgmcmc/modules/diagnostics/testing.hpp>

namespace samplers_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The SGHMC paper's Fig. 3 target: N(μ, Σ) with ρ = 0.9 (here with μ ≠ 0 to catch sign slips in
// the mean), and additive N(0, σ²I) gradient noise.
const MatrixXd kCov{{1.0, 0.9}, {0.9, 1.0}};
const VectorXd kMean{{1.0, -1.0}};
models::WithGradientNoise<models::Gaussian> noisy_gaussian(double sigma) {
  return {models::Gaussian::dense(kMean, kCov), sigma};
}

// One step of a split scheme on this target is affine in (x - μ, v): z <- M z + ε, ε ~ N(0, S).
// Built here from docs/math.md#split-dynamics independently of the library's code.
struct Affine {
  MatrixXd M, S;
};
Affine linear_scheme(const splitting::StageList& scheme, const MatrixXd& P, double C, double V, double sigma, double h) {
  const auto d = P.rows(), n = 2 * d;
  Affine a{MatrixXd::Identity(n, n), MatrixXd::Zero(n, n)};
  const MatrixXd I = MatrixXd::Identity(d, d);
  for (const Stage& st : scheme.stages()) {
    const double t = st.fraction * h;
    MatrixXd T = MatrixXd::Identity(n, n), N = MatrixXd::Zero(n, n);
    switch (st.op) {
      case Op::A: T.topRightCorner(d, d) = t * I; break;
      case Op::B: T.bottomRightCorner(d, d) = std::exp(-C * t) * I; break;
      case Op::B_explicit: T.bottomRightCorner(d, d) = (1 - C * t) * I; break;
      case Op::O:
        T.bottomLeftCorner(d, d) = -t * P;
        N.bottomRightCorner(d, d) = (2 * C * t - V * t * t + t * t * sigma * sigma) * I;  // injected + gradient noise
        break;
      case Op::gradient_kick:  // Leimkuhler & Matthews's letters: modelled in lm_baoab_stat.cpp
      case Op::exact_ou: throw std::logic_error("linear_scheme: lm_baoab's operations are modelled in tests/core/lm_baoab_stat.cpp");
    }
    a.M = (T * a.M).eval();
    a.S = (T * a.S * T.transpose() + N).eval();
  }
  return a;
}

// Empirical E[x], Cov(x) of a chain, each entry with a batch-means standard error.
struct Moments {
  testing::Estimate m0, m1, c00, c01, c11;
};
template <class S, class P>
Moments moments(S sampler, const P& potential, long burn, long steps, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  auto st = sampler.init(kMean, rng);
  for (long k = 0; k < burn; ++k) sampler.step(st, potential, rng, static_cast<std::uint64_t>(k));
  testing::BatchMeans m0(steps, 50), m1(steps, 50), c00(steps, 50), c01(steps, 50), c11(steps, 50);
  for (long k = 0; k < steps; ++k) {
    sampler.step(st, potential, rng, static_cast<std::uint64_t>(burn + k));
    const VectorXd& x = sampler.position(st);
    const double a = x[0] - kMean[0], b = x[1] - kMean[1];  // the exact mean is known: no estimation bias
    m0.add(x[0]), m1.add(x[1]), c00.add(a * a), c01.add(a * b), c11.add(b * b);
  }
  return {m0.result(), m1.result(), c00.result(), c01.result(), c11.result()};
}

void check_moments(const Moments& m, const MatrixXd& cov, double allowance, const std::string& what) {
  CAPTURE(what);
  const double z = 4.5;  // each check fails by chance with probability ~7e-6
  CHECK(std::abs(m.m0.mean - kMean[0]) < z * m.m0.se);
  CHECK(std::abs(m.m1.mean - kMean[1]) < z * m.m1.se);
  CHECK(std::abs(m.c00.mean - cov(0, 0)) < z * m.c00.se + allowance);
  CHECK(std::abs(m.c01.mean - cov(0, 1)) < z * m.c01.se + allowance);
  CHECK(std::abs(m.c11.mean - cov(1, 1)) < z * m.c11.se + allowance);
  MESSAGE(what, ": cov = [", m.c00.mean, ", ", m.c01.mean, ", ", m.c11.mean, "] ± ", m.c00.se, " vs [", cov(0, 0), ", ",
          cov(0, 1), ", ", cov(1, 1), "]");
}

// Independent double wells, U = Σ θ_i⁴ - 2θ_i², exact gradient.
struct Wells {
  void exact_gradient(const VectorXd& x, VectorXd& g) const { g = 4 * x.array().cube() - 4 * x.array(); }
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { exact_gradient(x, g); }
};

}  // namespace

TEST_CASE("each scheme's empirical covariance matches its exact discrete stationary covariance (Lyapunov)") {
  // On a Gaussian target every scheme is linear, so its stationary law at step size h is known
  // exactly: Σ_h = M Σ_h Mᵀ + S. Catches, per scheme: a sub-step in the wrong order or with the wrong
  // fraction, friction of the wrong form (exp vs 1 - Ct), noise of the wrong variance (2Ct, V̂t², the
  // gradient noise), a kick of the wrong sign. h is large enough that schemes differ by many SEs.
  const MatrixXd P = kCov.inverse();
  const double h = 0.15, C = 1.0, V = 0.5, sigma = 1.0;  // V̂ ≠ σ² on purpose: the bookkeeping must be exact
  const auto potential = noisy_gaussian(sigma);
  // splitting::baoab: the seed papers' letters (B friction, O noisy kick), not Leimkuhler & Matthews's (lm_baoab).
  for (const auto& scheme : {splitting::aboba, splitting::baoab, splitting::obabo, splitting::euler}) {
    const Affine a = linear_scheme(scheme, P, C, V, sigma, h);
    const MatrixXd exact = testing::discrete_lyapunov(a.M, a.S).topLeftCorner(2, 2);
    const sghmc::Sampler<Euclidean> smp{{Euclidean(2), sghmc::Friction(C), V}, scheme, schedule::StepSize::constant(h)};
    const Moments m = moments(smp, potential, 2000, 6'000'000, 21);
    check_moments(m, exact, 0.0, std::string(scheme.name).c_str());
    // The test has power: at this h each scheme's own discretisation bias is resolved by many SEs, so
    // a sampler that ran another scheme (or the continuous-time answer) would fail.
    CHECK((exact - kCov).cwiseAbs().maxCoeff() > 8 * m.c00.se);
  }
  // SGLD: x <- (I - hP)x + N(0, (2h - V̂h² + h²σ²)I).
  const double hl = 0.05;
  const MatrixXd M = MatrixXd::Identity(2, 2) - hl * P;
  const MatrixXd exact = testing::discrete_lyapunov(M, (2 * hl - V * hl * hl + hl * hl * sigma * sigma) * MatrixXd::Identity(2, 2));
  const sgld::Sampler<Euclidean> sgld{Euclidean(2), schedule::StepSize::constant(hl), V};
  check_moments(moments(sgld, potential, 2000, 6'000'000, 22), exact, 0.0, "sgld");
}

TEST_CASE("weak order: ABOBA's stationary bias shrinks like h², Euler's like h") {
  // 64 independent double wells U = Σ θ_i⁴ - 2θ_i² (exact gradients), SGHMC with C = 1. Test functions:
  // the configurational θ² (E = 0.832745, docs/math.md#double-well) and the kinetic temperature v² (E = 1).
  // The fitted log-log slope must be 2 for ABOBA (both functions) and 1 for Euler (v²; Euler's
  // configurational averages happen to be second order here — symplectic Euler's superconvergence —
  // so θ² cannot show its first order). Tolerance: 4 SEs of the slope (propagated from the batch-means
  // SEs of the biases) plus 0.3 for pre-asymptotic higher-order terms. Catches: a scheme that is not
  // symmetric, a half-step dropped, ABOBA silently running as first order.
  const int d = 64;
  auto bias = [&](const splitting::StageList& scheme, double h, testing::Estimate& x2, testing::Estimate& v2) {
    const sghmc::Sampler<Euclidean> smp{{Euclidean(d), sghmc::Friction(1.0), 0.0}, scheme, schedule::StepSize::constant(h)};
    random::Stream rng(31, 0);
    auto s = smp.init(VectorXd::Zero(d), rng);
    for (int k = 0; k < static_cast<int>(20 / h); ++k) smp.step(s, Wells{}, rng, 0);
    const long steps = static_cast<long>(1e5 / h);
    testing::BatchMeans bx(steps, 50), bv(steps, 50);
    for (long k = 0; k < steps; ++k) {
      smp.step(s, Wells{}, rng, 0);
      bx.add(s.x.squaredNorm() / d);
      bv.add(s.v.squaredNorm() / d);
    }
    x2 = bx.result(), v2 = bv.result();
    x2.mean -= 0.832745, v2.mean -= 1.0;
  };
  auto fit = [&](const splitting::StageList& scheme, const std::vector<double>& hs, bool use_v, double expected) {
    std::vector<double> b, se;
    for (double h : hs) {
      testing::Estimate x2, v2;
      bias(scheme, h, x2, v2);
      const auto& e = use_v ? v2 : x2;
      CHECK(std::abs(e.mean) > 4 * e.se);  // the bias is resolved, so its slope means something
      b.push_back(e.mean), se.push_back(e.se);
    }
    const auto s = testing::log_log_slope(hs, b, se);
    const std::string label = std::string(scheme.name) + (use_v ? " v²" : " θ²");
    MESSAGE(label, ": biases ", b[0], ", ", b[1], ", ", b[2], " slope ", s.slope, " ± ", s.se);
    CHECK(std::abs(s.slope - expected) < 0.3 + 4 * s.se);
    return s.slope;
  };
  CHECK(fit(splitting::aboba, {0.2, 0.1, 0.05}, false, 2.0) > 1.5);
  CHECK(fit(splitting::aboba, {0.2, 0.1, 0.05}, true, 2.0) > 1.5);
  CHECK(fit(splitting::euler, {0.05, 0.025, 0.0125}, true, 1.0) < 1.5);
}

TEST_CASE("every sampler reproduces the mean and covariance of the ρ = 0.9 Gaussian with noisy gradients") {
  // Gradient noise N(0, I) as in the SGHMC paper's Fig. 3. Tolerance 4.5 batch-means SEs plus the
  // exact discretisation bias of the linear scheme at that h (Lyapunov; zero for MH-corrected HMC).
  // Catches: a sampler that ignores its noise estimate, a thermostat that does not absorb unknown
  // gradient noise, an MH test with the wrong sign.
  const MatrixXd P = kCov.inverse();
  const auto potential = noisy_gaussian(1.0);
  auto bias_of = [&](const Affine& a) {
    return (testing::discrete_lyapunov(a.M, a.S).topLeftCorner(2, 2) - kCov).cwiseAbs().maxCoeff();
  };
  {
    const double h = 0.01;
    const MatrixXd exact = testing::discrete_lyapunov(MatrixXd::Identity(2, 2) - h * P, 2 * h * MatrixXd::Identity(2, 2));
    const sgld::Sampler<Euclidean> s{Euclidean(2), schedule::StepSize::constant(h), 1.0};
    check_moments(moments(s, potential, 5000, 8'000'000, 41), kCov, (exact - kCov).cwiseAbs().maxCoeff(), "sgld");
  }
  {
    const double h = 0.05;
    const sghmc::Sampler<Euclidean> s{{Euclidean(2), sghmc::Friction(1.0), 1.0}, splitting::aboba, schedule::StepSize::constant(h)};
    check_moments(moments(s, potential, 5000, 4'000'000, 42), kCov, bias_of(linear_scheme(splitting::aboba, P, 1, 1, 1, h)), "sghmc");
  }
  {
    // SGNHT is not linear (ξ adapts), and it is given no noise estimate: its thermostat must absorb the
    // N(0, I) gradient noise. Allowance: SGHMC-ABOBA's exact bias at the same h and friction 1 with
    // the noise left uncorrected (V̂ = 0), i.e. what an uncompensated sampler would be off by.
    const double h = 0.05;
    const sgnht::Sampler<Euclidean> s{{Euclidean(2), 1.0, 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
    check_moments(moments(s, potential, 5000, 4'000'000, 43), kCov, bias_of(linear_scheme(splitting::aboba, P, 1, 0, 1, h)), "sgnht");
  }
  {
    const hmc::Sampler<Euclidean> s{Euclidean(2), schedule::StepSize::constant(0.15), 10, hmc::Gradient::exact, true};
    check_moments(moments(s, potential, 500, 400'000, 44), kCov, 0.0, "hmc");
  }
}

TEST_CASE("SGHMC paper Fig. 1: SGHMC and HMC match the double well; naive stochastic-gradient HMC does not") {
  // U = -2θ² + θ⁴ with gradient noise N(0, 4), h = 0.1, 50 steps per draw, as Chen, Fox & Guestrin
  // (2014) Fig. 1 (docs/math.md). SGHMC: Euler scheme (their Alg. 2), C = 3, B̂ = V̂h/2 with V̂ = 4.
  // Histogram on 0.1-bins over [-2.5, 2.5] plus overflow; exact bin masses by quadrature.
  // "Matches": TV below the i.i.d. null level at the measured ESS + 5 null sds + 0.005 for SGHMC's
  // O(h) bias (docs/math.md: a port of the authors' code gave TV 0.0122 against a null of 0.0083).
  // "Does not match": TV above the null + 20 null sds. Catches: a missing friction or noise
  // correction (SGHMC would look like the naive sampler), a broken MH test in HMC.
  const auto P = testing::bin_probabilities([](double t) { return t * t * t * t - 2 * t * t; }, -2.5, 2.5, 50, 4.0);
  const models::WithGradientNoise<models::DoubleWell> U{{}, 2.0};
  auto tv_of = [&](auto sampler, long steps, std::uint64_t thin, double& null_mean, double& null_sd) {
    Chain chain(sampler, U, VectorXd::Zero(1), random::Stream(5, 0));
    Draws d;
    REQUIRE(chain.advance(steps, Retention{1000, thin}, d).ok());
    const std::vector<double> x(d.values.begin(), d.values.end());
    const VectorXd xv = Eigen::Map<const VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
    const double ess = std::min(diagnostics::ess_basic({xv}), diagnostics::ess_basic({VectorXd(xv.cwiseAbs())}));
    null_mean = testing::null_total_variation(P, ess);
    null_sd = testing::null_total_variation_sd(P, ess);
    return testing::total_variation(testing::bin_frequencies(x, -2.5, 2.5, 50), P);
  };
  double nm, ns;
  const double tv_sghmc = tv_of(sghmc::Sampler<Euclidean>{{Euclidean(1), sghmc::Friction(3.0), 4.0}, splitting::euler,
                                                          schedule::StepSize::constant(0.1)},
                                80000 * 50, 50, nm, ns);
  MESSAGE("SGHMC TV ", tv_sghmc, " (null ", nm, " ± ", ns, ")");
  CHECK(tv_sghmc < nm + 5 * ns + 0.005);
  const double tv_hmc = tv_of(hmc::Sampler<Euclidean>{Euclidean(1), schedule::StepSize::constant(0.1), 50, hmc::Gradient::exact, true},
                              80000, 1, nm, ns);
  MESSAGE("HMC TV ", tv_hmc, " (null ", nm, " ± ", ns, ")");
  CHECK(tv_hmc < nm + 5 * ns);  // exact: no discretisation allowance
  const double tv_naive = tv_of(hmc::Sampler<Euclidean>{Euclidean(1), schedule::StepSize::constant(0.1), 50,
                                                        hmc::Gradient::stochastic, false},
                                80000, 1, nm, ns);
  MESSAGE("naive SGHMC TV ", tv_naive, " (null ", nm, " ± ", ns, ")");
  CHECK(tv_naive > nm + 20 * ns);
  CHECK(tv_naive > 5 * tv_sghmc);
}

}  // namespace samplers_stat
