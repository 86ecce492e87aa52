#pragma once
// The unit sphere S^{n-1} = {x ∈ R^n : ‖x‖ = 1} with the metric of R^n (DESIGN.md §4.3, MATH.md §1.2).
// Geodesics are great circles; the flow is the closed form of Byrne & Girolami (2013, hypersphere
// section) used by SGGMC (Liu, Zhu & Song 2016), written so that v = 0 is not a 0/0 and with drift control.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

namespace detail::sphere {
// Sweeps for the sphere with running sums in independent chains: one running sum is bound by the
// latency of an add (~4 cycles per coordinate), so a flow with three of them took 1.5 ns per
// coordinate. Eight sums are kept as four two-lane vectors (GCC/Clang vector extensions, SSE2 on
// x86-64), each element operation IEEE-rounded and the lanes added in a fixed order at the end: the
// result does not depend on the instruction set. Loads and stores go through memcpy (unaligned).
using Lanes = double __attribute__((vector_size(16)));
inline Lanes load(const double* p) {
  Lanes r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
inline void store(double* p, Lanes r) { std::memcpy(p, &r, sizeof r); }
inline double total(const Lanes (&a)[4]) {
  const Lanes s = (a[0] + a[2]) + (a[1] + a[3]);
  return s[0] + s[1];
}
/// Σ a_i b_i.
inline double dot(const double* a, const double* b, Eigen::Index size) {
  Lanes acc[4] = {};
  Eigen::Index i = 0;
  for (; i + 8 <= size; i += 8)
    for (int j = 0; j < 4; ++j) acc[j] += load(a + i + 2 * j) * load(b + i + 2 * j);
  double r = total(acc);
  for (; i < size; ++i) r += a[i] * b[i];
  return r;
}
/// x <- c x + s v, v <- c v - q x (a rotation in the plane of x and v); returns ‖x‖², xᵀv after it.
inline std::pair<double, double> rotate(double* __restrict x, double* __restrict v, Eigen::Index size, double c, double s,
                                        double q) {
  const Lanes cc = {c, c}, ss = {s, s}, qq = {q, q};
  Lanes xx[4] = {}, xv[4] = {};
  Eigen::Index i = 0;
  for (; i + 8 <= size; i += 8)
    for (int j = 0; j < 4; ++j) {
      const Lanes xi = load(x + i + 2 * j), vi = load(v + i + 2 * j);
      const Lanes xn = cc * xi + ss * vi, vn = cc * vi - qq * xi;
      store(x + i + 2 * j, xn);
      store(v + i + 2 * j, vn);
      xx[j] += xn * xn;
      xv[j] += xn * vn;
    }
  double sxx = total(xx), sxv = total(xv);
  for (; i < size; ++i) {
    const double xi = x[i], vi = v[i];
    const double xn = c * xi + s * vi, vn = c * vi - q * xi;
    x[i] = xn, v[i] = vn;
    sxx += xn * xn, sxv += xn * vn;
  }
  return {sxx, sxv};
}
}  // namespace detail::sphere

struct Sphere {
  using Point = Eigen::VectorXd;
  Eigen::Index n = 2;  ///< points live in R^n; the manifold is S^{n-1}, of dimension n - 1
  static constexpr double kDriftTolerance = 1e-12;  ///< |‖x‖² - 1| and |xᵀv| tolerated before a flow corrects them

  Sphere() = default;
  explicit Sphere(Eigen::Index dim) : n(dim) { require(dim >= 2, "sphere: n must be at least 2"); }

  Eigen::Index ambient_size() const { return n; }
  Eigen::Index intrinsic_dim() const { return n - 1; }

  /// v <- v - x(xᵀv): the orthogonal projector onto T_x S^{n-1} = x^⊥.
  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    const double xv = detail::sphere::dot(x.data(), v.data(), x.size());
    double* __restrict vp = v.data();
    const double* __restrict xp = x.data();
    for (Eigen::Index i = 0; i < x.size(); ++i) vp[i] -= xv * xp[i];
  }

  /// Great-circle flow for time t (MATH.md §1.2), with α = ‖v‖:
  ///   x(t) = cos(αt) x + (sin(αt)/α) v,   v(t) = -α sin(αt) x + cos(αt) v.
  /// Requires v tangent at x. Returns 0: the sphere has no boundary.
  ///
  /// Three sweeps over x and v (docs/benchmarks.md, "Geodesic"): ‖v‖²; the rotation, accumulating
  /// ‖x(t)‖² and x(t)ᵀv(t) on the way; then the drift control x <- x/‖x‖, v <- v - (xᵀv)x with both
  /// scalars known from the second sweep ((x/r)ᵀv = xᵀv/r). Before: six sweeps, three of them sums
  /// bound by the add latency, and a division per coordinate.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    const Eigen::Index size = x.size();
    double* __restrict xp = x.data();
    double* __restrict vp = v.data();
    const double alpha = std::sqrt(detail::sphere::dot(vp, vp, size));
    const double angle = alpha * t;
    const double c = std::cos(angle);
    // sin(αt)/α as t·sinc(αt): the quotient is 0/0 at v = 0 (the SGGMC authors' code returns NaN there),
    // and below |αt| = 1e-4 the Taylor form t(1 - (αt)²/6) is exact to rounding (next term (αt)⁴/120).
    const double s = std::abs(angle) < 1e-4 ? t * (1.0 - angle * angle / 6.0) : std::sin(angle) / alpha;
    const double alpha_sin = alpha * alpha * s;  // α sin(αt), finite at α = 0
    const auto [xx, xv] = detail::sphere::rotate(xp, vp, size, c, s, alpha_sin);
    // Drift control: rounding moves x off the sphere and v off x^⊥ as a random walk of ~1e-16 per
    // step; renormalising and re-projecting keeps both at rounding level over millions of flows.
    // The rotation sweep measured both drifts for free: the correcting sweep runs only once they exceed
    // 1e-12, so the drift stays bounded at that level (tests require 1e-10 over 10⁶ steps) and most
    // flows make two sweeps, not three.
    if (std::abs(xx - 1.0) <= kDriftTolerance && std::abs(xv) <= kDriftTolerance * (1.0 + alpha)) return 0;
    const double inv_r = 1.0 / std::sqrt(xx);
    const double w = xv * inv_r;  // (x/r)ᵀv
    for (Eigen::Index i = 0; i < size; ++i) {
      const double xn = xp[i] * inv_r;
      xp[i] = xn;
      vp[i] -= w * xn;
    }
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
