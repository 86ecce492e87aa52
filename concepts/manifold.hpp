#pragma once
// The Manifold concept: a manifold embedded in R^N with a known geodesic flow (docs/manifolds.md,
// docs/math.md#manifolds).
// Points and velocities are Eigen column vectors in embedded coordinates; a matrix manifold (Stiefel)
// stores its n×p points flattened column-major, so every sampler works on flat vectors and a Product
// is a concatenation of blocks.
#include <concepts>
#include <cstdint>
#include <memory>
#include <type_traits>
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

/// A chunk kick: a non-owning reference to a callable `kick(begin, end)` that updates v[begin, end) in
/// place, elementwise (v_i depends on v_i, x_i and the kick's own data only), reading at most
/// x[begin, end). It is one concrete type (a `void*` and a function pointer, like C++26's
/// `std::function_ref`), so a manifold's `flow_kick_flow` is an ordinary function — not a template —
/// and a type-erased manifold can forward it through a virtual call. The callable must outlive the
/// ChunkKick: pass one as an argument, do not store it. Calling it costs one indirect call per chunk.
/// @code
///   auto scale = [&](Eigen::Index b, Eigen::Index e) { v.segment(b, e - b) *= 0.5; };
///   sgmcmc::flow_kick_flow(manifold, x, v, 0.0, sgmcmc::ChunkKick(scale), t);
/// @endcode
class ChunkKick {
 public:
  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, ChunkKick> && std::invocable<F&, Eigen::Index, Eigen::Index>)
  ChunkKick(F&& f) noexcept  // NOLINT(google-explicit-constructor): a function reference converts implicitly
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Eigen::Index begin, Eigen::Index end) {
          (*static_cast<std::remove_reference_t<F>*>(o))(begin, end);
        }) {}

  /// Kicks v[begin, end).
  void operator()(Eigen::Index begin, Eigen::Index end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, Eigen::Index, Eigen::Index);
};

/// Optional, for speed: `flow_kick_flow(x, v, t1, kick, t2)`, the sequence
///   flow(x, v, t1); kick(0, N); project(x, v); flow(x, v, t2)
/// (t1 = 0: no first flow), returning the total reflection count — ABOBA's A·(B·O·B)·A, where the
/// dynamics' B·O·B is the chunk kick. A manifold implements it to make fewer sweeps over memory:
/// Euclidean in one (per 1024-coordinate chunk: x += t1·v, kick, x += t2·v), the sphere in two (the
/// kick folded into the sweep that measures the projection and the speed). The kick may instead be
/// called on consecutive chunks [b₀, b₁), [b₁, b₂), … that partition [0, N) in increasing order, each
/// once, after the first flow has reached that chunk (a kick may draw its noise chunk by chunk, so the
/// order is part of the contract). The result must equal the plain sequence — to the bit where the
/// implementation does the same arithmetic, else to rounding (the conformance kit's law
/// "flow_kick_flow is flow, kick, project, flow" checks it; docs/architecture.md, "Fused paths").
template <class M>
concept ManifoldWithFusedSweep = Manifold<M> && requires(const M m, typename M::Point& x, typename M::Point& v,
                                                          double t, ChunkKick kick) {
  { m.flow_kick_flow(x, v, t, kick, t) } -> std::convertible_to<std::uint64_t>;
};

/// A manifold whose operations accept `Eigen::Ref` blocks, so a product can apply it to a segment of a
/// longer vector without a copy. Every shipped manifold is one; a user manifold becomes one by taking
/// `Eigen::Ref<Eigen::VectorXd>` / `Eigen::Ref<const Eigen::VectorXd>` parameters.
/// @code
///   void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const;
///   std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const;
/// @endcode
template <class M>
concept BlockManifold =
    Manifold<M> && std::same_as<typename M::Point, Eigen::VectorXd> &&
    requires(const M m, Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v,
             Eigen::Ref<const Eigen::VectorXd> cx, double t) {
      m.project(cx, v);
      { m.flow(x, v, t) } -> std::convertible_to<std::uint64_t>;
      { m.distance_to(cx) } -> std::convertible_to<double>;
    };

/// A block manifold whose fused sweep (if it has one) also takes `Eigen::Ref` blocks: the fused sweep
/// applies to a segment of a longer vector (a product's factor, a type-erased manifold) without a copy.
template <class M>
concept BlockManifoldWithFusedSweep =
    BlockManifold<M> && ManifoldWithFusedSweep<M> &&
    requires(const M m, Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t, ChunkKick kick) {
      { m.flow_kick_flow(x, v, t, kick, t) } -> std::convertible_to<std::uint64_t>;
    };

/// flow(x, v, t1) (skipped when t1 = 0), kick(0, N), project(x, v), flow(x, v, t2): the manifold's fused
/// `flow_kick_flow` when it has one, else that plain sequence. Returns the reflection count.
template <Manifold M, class X, class V>
std::uint64_t flow_kick_flow(const M& m, X&& x, V&& v, double t1, ChunkKick kick, double t2) {
  if constexpr (ManifoldWithFusedSweep<M>) {
    return m.flow_kick_flow(x, v, t1, kick, t2);
  } else {
    std::uint64_t reflections = t1 != 0.0 ? static_cast<std::uint64_t>(m.flow(x, v, t1)) : 0;
    kick(0, static_cast<Eigen::Index>(x.size()));
    m.project(x, v);
    return reflections + static_cast<std::uint64_t>(m.flow(x, v, t2));
  }
}

}  // namespace sgmcmc
