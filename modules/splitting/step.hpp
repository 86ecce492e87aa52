#pragma once
// The one skeleton every split sampler runs: walk the scheme's stages, calling the dynamics' sub-steps.
// Flat and geodesic samplers share it; the dynamics' manifold supplies the geometry.
#include <cstddef>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>

namespace sgmcmc::splitting {

template <class D, class S, class P, class R>
  requires Dynamics<D> && Scheme<S>
void step(const D& dyn, const S& scheme, typename D::State& state, const P& potential, double h, R& rng) {
  const auto stages = scheme.stages();
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const Stage& st = stages[i];
    const double t = st.fraction * h;
    // B·O·B (ABOBA's middle): a dynamics may fold the two exact dissipations into the kick's sweep, and
    // when a flow A follows, leave the kick's projection to that flow (Manifold's project_flow: the
    // sphere projects and rotates in two sweeps instead of four).
    if constexpr (requires {
                    dyn.BOB(state, t, potential, t, t, rng, Projection::now);
                    dyn.A_projecting(state, t);
                  }) {
      if (st.op == Op::B && i + 2 < stages.size() && stages[i + 1].op == Op::O && stages[i + 2].op == Op::B) {
        const bool flow_next = i + 3 < stages.size() && stages[i + 3].op == Op::A;
        if (dyn.BOB(state, t, potential, stages[i + 1].fraction * h, stages[i + 2].fraction * h, rng,
                    flow_next ? Projection::deferred : Projection::now)) {
          if (flow_next) dyn.A_projecting(state, stages[i + 3].fraction * h);
          i += flow_next ? 3 : 2;
          continue;
        }
      }
    }
    switch (st.op) {
      case Op::A: dyn.A(state, t); break;
      case Op::B: dyn.B(state, t); break;
      case Op::B_explicit: dyn.B_explicit(state, t); break;
      case Op::O: dyn.O(state, potential, t, rng); break;
    }
  }
}

}  // namespace sgmcmc::splitting
