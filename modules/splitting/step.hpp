#pragma once
// The one skeleton every split sampler runs: walk the scheme's stages, calling the dynamics' sub-steps.
// Flat and geodesic samplers share it; the dynamics' manifold supplies the geometry.
#include <cstddef>
#include <span>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>

namespace sgmcmc::splitting {

/// Whether stages[i..i+4] are A·B·O·B·A (ABOBA, or that run inside a longer scheme).
inline bool aboba_at(std::span<const Stage> stages, std::size_t i) {
  return i + 5 <= stages.size() && stages[i].op == Op::A && stages[i + 1].op == Op::B && stages[i + 2].op == Op::O &&
         stages[i + 3].op == Op::B && stages[i + 4].op == Op::A;
}

/// Σ t_k² over the gradient_kick stages of a step of size h: V̂ times it is the variance the step's kicks
/// add to v (each draws its own gradient, so their noises are independent), what exact_ou corrects for.
inline double kick_variance(std::span<const Stage> stages, double h) {
  double sum = 0;
  for (const Stage& s : stages)
    if (s.op == Op::gradient_kick) sum += (s.fraction * h) * (s.fraction * h);
  return sum;
}

/// One sub-step of the plain walk (`kick_variance`: see above; read by exact_ou only).
template <class D, class P, class R>
  requires Dynamics<D>
void substep(const D& dyn, Op op, typename D::State& state, const P& potential, double t, R& rng, double kick_variance = 0.0) {
  switch (op) {
    case Op::A: dyn.A(state, t); break;
    case Op::B: dyn.B(state, t); break;
    case Op::B_explicit:
      if constexpr (DynamicsWithExplicitFriction<D>) dyn.B_explicit(state, t);
      else throw Error("scheme: a B_explicit stage (the Euler scheme) needs a dynamics with a first-order friction");
      break;
    case Op::O: dyn.O(state, potential, t, rng); break;
    // Leimkuhler & Matthews's B and O. splitting::Sampler refuses such a scheme at init on a dynamics
    // without them; this throw is for a caller of step() who skipped that check.
    case Op::gradient_kick:
      if constexpr (DynamicsWithExactOU<D>) dyn.gradient_kick(state, potential, t, rng);
      else throw Error("scheme: a gradient_kick stage (Leimkuhler & Matthews's B) needs a dynamics with an exact OU step (DynamicsWithExactOU)");
      break;
    case Op::exact_ou:
      if constexpr (DynamicsWithExactOU<D>) dyn.exact_ou(state, t, kick_variance, rng);
      else throw Error("scheme: an exact_ou stage (Leimkuhler & Matthews's O) needs a dynamics with an exact OU step (DynamicsWithExactOU)");
      break;
  }
}

/// One step of size h: the scheme's stages in order. Where the scheme has the run A·B·O·B·A and the
/// dynamics is a FusableDynamics, the run goes to its fused_ABOBA (the manifold's flow_kick_flow with
/// the dynamics' chunk kick: docs/architecture.md, "Fused paths: one hook"); when that declines, and
/// everywhere else, each stage is the dynamics' sub-step.
template <class D, class S, class P, class R>
  requires Dynamics<D> && Scheme<S>
void step(const D& dyn, const S& scheme, typename D::State& state, const P& potential, double h, R& rng) {
  const std::span<const Stage> stages = scheme.stages();
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if constexpr (FusableDynamics<D>) {
      if (aboba_at(stages, i)) {
        const ABOBATimes times{stages[i].fraction * h, stages[i + 1].fraction * h, stages[i + 2].fraction * h,
                               stages[i + 3].fraction * h, stages[i + 4].fraction * h};
        if (dyn.fused_ABOBA(state, times, potential, rng)) {
          i += 4;
          continue;
        }
      }
    }
    const double kicks = stages[i].op == Op::exact_ou ? kick_variance(stages, h) : 0.0;
    substep(dyn, stages[i].op, state, potential, stages[i].fraction * h, rng, kicks);
  }
}

}  // namespace sgmcmc::splitting
