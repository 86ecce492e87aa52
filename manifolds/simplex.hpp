#pragma once
// The probability simplex Δ^{K-1} = {x ∈ R^K : x_i ≥ 0, Σ x_i = 1} (docs/math.md#simplex).
// A flat manifold with boundary: geodesics are straight lines in the hyperplane Σx = 1, specularly
// reflected at the faces x_j = 0 (the reflection of SGGMC's public code, changliu00/SG-Geod-MCMC
// `SGGMC_simplex::GeodFlowUpdate`; wall-hit times as in Neal 2011 §5.1 and Pakman & Paninski 2014).
//
// Reflection is exact and right for targets with bounded gradients (uniform, exp(bᵀx), smooth U); for
// Dirichlet-type potentials, singular at the faces, SG samplers with reflection are biased or blow up
// (docs/math.md#singular-potentials-on-the-simplex): use GMC, SGRLD (expanded mean) or SCIR there. The
// reflection count is the diagnostic.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

namespace detail {
// A diagnostic event counter a `const` flow can bump. Atomic because one manifold object may be shared
// by chains on several threads; copying copies the count, so a copied sampler forks its diagnostics
// with it. It is not part of the manifold's value: it never changes what the flow computes.
class EventCounter {
 public:
  EventCounter() = default;
  EventCounter(const EventCounter& o) : n_(o.get()) {}
  EventCounter& operator=(const EventCounter& o) {
    n_.store(o.get(), std::memory_order_relaxed);
    return *this;
  }
  void bump() const { n_.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t get() const { return n_.load(std::memory_order_relaxed); }
  void reset() const { n_.store(0, std::memory_order_relaxed); }

 private:
  mutable std::atomic<std::uint64_t> n_{0};
};
}  // namespace detail

struct Simplex {
  using Point = Eigen::VectorXd;
  Eigen::Index k = 2;  ///< number of coordinates K; the manifold is Δ^{K-1}, of dimension K - 1
  /// After this many reflections in one flow the flow gives up: it reverses v, stops, and counts a guard
  /// event. The count of reflections grows like t‖v‖, so only a huge step or velocity trips it (a
  /// corner causes at most ⌈π/arccos(1/(K-1))⌉ consecutive zero-time reflections, docs/math.md#simplex).
  std::uint64_t max_reflections = 10000;

  Simplex() = default;
  explicit Simplex(Eigen::Index dim, std::uint64_t max_refl = 10000) : k(dim), max_reflections(max_refl) {
    require(dim >= 2, "simplex: n must be at least 2");
    require(max_refl >= 1, "simplex: max_reflections must be at least 1");
  }

  Eigen::Index ambient_size() const { return k; }
  Eigen::Index intrinsic_dim() const { return k - 1; }

  /// v <- v - mean(v)·1: the orthogonal projector onto the hyperplane Σv = 0. (At a face the tangent
  /// cone is smaller; the flow's reflections, not the projection, keep x inside.)
  void project(Eigen::Ref<const Eigen::VectorXd> /*x*/, Eigen::Ref<Eigen::VectorXd> v) const {
    v.array() -= v.mean();
  }

  /// The exact event-driven billiard flow for time t (docs/math.md#simplex, `flow_simplex`). Requires x ∈ Δ and
  /// Σv = 0. Returns the number of reflections made; a return value above `max_reflections` means the
  /// guard fired (also counted by guard_events()). A negative t runs the flow backwards.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    if (t < 0) {  // Φ_{-t}(x, v) = R Φ_t(x, -v) with R(x, v) = (x, -v): time reversibility
      v = -v;
      const std::uint64_t nref = flow(x, v, -t);
      v = -v;
      return nref;
    }
    const Eigen::Index kk = x.size();
    double remaining = t;
    std::uint64_t nref = 0;
    for (;;) {
      // The first face hit: x_i + τ v_i = 0 for v_i < 0. Clamping x_i at 0 turns a rounding-negative x_i
      // into a zero-time hit instead of a negative hit time (gap 1 of the authors' code).
      double hit = std::numeric_limits<double>::infinity();
      Eigen::Index j = -1;
      for (Eigen::Index i = 0; i < kk; ++i) {
        if (v[i] < 0.0) {
          const double ti = std::max(x[i], 0.0) / -v[i];
          if (ti < hit) {
            hit = ti;
            j = i;
          }
        }
      }
      if (j < 0 || hit >= remaining) {
        x += remaining * v;
        break;
      }
      x += hit * v;
      x[j] = 0.0;  // snap onto the face, so rounding cannot leave x_j just outside (gap 2)
      remaining -= hit;
      // Specular reflection in the hyperplane about the face normal n_j = e_j - 1/K, |n_j|² = (K-1)/K:
      // v' = v - 2(v·n_j)/|n_j|² n_j, i.e. s = 2(v_j - mean v)/(K-1), v += s·1, v_j -= K s. It keeps Σv,
      // ‖v‖, and is an involution (docs/math.md#simplex; the authors' `swp` line).
      const double s = 2.0 * (v[j] - v.mean()) / static_cast<double>(kk - 1);
      v.array() += s;
      v[j] -= static_cast<double>(kk) * s;
      ++nref;
      if (nref > max_reflections) {  // gap 3: no unbounded loop, whatever t‖v‖ is
        guard_events_.bump();
        v = -v;
        break;
      }
    }
    // Rounding leaves Σx = 1 ± ε and tiny negative coordinates: clamp and renormalise, and recentre v.
    x = x.cwiseMax(0.0);
    x /= x.sum();
    v.array() -= v.mean();
    return nref;
  }

  /// max(|Σx - 1|, max_i(-x_i, 0)); infinite for a vector of the wrong size or with non-finite entries.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != k || !x.allFinite()) return std::numeric_limits<double>::infinity();
    return std::max(std::abs(x.sum() - 1.0), std::max(0.0, -x.minCoeff()));
  }

  /// A uniform point, Dirichlet(1, …, 1): normalised Exp(1) draws E_i = -log U_i.
  template <class R>
  Point random_point(R& rng) const {
    Point x(k);
    for (Eigen::Index i = 0; i < k; ++i) x[i] = -std::log(rng.uniform());  // uniform() ∈ (0, 1): finite
    x /= x.sum();
    return x;
  }

  /// How many flows of this object (and of the object it was copied from) stopped at max_reflections.
  std::uint64_t guard_events() const { return guard_events_.get(); }
  void reset_guard_events() const { guard_events_.reset(); }

 private:
  detail::EventCounter guard_events_;
};

static_assert(Manifold<Simplex>);

}  // namespace sgmcmc
