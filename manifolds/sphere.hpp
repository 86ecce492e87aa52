#pragma once
// The unit sphere S^{n-1} = {x ∈ R^n : ‖x‖ = 1} with the metric of R^n (docs/math.md#sphere).
// Geodesics are great circles; the flow is the closed form of Byrne & Girolami (2013, hypersphere
// section) used by SGGMC (Liu, Zhu & Song 2016), written so that v = 0 is not a 0/0 and with drift control.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/manifolds/detail/sphere_kernels.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

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
    detail::sphere::dispatch_project(x.data(), v.data(), x.size());
  }

  /// Great-circle flow for time t (docs/math.md#sphere), with α = ‖v‖:
  ///   x(t) = cos(αt) x + (sin(αt)/α) v,   v(t) = -α sin(αt) x + cos(αt) v.
  /// Requires v tangent at x. Returns 0: the sphere has no boundary.
  ///
  /// Two sweeps over x and v (docs/benchmarks.md, "Geodesic"): ‖v‖²; the rotation, measuring the drift
  /// ‖x(t)‖², x(t)ᵀv(t) on the way; a third, the drift control, only when that drift shows.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    correct_drift(x, v, detail::sphere::dispatch_flow(x.data(), v.data(), x.size(), t));
    return 0;
  }

  /// The fused sweep (ManifoldWithFusedSweep): flow(t1) (skipped when t1 = 0), kick, project, flow(t2)
  /// in two sweeps after the first flow instead of four (detail::sphere::flow_kicked): the kick is
  /// folded into the sweep that measures ‖x‖², xᵀv and ‖v‖², the projection into the rotation. The
  /// first flow stays on its own: its drift correction may move x, which the kick reads. The projected
  /// speed is computed as ‖v‖² - a²(2 - ‖x‖²), algebraically equal to ‖Λv‖², so the result differs from
  /// the plain sequence's by rounding only (the conformance kit's law checks it to 1e-14 per radian turned).
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
    if (t1 != 0.0) flow(x, v, t1);
    correct_drift(x, v, detail::sphere::dispatch_flow_kicked(x.data(), v.data(), x.size(), t2, kick));
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

 private:
  // Drift control: rounding moves x off the sphere and v off x^⊥ as a random walk of ~1e-16 per
  // step; renormalising and re-projecting keeps both at rounding level over millions of flows.
  // The rotation sweep measured both drifts (f.xx = ‖x‖², f.xv = xᵀv) for free: the correcting sweep
  // runs only once they exceed 1e-12, so the drift stays bounded at that level (tests require 1e-10
  // over 10⁶ steps) and most flows make two sweeps, not three. (x/r)ᵀv = xᵀv/r.
  static void correct_drift(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v,
                            const detail::sphere::Flowed& f) {
    if (std::abs(f.xx - 1.0) <= kDriftTolerance && std::abs(f.xv) <= kDriftTolerance * (1.0 + f.alpha)) return;
    const double inv_r = 1.0 / std::sqrt(f.xx);
    const double w = f.xv * inv_r;
    double* __restrict xp = x.data();
    double* __restrict vp = v.data();
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double xn = xp[i] * inv_r;
      xp[i] = xn;
      vp[i] -= w * xn;
    }
  }
};

static_assert(ManifoldWithFusedSweep<Sphere>);

}  // namespace sgmcmc
