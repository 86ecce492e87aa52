// The Stein diagnostics (modules/diagnostics/stein.hpp): the IMQ Stein kernel against finite
// differences and Stein's identity, KSD on exact and wrong samples, Stein thinning on a chain with an
// unconverged start, and the configurational temperature of a sample that is too wide.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <sgmcmc/modules/diagnostics/stein.hpp>
#include <sgmcmc/modules/random/stream.hpp>

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

/// n draws of N(mean, sd²I) in d coordinates, a draw per column.
MatrixXd normal_draws(Eigen::Index d, Eigen::Index n, double mean, double sd, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  MatrixXd x(d, n);
  VectorXd z(d);
  for (Eigen::Index i = 0; i < n; ++i) {
    rng.normals(z);
    x.col(i) = (mean + sd * z.array()).matrix();
  }
  return x;
}

}  // namespace

TEST_CASE("the IMQ Stein kernel: its closed form against finite differences of k, and Stein's identity") {
  // k₀ = sᵀs' k + sᵀ∇_y k + s'ᵀ∇_x k + ∇_x·∇_y k, each term by central differences of k itself.
  // Catches a sign slip in the cross terms or in the trace (each changes k₀ by O(1) here).
  const diagnostics::ImqKernel kernel{1.3, -0.4};
  const auto k = [&](const VectorXd& x, const VectorXd& y) { return std::pow(kernel.c * kernel.c + (x - y).squaredNorm(), kernel.beta); };
  random::Stream rng(4, 0);
  for (int trial = 0; trial < 20; ++trial) {
    VectorXd x(3), y(3), sx(3), sy(3);
    rng.normals(x), rng.normals(y), rng.normals(sx), rng.normals(sy);
    const double e = 1e-4;
    VectorXd gx(3), gy(3);
    double trace = 0;
    for (int i = 0; i < 3; ++i) {
      VectorXd ei = VectorXd::Unit(3, i) * e;
      gx[i] = (k(x + ei, y) - k(x - ei, y)) / (2 * e);
      gy[i] = (k(x, y + ei) - k(x, y - ei)) / (2 * e);
      trace += (k(x + ei, y + ei) - k(x + ei, y - ei) - k(x - ei, y + ei) + k(x - ei, y - ei)) / (4 * e * e);
    }
    const double numeric = sx.dot(sy) * k(x, y) + sx.dot(gy) + sy.dot(gx) + trace;
    CHECK(diagnostics::stein_kernel(x, sx, y, sy, kernel) == doctest::Approx(numeric).epsilon(1e-6));
  }

  // Stein's identity: E_{x ~ p}[k₀(x, y)] = 0 for any fixed y when s is p's score. Over 20000 exact
  // N(0, I) draws (s(x) = −x) the average is zero within 4 standard errors; with the score of N(1, I)
  // instead it is not (the check has power).
  const MatrixXd x = normal_draws(2, 20000, 0.0, 1.0, 9);
  const VectorXd y = VectorXd::Constant(2, 0.7);
  double sum = 0, sum2 = 0, wrong = 0;
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    const double v = diagnostics::stein_kernel(x.col(i), (-x.col(i)).eval(), y, (-y).eval());
    sum += v, sum2 += v * v;
    wrong += diagnostics::stein_kernel(x.col(i), (1.0 - x.col(i).array()).matrix().eval(), y, (1.0 - y.array()).matrix().eval());
  }
  const double n = static_cast<double>(x.cols());
  const double mean = sum / n, se = std::sqrt((sum2 / n - mean * mean) / (n - 1));
  CHECK(std::abs(mean) <= 4 * se);
  CHECK(std::abs(wrong / n) > 20 * se);
}

TEST_CASE("kernel Stein discrepancy: falls like 1/√n on exact draws, stays put on a shifted sample") {
  // Catches a KSD that does not vanish on exact draws (a wrong kernel term leaves a constant floor), or
  // one blind to a shift of half an sd.
  const auto ksd_of = [](const MatrixXd& x, double target_mean) {
    const MatrixXd s = (target_mean - x.array()).matrix();  // the score of N(target_mean, I)
    return diagnostics::kernel_stein_discrepancy(x, s);
  };
  const double exact_small = ksd_of(normal_draws(3, 250, 0.0, 1.0, 1), 0.0);
  const double exact_large = ksd_of(normal_draws(3, 4000, 0.0, 1.0, 2), 0.0);
  const double shifted = ksd_of(normal_draws(3, 4000, 0.5, 1.0, 3), 0.0);
  MESSAGE("KSD: exact n = 250 ", exact_small, ", exact n = 4000 ", exact_large, ", shifted by 0.5 ", shifted);
  CHECK(exact_large < exact_small / 2.5);  // √16 = 4 expected; 2.5 leaves room for the draws' spread
  CHECK(shifted > 4 * exact_large);
  // Symmetric in the order of the draws, and a draw repeated twice counts twice.
  MatrixXd x = normal_draws(2, 50, 0.0, 1.0, 5);
  const double forward = ksd_of(x, 0.0);
  CHECK(ksd_of(x.rowwise().reverse(), 0.0) == doctest::Approx(forward).epsilon(1e-12));
  CHECK_THROWS_AS(diagnostics::kernel_stein_discrepancy(x, MatrixXd(3, 50)), Error);
  CHECK_THROWS_AS(diagnostics::kernel_stein_discrepancy(x, -x, {1.0, 0.5}), Error);
}

TEST_CASE("Stein thinning: leaves out an unconverged start and beats taking every k-th draw") {
  // A chain's first 100 draws sit around 4 (not yet converged), the next 400 are exact N(0, I) draws.
  // Thinned to 20, Stein thinning picks none of the first 100 and has a smaller KSD than every 25th
  // draw. Catches a greedy step that adds k₀ with the wrong sign (it would pick far-apart, off-target
  // draws), or one that ignores the scores (it would keep the unconverged start as much as any draw).
  MatrixXd x(2, 500);
  x.leftCols(100) = normal_draws(2, 100, 4.0, 0.3, 7);
  x.rightCols(400) = normal_draws(2, 400, 0.0, 1.0, 8);
  const MatrixXd s = -x;
  const auto picked = diagnostics::stein_thin(x, s, 20);
  REQUIRE(picked.size() == 20);
  for (auto i : picked) CHECK(i >= 100);
  // The first pick minimises k₀(x, x)/2 = (‖s‖² + d)/2 (c = 1, β = −1/2): the draw nearest the mode.
  Eigen::Index nearest = 0;
  x.colwise().squaredNorm().minCoeff(&nearest);
  CHECK(picked[0] == nearest);
  MatrixXd thinned(2, 20), regular(2, 20);
  for (int j = 0; j < 20; ++j) thinned.col(j) = x.col(picked[static_cast<std::size_t>(j)]), regular.col(j) = x.col(25 * j);
  const double ksd_thinned = diagnostics::kernel_stein_discrepancy(thinned, -thinned);
  const double ksd_regular = diagnostics::kernel_stein_discrepancy(regular, -regular);
  MESSAGE("KSD of 20 draws: Stein-thinned ", ksd_thinned, ", every 25th ", ksd_regular);
  CHECK(ksd_thinned < ksd_regular);
}

TEST_CASE("configurational temperature: 1 on exact draws, σ² on draws σ times too wide") {
  // T_conf = ⟨(x − x̄)ᵀ∇U⟩/d for N(0, I) on draws of N(0, σ²I) is σ² (its estimator's sd is
  // σ²√(2/(nd)); 4 of them allowed). Catches a sign slip (−σ²) or a missing 1/d.
  const Eigen::Index d = 3, n = 4000;
  for (double sd : {1.0, 1.3}) {
    CAPTURE(sd);
    const MatrixXd x = normal_draws(d, n, 2.0, sd, 12);
    const MatrixXd s = (2.0 - x.array()).matrix();  // N(2, I)'s score
    const double t = diagnostics::configurational_temperature(x, s);
    const double tolerance = 4 * sd * sd * std::sqrt(2.0 / static_cast<double>(n * d));
    CHECK(std::abs(t - sd * sd) <= tolerance);
  }
}
