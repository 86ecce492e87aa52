#pragma once
// The Manifold concept: a manifold embedded in R^N with a known geodesic flow (DESIGN.md §3, §4.3).
// Points and velocities are Eigen column vectors in embedded coordinates; a matrix manifold (Stiefel)
// stores its n×p points flattened column-major, so every sampler works on flat vectors and a Product
// is a concatenation of blocks.
#include <concepts>
#include <cstdint>
#include <Eigen/Core>

#include <sgmcmc/concepts/random.hpp>

namespace sgmcmc {

namespace detail {
// A stand-in engine used only to state the concept's requirement on `random_point`.
struct ArchetypeEngine {
  double normal();
  void normals(Eigen::Ref<Eigen::VectorXd>);
  double uniform();
  std::uint64_t below(std::uint64_t);
};
}  // namespace detail

/// A Riemannian manifold M ⊂ R^N with the metric of the embedding.
/// - `ambient_size()`: N, the length of a point's coordinate vector;
/// - `intrinsic_dim()`: m, the dimension of M (enters the thermostat of SGNHT);
/// - `project(x, v)`: v <- Λ(x) v, the orthogonal projection onto T_x M;
/// - `flow(x, v, t)`: (x, v) <- the exact geodesic flow for time t, in place; returns the number of
///   boundary reflections it made (0 for a manifold without boundary) for diagnostics;
/// - `distance_to(x)`: how far x is off M (a constraint violation, for checks);
/// - `random_point(rng)`: a point on M, uniform where that is defined.
/// @code
///   struct Circle { using Point = Eigen::VectorXd; ... };   // see examples/oblique/oblique.hpp
///   static_assert(sgmcmc::Manifold<Circle>);
/// @endcode
template <class M>
concept Manifold = requires(const M m, typename M::Point& x, typename M::Point& v, double t,
                            detail::ArchetypeEngine& rng) {
  typename M::Point;
  { m.ambient_size() } -> std::convertible_to<Eigen::Index>;
  { m.intrinsic_dim() } -> std::convertible_to<Eigen::Index>;
  m.project(x, v);
  { m.flow(x, v, t) } -> std::convertible_to<std::uint64_t>;
  { m.distance_to(x) } -> std::convertible_to<double>;
  { m.random_point(rng) } -> std::same_as<typename M::Point>;
};

/// Optional: `project_flow(x, v, t)`, v <- Λ(x) v and then the flow for t, fused. A kick ends with a
/// projection and ABOBA's next sub-step is a flow; a manifold whose projection and flow each sweep
/// memory (the sphere: four sweeps, two of them sums) can do both in fewer. It must equal `project`
/// then `flow` up to rounding (the conformance kit checks it).
template <class M>
concept ManifoldWithProjectFlow = Manifold<M> && requires(const M m, typename M::Point& x, typename M::Point& v,
                                                           double t) {
  { m.project_flow(x, v, t) } -> std::convertible_to<std::uint64_t>;
};

/// v <- Λ(x) v, then the flow for t: the manifold's fused `project_flow` when it has one. Returns the
/// flow's reflection count.
template <Manifold M, class X, class V>
std::uint64_t project_flow(const M& m, X&& x, V&& v, double t) {
  if constexpr (ManifoldWithProjectFlow<M>) {
    return m.project_flow(x, v, t);
  } else {
    m.project(x, v);
    return m.flow(x, v, t);
  }
}

}  // namespace sgmcmc
