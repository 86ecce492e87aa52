#pragma once
// Dynamics and splitting schemes (DESIGN.md §3, §4.2; Chen, Ding & Carin 2015; Liu, Zhu & Song 2016).
// Careful with the letters: in these papers A is the geodesic flow, B the friction/thermostat
// dissipation and O the stochastic gradient kick with injected noise (not Leimkuhler's BAOAB letters).
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
  O,           ///< kick v <- v + Λ(x)[-t ∇Ũ(x) + N(0, 2Ct - V̂t²)], one fresh stochastic gradient
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
/// sub-steps. A dynamics never knows its manifold's geometry beyond `project` and `flow`.
/// Optional fusions the skeleton uses when present (splitting::step): `BOB(s, t1, p, t, t2, rng,
/// projection)`, the sequence B(t1) O(t) B(t2) in one sweep, returning false (having done nothing) when
/// it cannot fuse; and with it `A_projecting(s, t)`, which must equal project-then-A: after a BOB told
/// Projection::deferred, the skeleton runs the next A as A_projecting. (A type that redefines A must
/// redefine A_projecting too.)
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
  d.B_explicit(s, t);
  d.O(s, p, t, rng);
};

}  // namespace sgmcmc
