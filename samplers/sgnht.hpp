#pragma once
// SGNHT (Ding et al. 2014) on any manifold; on a geodesic manifold it is gSGNHT (Liu, Zhu & Song
// 2016, Alg. 2). The thermostat ξ follows dξ = (vᵀv/m - 1) dt with m the *intrinsic* dimension: the
// SGGMC authors' code divides by the ambient size, which samples at temperature n/(n-1) on S^{n-1}
// (docs/math.md#the-thermostat-dimension) — not copied here.
#include <cmath>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/modules/splitting/sampler.hpp>

namespace sgmcmc::sgnht {

template <Manifold M>
struct Dynamics {
  using State = splitting::PhaseState;
  static constexpr Statistics statistics =
      stats::kinetic_energy | stats::thermostat | stats::gradient_evals | stats::reflections;
  M manifold;
  double diffusion = 1.0;       ///< A: the injected noise 2A dt; ξ starts at A (authors' code: xi(alpha/eps))
  double noise_estimate = 0.0;  ///< V̂
  bool empirical_fisher = false;  ///< estimate V̂ per coordinate from each minibatch instead

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    require(std::isfinite(diffusion) && diffusion > 0,
            "diffusion: expected a positive number, got {}", diffusion);
    require(x0.size() == manifold.ambient_size(),
            "init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size());
    Eigen::VectorXd v0(x0.size());
    rng.normals(v0);
    manifold.project(x0, v0);
    State s(std::move(x0), std::move(v0));
    s.xi = diffusion;
    return s;
  }

  /// Flow, and ξ <- ξ + (vᵀv/m - 1)t: exact, since |v| is constant along a geodesic.
  void A(State& s, double t) const {
    s.reflections += manifold.flow(s.x, s.v, t);
    s.xi += (s.v.squaredNorm() / static_cast<double>(manifold.intrinsic_dim()) - 1.0) * t;
  }
  void B(State& s, double t) const { s.v *= std::exp(-s.xi * t); }
  void describe(const State& s, StepInfo& info) const {
    info.kinetic_energy = 0.5 * s.v.squaredNorm();
    info.thermostat = s.xi;
  }
  void B_explicit(State& s, double t) const { s.v *= 1.0 - s.xi * t; }
  /// A·B·O·B·A with the fused sweep for the second flow (FusableDynamics): ξ does not change in B or O,
  /// so B·O·B is the chunk kick v <- e^{-ξ b2}·(e^{-ξ b1}·v + (sd·ζ - o·g)). The first A runs on its
  /// own: ξ after it depends on ‖v‖² after its flow, and the kick needs that ξ. Then the thermostat
  /// update of the second A. On flat space this is the sub-step walk to the bit. Declines (returns
  /// false) for the empirical Fisher.
  template <class P, class R>
  bool fused_ABOBA(State& s, const ABOBATimes& t, const P& potential, R& rng) const {
    if (empirical_fisher) return false;
    A(s, t.a1);
    const double pre = std::exp(-s.xi * t.b1), post = t.b2 == t.b1 ? pre : std::exp(-s.xi * t.b2);  // ABOBA: one exp
    const splitting::KickCoefficients k{pre, post, splitting::kick_sd(diffusion, noise_estimate, t.o), t.o};
    splitting::kick_sweep(manifold, s, potential, rng, k, 0.0, t.a2);
    s.xi += (s.v.squaredNorm() / static_cast<double>(manifold.intrinsic_dim()) - 1.0) * t.a2;
    return true;
  }

  template <class P, class R>
  void O(State& s, const P& potential, double t, R& rng) const {
    if (empirical_fisher) splitting::kick_empirical(manifold, s, potential, t, diffusion, rng);
    else splitting::kick(manifold, s, potential, t, splitting::kick_sd(diffusion, noise_estimate, t), rng);
  }
};

template <Manifold M>
using Sampler = splitting::Sampler<Dynamics<M>>;

}  // namespace sgmcmc::sgnht
