#pragma once
// SGNHT (Ding et al. 2014) on any manifold; on a geodesic manifold it is gSGNHT (Liu, Zhu & Song
// 2016, Alg. 2). The thermostat ξ follows dξ = (vᵀv/m - 1) dt with m the *intrinsic* dimension: the
// SGGMC authors' code divides by the ambient size, which samples at temperature n/(n-1) on S^{n-1}
// (MATH.md §0) — not copied here.
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
      Statistic::kinetic_energy | Statistic::thermostat | Statistic::gradient_evals | Statistic::reflections;
  M manifold;
  double diffusion = 1.0;       ///< A: the injected noise 2A dt; ξ starts at A (authors' code: xi(alpha/eps))
  double noise_estimate = 0.0;  ///< V̂
  bool empirical_fisher = false;  ///< estimate V̂ per coordinate from each minibatch instead

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    require(std::isfinite(diffusion) && diffusion > 0,
            fmt::format("diffusion: expected a positive number, got {}", diffusion));
    require(x0.size() == manifold.ambient_size(),
            fmt::format("init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size()));
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
  /// A(t) after a kick that deferred its projection: v <- Λ(x)v and the flow fused (project_flow).
  void A_projecting(State& s, double t) const {
    s.reflections += project_flow(manifold, s.x, s.v, t);
    s.xi += (s.v.squaredNorm() / static_cast<double>(manifold.intrinsic_dim()) - 1.0) * t;
  }
  void B(State& s, double t) const { s.v *= std::exp(-s.xi * t); }
  void describe(const State& s, StepInfo& info) const {
    info.kinetic_energy = 0.5 * s.v.squaredNorm();
    info.thermostat = s.xi;
  }
  void B_explicit(State& s, double t) const { s.v *= 1.0 - s.xi * t; }
  /// B(t1)·O(t)·B(t2) in one sweep: ξ does not change in O, so both dissipations are scalings.
  /// With Projection::deferred the caller runs A_projecting next.
  template <class P, class R>
  bool BOB(State& s, double t1, const P& potential, double t, double t2, R& rng,
           splitting::Projection projection = splitting::Projection::now) const {
    if (empirical_fisher) return false;
    splitting::kick(manifold, s, potential, t, splitting::kick_sd(diffusion, noise_estimate, t), rng, std::exp(-s.xi * t1),
                    std::exp(-s.xi * t2), projection);
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
