#pragma once
// A box B = {x ∈ R^n : l_i ≤ x_i ≤ u_i} with the metric of R^n, each bound finite or infinite: lower and
// upper bounds on parameters (Stan's <lower=0>, <lower=0, upper=1>) as a manifold with boundary
// (docs/manifolds.md#box). A density on R^n restricted to B — a truncated Gaussian, exp(bᵀx) on [0, 1]^n
// — is sampled with the restriction built into the flow, not as a barrier in U.
//
// Geodesics are straight lines specularly reflected at the faces: the billiard flow of reflective HMC
// (Pakman & Paninski 2014, §2.2; Neal 2011 §5.1), which preserves volume and ‖v‖ and is time-reversible,
// so the geodesic samplers' sub-steps keep the restricted law invariant (as on the simplex). In a box
// the faces are orthogonal to the axes, so the flow is coordinatewise: each coordinate's straight path
// x_i + t v_i folded into [l_i, u_i] (period 2(u_i − l_i)), v_i reversed once per face hit — a closed
// form, without the simplex's event loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

struct Box {
  using Point = Eigen::VectorXd;
  Eigen::VectorXd lower, upper;  ///< l and u, entries ±infinity where a coordinate is unbounded

  Box() = default;
  /// The box [lower_i, upper_i]; requires lower_i < upper_i, neither NaN, lower_i < +∞ and upper_i > −∞.
  Box(Eigen::VectorXd lo, Eigen::VectorXd hi) : lower(std::move(lo)), upper(std::move(hi)) {
    require(lower.size() >= 1 && lower.size() == upper.size(), "box: lower and upper need the same number (>= 1) of bounds");
    for (Eigen::Index i = 0; i < lower.size(); ++i)
      if (!(lower[i] < upper[i]) || lower[i] == std::numeric_limits<double>::infinity() ||
          upper[i] == -std::numeric_limits<double>::infinity())
        fail("box: coordinate {} needs lower < upper (lower {}, upper {})", i, lower[i], upper[i]);
  }
  /// The same bounds [lo, hi] on each of n coordinates.
  Box(Eigen::Index n, double lo, double hi)
      : Box(Eigen::VectorXd::Constant(std::max<Eigen::Index>(n, 1), lo), Eigen::VectorXd::Constant(std::max<Eigen::Index>(n, 1), hi)) {}

  Eigen::Index ambient_size() const { return lower.size(); }
  Eigen::Index intrinsic_dim() const { return lower.size(); }
  /// Every bound finite: B has finite volume and a uniform law.
  bool compact() const { return lower.allFinite() && upper.allFinite(); }

  /// The tangent space is R^n at every point (at a face too: the reflections, not the projection, keep x
  /// inside), so Λ(x) = I.
  void project(Eigen::Ref<const Eigen::VectorXd> /*x*/, Eigen::Ref<Eigen::VectorXd> /*v*/) const {}

  /// The billiard flow for time t (t < 0 runs it backwards): per coordinate, y = x_i − l_i + t v_i
  /// folded into [0, w], w = u_i − l_i. With k = ⌊y / w⌋ face hits (|k| of them, k < 0 below l_i), x_i =
  /// l_i + (y − k w) and v_i kept for even k, x_i = u_i − (y − k w) and v_i reversed for odd k. A
  /// one-sided coordinate reflects at most once; a free one moves straight. Returns the face hits.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    std::uint64_t hits = 0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double l = lower[i], u = upper[i], z = x[i] + t * v[i];
      if (std::isfinite(l) && std::isfinite(u)) {
        const double w = u - l, y = x[i] - l + t * v[i];
        const double k = std::floor(y / w);
        const double r = std::clamp(y - k * w, 0.0, w);  // rounding may leave y − k·w a hair outside [0, w]
        const bool odd = std::fmod(std::abs(k), 2.0) == 1.0;
        x[i] = odd ? u - r : l + r;
        if (odd) v[i] = -v[i];
        hits += static_cast<std::uint64_t>(std::min(std::abs(k), 1e18));
      } else if (z < l) {  // only a lower face
        x[i] = l + (l - z);
        v[i] = -v[i];
        ++hits;
      } else if (z > u) {  // only an upper face
        x[i] = u - (z - u);
        v[i] = -v[i];
        ++hits;
      } else {
        x[i] = z;
      }
    }
    return hits;
  }

  /// How far x lies outside B (0 inside); infinite for a vector of the wrong size or with non-finite
  /// entries.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != lower.size() || !x.allFinite()) return std::numeric_limits<double>::infinity();
    return ((lower - x).cwiseMax(0.0) + (x - upper).cwiseMax(0.0)).norm();
  }

  /// A point of B: uniform on a bounded coordinate, l_i + |z| or u_i − |z| (z ~ N(0, 1)) on a one-sided
  /// one, z on a free one — uniform on B when B is compact.
  template <class R>
  Point random_point(R& rng) const {
    Point x(lower.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double l = lower[i], u = upper[i];
      if (std::isfinite(l) && std::isfinite(u)) x[i] = std::clamp(l + (u - l) * rng.uniform(), l, u);
      else if (std::isfinite(l)) x[i] = l + std::abs(rng.normal());
      else if (std::isfinite(u)) x[i] = u - std::abs(rng.normal());
      else x[i] = rng.normal();
    }
    return x;
  }
};

static_assert(BlockManifold<Box>);

}  // namespace sgmcmc
