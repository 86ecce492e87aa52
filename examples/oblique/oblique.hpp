#pragma once
// A user-defined manifold in one header: the oblique manifold OB(n, k) = {X ∈ R^{n×k} : ‖x_j‖ = 1 for
// every column}, the n×k matrices with unit-norm columns (Absil & Gallivan 2006), with the metric of
// R^{n×k}. It is written from scratch, using only the library's concept, to show what adding a manifold
// takes (docs/extending.md); tests/manifolds/test_manifolds.cpp runs the conformance kit on it.
//
// Everything is columnwise, since OB(n, k) is the product of k spheres S^{n-1}:
//   Λ(X)V = V - X diag(XᵀV);  each column flows on its great circle with its own speed α_j = ‖v_j‖.
// (sgmcmc::Power<sgmcmc::Sphere> is the library's ready-made equivalent.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace oblique {

struct Oblique {
  using Point = Eigen::VectorXd;  // the n×k matrix, flattened column-major (the library's convention)
  Eigen::Index n = 2, k = 1;

  Oblique() = default;
  Oblique(Eigen::Index rows, Eigen::Index cols) : n(rows), k(cols) {
    sgmcmc::require(rows >= 2, "oblique: n must be at least 2");
    sgmcmc::require(cols >= 1, "oblique: k must be at least 1");
  }

  Eigen::Index ambient_size() const { return n * k; }
  Eigen::Index intrinsic_dim() const { return (n - 1) * k; }

  // Eigen::Ref parameters (not Point&) so that the manifold also works as a block of a product.
  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    for (Eigen::Index j = 0; j < k; ++j) {
      const auto xj = x.segment(j * n, n);
      auto vj = v.segment(j * n, n);
      vj -= xj.dot(vj) * xj;
    }
  }

  // Great circle per column: x cos αt + v sin(αt)/α, v cos αt - x α sin αt (Byrne & Girolami 2013).
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    for (Eigen::Index j = 0; j < k; ++j) {
      auto xj = x.segment(j * n, n);
      auto vj = v.segment(j * n, n);
      const double a = vj.norm(), at = a * t;
      const double c = std::cos(at);
      const double s = std::abs(at) < 1e-4 ? t * (1.0 - at * at / 6.0) : std::sin(at) / a;  // no 0/0 at v = 0
      const Eigen::VectorXd x0 = xj;  // small copy: readable beats allocation-free in an example
      xj = c * x0 + s * vj;
      vj = c * vj - (a * a * s) * x0;
      xj /= xj.norm();             // drift control: back onto the sphere ...
      vj -= xj.dot(vj) * xj;       // ... and back into its tangent space
    }
    return 0;  // no boundary, no reflections
  }

  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != n * k || !x.allFinite()) return std::numeric_limits<double>::infinity();
    double d = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) d = std::max(d, std::abs(x.segment(j * n, n).norm() - 1.0));
    return d;
  }

  // Uniform: each column an independent normalised Gaussian.
  template <class R>
  Point random_point(R& rng) const {
    Point x(n * k);
    rng.normals(x);
    for (Eigen::Index j = 0; j < k; ++j) x.segment(j * n, n).normalize();
    return x;
  }
};

static_assert(sgmcmc::Manifold<Oblique>);

}  // namespace oblique
