#pragma once
// A split sampler: a Dynamics, a Scheme and a step-size schedule. SGHMC, SGGMC, SGNHT and gSGNHT are
// all this one template (BlackJAX-style `init` + `step` over a plain state).
#include <cstdint>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/modules/splitting/step.hpp>

namespace sgmcmc::splitting {

/// A state whose injected noise the sampler can scale per step (PhaseState: the splitting kicks read
/// `noise_scale`): what a cyclical schedule's noise-free exploration stage needs.
template <class S>
concept NoiseScaledState = requires(S& s) { s.noise_scale = 1.0; };

template <Dynamics D>
struct Sampler {
  using State = typename D::State;
  static constexpr Statistics statistics = D::statistics | stats::step_size;
  D dynamics;
  StageList scheme = aboba;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    step_size.validate();
    scheme.validate();
    require(DynamicsWithExactOU<D> || !scheme.leimkuhler_matthews(),
            "scheme '{}': Leimkuhler & Matthews's gradient_kick/exact_ou stages need a dynamics with an exact Ornstein-Uhlenbeck "
            "step (DynamicsWithExactOU: sghmc has one; sgnht has not, its friction ξ being a variable of the state)",
            scheme.name);
    require(NoiseScaledState<State> || step_size.explore_steps() == 0,
            "step_size.explore: this dynamics' state has no noise_scale, so it cannot take noise-free exploration steps");
    return dynamics.init(std::move(x0), rng);
  }

  /// Advances one step (step index t, from 0); no MH test, so its acceptance is 1.
  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    if constexpr (NoiseScaledState<State>) s.noise_scale = step_size.noise_at(t);
    const std::uint64_t evals0 = s.gradient_evals, reflections0 = s.reflections;
    splitting::step(dynamics, scheme, s, potential, h, rng);
    return {.step_size = h, .gradient_evals = s.gradient_evals - evals0, .reflections = s.reflections - reflections0};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State& s, StepInfo& info) const { dynamics.describe(s, info); }
  /// SamplerOnManifold, for a dynamics on one.
  const auto& manifold_of() const
    requires requires(const D d) { d.manifold; }
  {
    return dynamics.manifold;
  }
};

}  // namespace sgmcmc::splitting
