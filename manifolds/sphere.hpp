#pragma once
// The unit sphere S^{n-1} = {x ∈ R^n : ‖x‖ = 1} with the metric of R^n (DESIGN.md §4.3, MATH.md §1.2).
// Geodesics are great circles; the flow is the closed form of Byrne & Girolami (2013, hypersphere
// section) used by SGGMC (Liu, Zhu & Song 2016), written so that v = 0 is not a 0/0 and with drift control.
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

struct Sphere {
  using Point = Eigen::VectorXd;
  Eigen::Index n = 2;  ///< points live in R^n; the manifold is S^{n-1}, of dimension n - 1

  Sphere() = default;
  explicit Sphere(Eigen::Index dim) : n(dim) { require(dim >= 2, "sphere: n must be at least 2"); }

  Eigen::Index ambient_size() const { return n; }
  Eigen::Index intrinsic_dim() const { return n - 1; }

  /// v <- v - x(xᵀv): the orthogonal projector onto T_x S^{n-1} = x^⊥.
  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const { v -= x.dot(v) * x; }

  /// Great-circle flow for time t (MATH.md §1.2), with α = ‖v‖:
  ///   x(t) = cos(αt) x + (sin(αt)/α) v,   v(t) = -α sin(αt) x + cos(αt) v.
  /// Requires v tangent at x. Returns 0: the sphere has no boundary.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    const double alpha = v.norm();
    const double angle = alpha * t;
    const double c = std::cos(angle);
    // sin(αt)/α as t·sinc(αt): the quotient is 0/0 at v = 0 (the SGGMC authors' code returns NaN there),
    // and below |αt| = 1e-4 the Taylor form t(1 - (αt)²/6) is exact to rounding (next term (αt)⁴/120).
    const double s = std::abs(angle) < 1e-4 ? t * (1.0 - angle * angle / 6.0) : std::sin(angle) / alpha;
    const double alpha_sin = alpha * alpha * s;  // α sin(αt), finite at α = 0
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double xi = x[i];
      const double vi = v[i];
      x[i] = c * xi + s * vi;
      v[i] = c * vi - alpha_sin * xi;
    }
    // Drift control: rounding moves x off the sphere and v off x^⊥ as a random walk of ~1e-16 per
    // step; renormalising and re-projecting keeps both at rounding level over millions of flows.
    x /= x.norm();
    v -= x.dot(v) * x;
    return 0;
  }

  /// |‖x‖ - 1|; infinite for a vector of the wrong size or with non-finite entries.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != n || !x.allFinite()) return std::numeric_limits<double>::infinity();
    return std::abs(x.norm() - 1.0);
  }

  /// A uniform point: z/‖z‖ with z ~ N(0, I_n) (rotation invariance of the Gaussian); z = 0 is redrawn.
  template <class R>
  Point random_point(R& rng) const {
    Point x(n);
    double r = 0.0;
    do {
      rng.normals(x);
      r = x.norm();
    } while (!(r > 0.0));
    x /= r;
    return x;
  }
};

static_assert(Manifold<Sphere>);

}  // namespace sgmcmc
