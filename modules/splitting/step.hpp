#pragma once
// The one skeleton every split sampler runs: walk the scheme's stages, calling the dynamics' sub-steps.
// Flat and geodesic samplers share it; the dynamics' manifold supplies the geometry.
#include <sgmcmc/concepts/dynamics.hpp>

namespace sgmcmc::splitting {

template <class D, class S, class P, class R>
  requires Dynamics<D> && Scheme<S>
void step(const D& dyn, const S& scheme, typename D::State& state, const P& potential, double h, R& rng) {
  for (const Stage& st : scheme.stages()) {
    const double t = st.fraction * h;
    switch (st.op) {
      case Op::A: dyn.A(state, t); break;
      case Op::B: dyn.B(state, t); break;
      case Op::B_explicit: dyn.B_explicit(state, t); break;
      case Op::O: dyn.O(state, potential, t, rng); break;
    }
  }
}

}  // namespace sgmcmc::splitting
