#pragma once
// Dynamics and splitting schemes (docs/architecture.md; docs/math.md#split-dynamics; Chen, Ding & Carin
// 2015; Liu, Zhu & Song 2016).
// Careful with the letters: in these papers A is the geodesic flow, B the friction/thermostat
// dissipation and O the stochastic gradient kick with injected noise — not the letters of Leimkuhler &
// Matthews (2013), whose B is a gradient-only kick and O an exact Ornstein–Uhlenbeck step. Their
// operations are here under names of their own, Op::gradient_kick and Op::exact_ou
// (DynamicsWithExactOU; docs/math.md#leimkuhler-matthews-baoab).
#include <concepts>
#include <cstdint>
#include <span>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>

namespace sgmcmc {

/// One sub-step of a splitting scheme.
enum class Op : std::uint8_t {
  A,           ///< geodesic flow (x, v) <- flow(x, v, t); thermostat update for SGNHT
  B,           ///< exact dissipation v <- exp(-C t) v (or exp(-ξ t) v)
  B_explicit,  ///< first-order dissipation v <- (1 - C t) v: the Euler scheme's friction
               ///< (DynamicsWithExplicitFriction)
  O,           ///< kick v <- v + Λ(x)[-t ∇Ũ(x) + N(0, 2Ct - V̂t²)], one fresh stochastic gradient
  // Leimkuhler & Matthews's letters (their B and O; DynamicsWithExactOU). Never mixed with B, B_explicit
  // or O in one scheme (StageList::validate).
  gradient_kick,  ///< L–M's B: v <- v - t Λ(x)∇Ũ(x), no injected noise, one fresh stochastic gradient
  exact_ou,       ///< L–M's O: the exact Ornstein–Uhlenbeck step v <- Λ(x)(e^{-Ct} v + s ζ),
                  ///< s² = 1 - e^{-2Ct} less the kicks' gradient-noise correction (docs/math.md)
};

struct Stage {
  Op op;
  double fraction;  ///< of the step size h
};

/// A splitting scheme is data: an ordered list of (operation, fraction of h) run by one skeleton
/// (`splitting::step`), as BlackJAX's integrators are. ABOBA = A½ B½ O1 B½ A½.
template <class S>
concept Scheme = requires(const S s) {
  { s.stages() } -> std::convertible_to<std::span<const Stage>>;
};

namespace detail {
struct ArchetypePotential {
  void gradient(const Eigen::VectorXd&, Eigen::VectorXd&, ArchetypeEngine&) const;
};
}  // namespace detail

/// Dynamics own the augmented state (x, v, thermostat ξ, scratch buffers) and expose the split
/// sub-steps A, B and O. A dynamics never knows its manifold's geometry beyond `project` and `flow`.
/// @code
///   sghmc::Dynamics<Sphere> dyn{Sphere{3}, sghmc::Friction{1.0}};
///   auto s = dyn.init(x0, rng);
///   dyn.A(s, h / 2); dyn.B(s, h / 2); dyn.O(s, potential, h, rng); ...
/// @endcode
template <class D>
concept Dynamics = requires(const D d, typename D::State& s, double t, detail::ArchetypePotential& p,
                            detail::ArchetypeEngine& rng) {
  typename D::State;
  d.A(s, t);
  d.B(s, t);
  d.O(s, p, t, rng);
};

/// A dynamics with a first-order friction `B_explicit(s, t)`, v <- (1 - C t) v: what the Euler scheme's
/// `Op::B_explicit` stage runs (splitting::step throws for a scheme with that stage on a dynamics
/// without it).
template <class D>
concept DynamicsWithExplicitFriction = Dynamics<D> && requires(const D d, typename D::State& s, double t) {
  d.B_explicit(s, t);
};

/// A dynamics with Leimkuhler & Matthews's two operations, what a scheme with `Op::gradient_kick` or
/// `Op::exact_ou` stages (splitting::lm_baoab) runs:
/// - `gradient_kick(s, p, t, rng)`: v <- v - t Λ(x)∇Ũ(x) with one fresh stochastic gradient, no noise;
/// - `exact_ou(s, t, kick_variance, rng)`: v <- Λ(x)(e^{-Ct} v + s ζ), the exact solution of
///   dv = -Cv dt + sqrt(2C) dW over t with its noise variance s² lowered by the gradient noise the step's
///   kicks add; `kick_variance` = Σ t_k² over the step's gradient_kick stages (each draws one fresh
///   gradient), so that V̂·kick_variance is the variance they add to v (docs/math.md).
/// splitting::Sampler refuses such a scheme at init on a dynamics without them (SGNHT: its friction ξ is
/// a dynamic variable, so its "OU" has no fixed temperature to correct).
/// @code
///   sghmc::Sampler<Euclidean> lm{{Euclidean(2), sghmc::Friction(1.0), 0.0}, splitting::lm_baoab, h};
/// @endcode
template <class D>
concept DynamicsWithExactOU = Dynamics<D> && requires(const D d, typename D::State& s, double t, detail::ArchetypePotential& p,
                                                      detail::ArchetypeEngine& rng) {
  d.gradient_kick(s, p, t, rng);
  d.exact_ou(s, t, t, rng);
};

/// The times of a run A(a1)·B(b1)·O(o)·B(b2)·A(a2) in a scheme (ABOBA: h/2, h/2, h, h/2, h/2).
struct ABOBATimes {
  double a1, b1, o, b2, a2;
};

/// Optional, for speed: `fused_ABOBA(s, times, p, rng)` runs A·B·O·B·A as the manifold's fused sweep
/// (`flow_kick_flow`, concepts/manifold.hpp) with the dynamics' B·O·B as the chunk kick
/// (splitting::BOBKick: v <- post·(pre·v + (sd·ζ - t·g))), and returns true; or returns false, having
/// done nothing, when it cannot (e.g. a diagonal friction, which does not commute with the projection).
/// It must equal the sub-steps A, B, O, B, A — to the bit on flat space (tests/random/test_sghmc_fused.cpp).
/// splitting::step calls it wherever a scheme has the run A·B·O·B·A. A type derived from a fusable
/// dynamics that redefines A, B or O must redefine fused_ABOBA too (returning false walks the sub-steps).
template <class D>
concept FusableDynamics = Dynamics<D> && requires(const D d, typename D::State& s, const ABOBATimes& times,
                                                  detail::ArchetypePotential& p, detail::ArchetypeEngine& rng) {
  { d.fused_ABOBA(s, times, p, rng) } -> std::same_as<bool>;
};

}  // namespace sgmcmc
