// Statistical tests of the manifolds: the conformance kit's uniform law (GMC on U = 0 preserves the law
// of random_point) on every compact manifold, and the exact uniform moments of random_point
// (docs/math.md#uniform-on-the-sphere, #simplex-targets, #stiefel-targets), each within 5 Monte Carlo
// standard errors.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <Eigen/QR>

#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/modules/conformance/doctest.hpp>
#include <sgmcmc/modules/random/stream.hpp>

#include "../../examples/oblique/oblique.hpp"

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {
// Plain Householder QR without the sign fix: a near miss whose random_point is not Haar.
struct PlainQrStiefel : Stiefel {
  using Stiefel::Stiefel;
  template <class R>
  Point random_point(R& rng) const {
    Eigen::MatrixXd z(n, p);
    rng.normals(Eigen::Map<VectorXd>(z.data(), n * p));
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(z);
    const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, p);
    return Eigen::Map<const VectorXd>(q.data(), n * p);
  }
};

// Mean of f over `draws` random points and its standard error.
template <class M, class F>
std::pair<double, double> mc_mean(const M& m, F f, int draws, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  double s = 0, s2 = 0;
  for (int i = 0; i < draws; ++i) {
    const double y = f(m.random_point(rng));
    s += y;
    s2 += y * y;
  }
  const double mean = s / draws;
  return {mean, std::sqrt((s2 / draws - mean * mean) / (draws - 1))};
}
#define CHECK_MOMENT(est, exact)                                                                  \
  do {                                                                                            \
    const auto [mean_, se_] = (est);                                                              \
    INFO("estimate " << mean_ << " ± " << se_ << ", exact " << (exact));                          \
    CHECK(std::abs(mean_ - (exact)) < 5 * se_);                                                   \
  } while (0)
}  // namespace

TEST_CASE("GMC on the uniform target preserves the uniform law of every compact manifold") {
  // Catches: a flow that is not measure-preserving (a wrong reflection, a retraction, a Stiefel flow
  // with a wrong block), or a random_point that is not uniform — either makes the chain's E[x], E[xxᵀ]
  // differ from the i.i.d. draws'. Sphere n = 2 and simplex K = 2 test the smallest cases.
  std::uint64_t seed = 100;
  conformance::check_uniform_law(Sphere{2}, seed++);
  conformance::check_uniform_law(Sphere{3}, seed++);
  conformance::check_uniform_law(Sphere{10}, seed++);
  conformance::check_uniform_law(Simplex{2}, seed++);
  conformance::check_uniform_law(Simplex{4}, seed++);
  conformance::check_uniform_law(Simplex{10}, seed++);
  conformance::check_uniform_law(Stiefel{5, 3}, seed++);
  conformance::check_uniform_law(Stiefel{3, 3}, seed++);
  conformance::check_uniform_law(Stiefel{10, 3}, seed++);
  conformance::check_uniform_law(Product<Sphere, Sphere>{Sphere{2}, Sphere{2}}, seed++);
  conformance::check_uniform_law(Product<Sphere, Simplex>{Sphere{3}, Simplex{3}}, seed++);
  conformance::check_uniform_law(Power{Sphere{3}, 4}, seed++);
  conformance::check_uniform_law(DynamicProduct({Sphere{3}, Simplex{4}, Stiefel{4, 2}}), seed++);
  conformance::check_uniform_law(oblique::Oblique{3, 4}, seed++);
}

TEST_CASE("the uniform law rejects a non-Haar random_point") {
  // Catches: a uniform law that cannot see a wrong reference. Plain QR has E[X_11] ≈ -0.36 for (5, 3)
  // while GMC converges to Haar (E[X_11] = 0), so the first-moment law must fail.
  conformance::UniformLawOptions o;
  o.steps = 3000;
  o.reference = 5000;
  const auto r = conformance::uniform_law(PlainQrStiefel{5, 3}, 7, o);
  INFO(r.summary());
  REQUIRE(r.find("GMC on U = 0 preserves E[x] of random_point") != nullptr);
  CHECK(!r.find("GMC on U = 0 preserves E[x] of random_point")->passed);
  CHECK(r.find("GMC on U = 0 accepts every proposal")->passed);  // the flow itself is fine
}

TEST_CASE("uniform moments of random_point") {
  // Catches: a biased uniform sampler (Dirichlet not from Exp(1) draws, a sphere point from a
  // non-Gaussian vector, Stiefel without the QR sign fix), against exact moments of the uniform laws.
  const int draws = 200000;
  SUBCASE("sphere: E[x] = 0, E[x₁²] = 1/n, E[x₁⁴] = 3/(n(n+2))") {
    for (const int n : {2, 3, 7}) {
      const Sphere s{n};
      CHECK_MOMENT(mc_mean(s, [](const VectorXd& x) { return x[0]; }, draws, 1), 0.0);
      CHECK_MOMENT(mc_mean(s, [](const VectorXd& x) { return x[0] * x[0]; }, draws, 2), 1.0 / n);
      CHECK_MOMENT(mc_mean(s, [](const VectorXd& x) { return std::pow(x[0], 4); }, draws, 3), 3.0 / (n * (n + 2.0)));
    }
  }
  SUBCASE("simplex: E x_i = 1/K, Var x_i = (K-1)/(K²(K+1)), Cov = -1/(K²(K+1))") {
    for (const int k : {2, 4, 10}) {
      const Simplex sx{k};
      const double kk = k;
      CHECK_MOMENT(mc_mean(sx, [](const VectorXd& x) { return x[0]; }, draws, 4), 1.0 / kk);
      CHECK_MOMENT(mc_mean(sx, [&](const VectorXd& x) { return (x[k - 1] - 1 / kk) * (x[k - 1] - 1 / kk); }, draws, 5),
                   (kk - 1) / (kk * kk * (kk + 1)));
      CHECK_MOMENT(mc_mean(sx, [&](const VectorXd& x) { return (x[0] - 1 / kk) * (x[1] - 1 / kk); }, draws, 6),
                   -1 / (kk * kk * (kk + 1)));
    }
  }
  SUBCASE("Stiefel (Haar): E[XXᵀ] = (p/n)I, E[X_ij⁴] = 3/(n(n+2)), E[X_i1²X_i2²] = 1/(n(n+2))") {
    const int n = 5, p = 3;
    const Stiefel st{n, p};
    const double nn = n;
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) { return st.const_matrix(x)(1, 2); }, draws, 7), 0.0);
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) { return (st.const_matrix(x) * st.const_matrix(x).transpose())(3, 3); },
                         draws, 8),
                 double(p) / n);
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) { return (st.const_matrix(x) * st.const_matrix(x).transpose())(0, 4); },
                         draws, 9),
                 0.0);
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) { return std::pow(st.const_matrix(x)(2, 1), 4); }, draws, 10),
                 3 / (nn * (nn + 2)));
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) {
                   const auto X = st.const_matrix(x);
                   return X(4, 0) * X(4, 0) * X(4, 2) * X(4, 2);
                 }, draws, 11),
                 1 / (nn * (nn + 2)));
    CHECK_MOMENT(mc_mean(st, [&](const VectorXd& x) {
                   const auto X = st.const_matrix(x);
                   return X(0, 0) * X(0, 0) * X(1, 1) * X(1, 1);
                 }, draws, 12),
                 (nn + 1) / (nn * (nn - 1) * (nn + 2)));
  }
}

TEST_CASE("Stiefel V_{10,3}: 10⁶ random-velocity flows stay on the manifold") {
  // Catches: slow drift of XᵀX away from I that 10⁵ flows (the unit test) might not show: the polar
  // re-orthonormalisation must hold ‖XᵀX - I‖ at rounding level indefinitely (docs/math.md#stiefel).
  const Stiefel st{10, 3};
  random::Stream rng(20, 0);
  VectorXd x = st.random_point(rng), v(30);
  double worst = 0;
  for (int i = 0; i < 1000000; ++i) {
    rng.normals(v);
    st.project(x, v);
    st.flow(x, v, 0.1);
    if (i % 1000 == 0) worst = std::max(worst, st.distance_to(x));
  }
  worst = std::max(worst, st.distance_to(x));
  CHECK(worst < 1e-10);
  CHECK(worst < 1e-13);
}
