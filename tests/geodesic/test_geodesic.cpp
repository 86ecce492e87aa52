// Fast unit checks of the geodesic samplers (issue #5, item 7): on Euclidean space each geodesic
// sampler is its flat textbook sampler, step for step from the same seed. Λ = I and the flow is the
// straight line there, so any difference is a bug in the shared split machinery (a sub-step in the wrong
// order, a thermostat update misplaced, a noise draw consumed in another order). The statistical tests
// are in geodesic_stat.cpp.
#include <doctest/doctest.h>

#include <cmath>

#include <Eigen/Core>

#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {
// A non-quadratic potential U = Σ (x_i⁴/4 - x_i²/2) + x₀x₁, so the gradient depends on every coordinate.
struct Quartic {
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R&) const {
    g = x.array().cube() - x.array();
    g[0] += x[1];
    g[1] += x[0];
  }
};
}  // namespace

TEST_CASE("gSGNHT on Euclidean is SGNHT-ABOBA, step for step") {
  // Hand-written from docs/math.md: A(h/2): x += (h/2)v, ξ += (vᵀv/d - 1)h/2; B(h/2): v *= e^{-ξh/2};
  // O(h): v += -h∇U(x) + sqrt(2Ah) ζ; B(h/2); A(h/2). Catches: the thermostat updated outside A, divided
  // by the wrong dimension, or damping with a stale ξ; the noise variance not 2Ah.
  const int d = 4;
  const double h = 0.05, A = 1.7;
  const sgnht::Sampler<Euclidean> smp{{Euclidean(d), A, 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  random::Stream rng(11, 2);
  auto s = smp.init(VectorXd::LinSpaced(d, -1, 1), rng);
  VectorXd x = s.x, v = s.v, g(d), z(d);
  double xi = s.xi;
  CHECK(xi == A);
  random::Stream rng2 = rng;
  const Quartic U;
  for (int k = 0; k < 200; ++k) {
    smp.step(s, U, rng, static_cast<std::uint64_t>(k));
    x += 0.5 * h * v;
    xi += (v.squaredNorm() / d - 1.0) * 0.5 * h;
    v *= std::exp(-xi * 0.5 * h);
    U.gradient(x, g, rng2);
    rng2.normals(z);
    v += -h * g + std::sqrt(2 * A * h) * z;
    v *= std::exp(-xi * 0.5 * h);
    x += 0.5 * h * v;
    xi += (v.squaredNorm() / d - 1.0) * 0.5 * h;
  }
  CHECK((s.x - x).norm() < 1e-12);
  CHECK((s.v - v).norm() < 1e-12);
  CHECK(std::abs(s.xi - xi) < 1e-12);
}

TEST_CASE("geodesic SGLD on Euclidean is x <- x - h∇U + sqrt(2h) ζ") {
  // Catches: a flow for time h instead of 1 on the tangent step w, a missing factor 2 in the noise, a
  // gradient step of the wrong sign, a projection that is not the identity on R^n.
  const int d = 3;
  const double h = 0.01;
  const sgld::Sampler<Euclidean> smp{Euclidean(d), schedule::StepSize::constant(h), 0.0};
  random::Stream rng(12, 0);
  auto s = smp.init(VectorXd{{0.5, -0.3, 1.2}}, rng);
  VectorXd x = s.x, g(d), z(d);
  random::Stream rng2 = rng;
  const Quartic U;
  for (int k = 0; k < 500; ++k) {
    smp.step(s, U, rng, static_cast<std::uint64_t>(k));
    U.gradient(x, g, rng2);
    rng2.normals(z);
    x += -h * g + std::sqrt(2 * h) * z;
  }
  CHECK((s.x - x).norm() < 1e-12);
}

TEST_CASE("SGGMC on DynamicProduct({Euclidean(d)}) equals SGGMC on Euclidean(d)") {
  // The Euclidean sampler takes the fused flat path; the product goes through the generic sub-step walk
  // with one std::visit per factor. Catches: a product that offsets, projects or flows a block wrongly,
  // a fused path that diverges from the sub-step walk, a friction or V̂ lost on one of the two paths.
  const int d = 5;
  const double h = 0.07, C = 1.3, V = 2.0;
  const sghmc::Sampler<Euclidean> flat{{Euclidean(d), sghmc::Friction(C), V}, splitting::aboba, schedule::StepSize::constant(h)};
  const sghmc::Sampler<DynamicProduct> prod{{DynamicProduct({Euclidean(d)}), sghmc::Friction(C), V}, splitting::aboba,
                                            schedule::StepSize::constant(h)};
  random::Stream r1(13, 1), r2(13, 1);
  const VectorXd x0 = VectorXd::LinSpaced(d, -2, 2);
  auto s1 = flat.init(x0, r1);
  auto s2 = prod.init(x0, r2);
  REQUIRE((s1.v - s2.v).norm() == 0.0);
  const Quartic U;
  for (int k = 0; k < 300; ++k) {
    flat.step(s1, U, r1, static_cast<std::uint64_t>(k));
    prod.step(s2, U, r2, static_cast<std::uint64_t>(k));
  }
  CHECK((s1.x - s2.x).norm() < 1e-12);
  CHECK((s1.v - s2.v).norm() < 1e-12);
  CHECK(s1.gradient_evals == s2.gradient_evals);
  // And both equal the textbook SGHMC-ABOBA loop (tests/core/test_substeps.cpp's form), with V̂.
  random::Stream r3(13, 1);
  auto s3 = flat.init(x0, r3);
  VectorXd x = s3.x, v = s3.v, g(d), z(d);
  for (int k = 0; k < 300; ++k) {
    x += 0.5 * h * v;
    v *= std::exp(-C * h / 2);
    U.gradient(x, g, r3);
    r3.normals(z);
    v += -h * g + std::sqrt(2 * C * h - V * h * h) * z;
    v *= std::exp(-C * h / 2);
    x += 0.5 * h * v;
  }
  CHECK((s1.x - x).norm() < 1e-12);
  CHECK((s1.v - v).norm() < 1e-12);
}
