#pragma once
// A split sampler: a Dynamics, a Scheme and a step-size schedule. SGHMC, SGGMC, SGNHT and gSGNHT are
// all this one template (BlackJAX-style `init` + `step` over a plain state).
#include <cstdint>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/modules/splitting/step.hpp>

namespace sgmcmc::splitting {

template <Dynamics D>
struct Sampler {
  using State = typename D::State;
  D dynamics;
  StageList scheme = aboba;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    step_size.validate();
    return dynamics.init(std::move(x0), rng);
  }

  /// Advances one step (step index t, from 0) and returns its acceptance statistic (1: no MH test).
  template <class P, class R>
  double step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    splitting::step(dynamics, scheme, s, potential, step_size.at(t), rng);
    return 1.0;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
};

}  // namespace sgmcmc::splitting
