#pragma once
// AMAGOLD (Zhang, Cooper & De Sa 2020, "AMAGOLD: Amortized Metropolis Adjustment for Efficient
// Stochastic Gradient MCMC", AISTATS): SGHMC whose friction step is written reversibly, with a
// Metropolis–Hastings test every T steps that uses only the stochastic gradients already computed and
// the exact U at the window's two ends — asymptotically exact at any step size.
//
// One sampler step is one window of T inner steps from (x₀, v₀), each with a fresh stochastic gradient
// g_t (its batch or its added noise drawn independently of the state):
//   x_{t−½} = flow(x_{t−1}, v_{t−1}, h/2)
//   v_t = [(1 − hβ) v_{t−1} − h Λg_t + √(4hβ) Λξ_t] / (1 + hβ),   ξ_t ~ N(0, I)
//   x_t = flow(x_{t−½}, v_t, h/2)
//   ρ += (h/2) (Λg_t)ᵀ(v_{t−1} + v_t)
// then accept (x_T, v_T) with probability min(1, exp(U(x₀) − U(x_T) + ρ)), else go to (x₀, −v₀).
// The acceptance is the MH ratio of the trajectory against its reverse (momenta flipped, the same
// gradients in reverse order, which are as likely when they are drawn independently): the reverse step
// needs the noise η' = hg_t − (1 + hβ)v_{t−1} + (1 − hβ)v_t where the forward one used
// η = hg_t + (1 + hβ)v_t − (1 − hβ)v_{t−1}, and (η² − η'²)/(8hβ) = (v_t² − v_{t−1}²)/2 + (h/2)g_tᵀ(v_{t−1} + v_t):
// the kinetic energies cancel against H = U + vᵀv/2, leaving ρ (docs/math.md#amagold; with exact
// gradients and h → 0, ρ → ∫∇U·dx = U(x_T) − U(x₀) and every window is accepted). The friction factor
// keeps v ~ N(0, I) stationary without gradients: ((1 − hβ)² + 4hβ)/(1 + hβ)² = 1.
// On a manifold (Λ the tangent projection, flow the geodesic flow with its reflections, both
// reversible) it is the same step, as HMC is geodesic Monte Carlo (samplers/hmc.hpp).
// The paper's own Algorithm 1 could not be consulted where this was written; the update above is
// derived from the MH ratio, and tests/core/amagold_stat.cpp checks it against the exact answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>

namespace sgmcmc::amagold {

struct State : splitting::PhaseState {
  using splitting::PhaseState::PhaseState;
  Eigen::VectorXd x_start, v_start;  ///< scratch: the window's start, restored (v flipped) on rejection
  /// U at x, carried from the last accepted window so each window costs one exact value; NaN when not
  /// known (a new or restored chain: computed again, with the same bits).
  double potential_at_x = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t accepted = 0;
  std::uint64_t proposals = 0;
  std::uint64_t divergent = 0;
};

template <Manifold M>
struct Sampler {
  using State = amagold::State;
  static constexpr Statistics statistics = stats::acceptance | stats::divergent | stats::step_size |
                                           stats::gradient_evals | stats::reflections | stats::kinetic_energy;
  M manifold;
  const M& manifold_of() const { return manifold; }  ///< SamplerOnManifold
  schedule::StepSize step_size = schedule::StepSize::constant(0.1);
  double friction = 1.0;  ///< β ≥ 0
  int window = 10;        ///< T, inner steps per MH test

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    step_size.validate();
    require(friction >= 0 && std::isfinite(friction), "amagold: friction must be a number >= 0, got {}", friction);
    require(window >= 1, "amagold: window must be an integer >= 1, got {}", window);
    require(x0.size() == manifold.ambient_size(),
            "init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size());
    State s(x0, Eigen::VectorXd::Zero(x0.size()));
    rng.normals(s.v);  // v ~ N(0, I) on the tangent space: the stationary law
    manifold.project(s.x, s.v);
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R> && PotentialWithValue<P>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const double a = 1 + h * friction, b = 1 - h * friction, sd = std::sqrt(4 * h * friction);
    const std::uint64_t evals0 = s.gradient_evals, reflections0 = s.reflections;
    if (!std::isfinite(s.potential_at_x)) s.potential_at_x = potential.value(s.x);
    s.x_start = s.x;
    s.v_start = s.v;
    double rho = 0;
    for (int l = 0; l < window; ++l) {
      s.reflections += manifold.flow(s.x, s.v, h / 2);
      potential.gradient(s.x, s.gradient, rng);
      ++s.gradient_evals;
      manifold.project(s.x, s.gradient);
      rng.normals(s.noise);
      manifold.project(s.x, s.noise);
      rho += (h / 2) * s.gradient.dot(s.v);
      s.v = (b * s.v - h * s.gradient + sd * s.noise) / a;
      rho += (h / 2) * s.gradient.dot(s.v);
      s.reflections += manifold.flow(s.x, s.v, h / 2);
    }
    ++s.proposals;
    StepInfo info{.step_size = h};
    const double u_new = potential.value(s.x);
    const double log_ratio = s.potential_at_x - u_new + rho;
    if (!std::isfinite(log_ratio)) {
      ++s.divergent;
      info.divergent = true;
      info.acceptance = 0.0;
    } else {
      info.acceptance = log_ratio >= 0 ? 1.0 : std::exp(log_ratio);
    }
    if (rng.uniform() < info.acceptance) {
      s.potential_at_x = u_new;
      ++s.accepted;
    } else {  // rejected: back to the start with the velocity reversed
      s.x = s.x_start;
      s.v = -s.v_start;
    }
    info.gradient_evals = s.gradient_evals - evals0;
    info.reflections = s.reflections - reflections0;
    return info;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State& s, StepInfo& info) const { info.kinetic_energy = 0.5 * s.v.squaredNorm(); }
};

}  // namespace sgmcmc::amagold
