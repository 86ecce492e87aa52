#pragma once
// HMC with Metropolis–Hastings (Duane et al. 1987; SGHMC paper Alg. 1) on any manifold: on a
// geodesic manifold it is geodesic Monte Carlo (GMC, Byrne & Girolami 2013, Alg. 1). One step is one
// trajectory: v ~ Λ(x)N(0, I); L times {v -= (h/2)Λ∇U; flow(x, v, h); v -= (h/2)Λ∇U}; accept with
// probability min(1, exp(H_old - H_new)), H = U(x) + vᵀv/2 (docs/math.md#hmc-and-gmc).
//
// The same code is the SGHMC paper's "naive stochastic gradient HMC" (its Eq. 15 counter-example)
// when the trajectory uses the stochastic gradient, with or without the MH test.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>

namespace sgmcmc::hmc {

struct State : splitting::PhaseState {
  using splitting::PhaseState::PhaseState;
  Eigen::VectorXd x_start;  ///< scratch: the trajectory's start, restored on rejection
  std::uint64_t accepted = 0;
  std::uint64_t proposals = 0;
  std::uint64_t divergent = 0;  ///< trajectories whose energy became non-finite (rejected)
};

enum class Gradient { exact, stochastic };

template <Manifold M>
struct Sampler {
  using State = hmc::State;
  /// `energy` is H at the step's end (NaN without the MH test: naive stochastic-gradient HMC).
  static constexpr Statistics statistics = stats::acceptance | stats::divergent | stats::energy |
                                           stats::step_size | stats::gradient_evals | stats::reflections;
  M manifold;
  const M& manifold_of() const { return manifold; }  ///< SamplerOnManifold
  schedule::StepSize step_size = schedule::StepSize::constant(0.1);
  int leapfrog_steps = 10;
  Gradient gradient = Gradient::exact;
  bool metropolis = true;

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(leapfrog_steps >= 1, "leapfrog_steps: expected an integer >= 1, got {}", leapfrog_steps);
    require(x0.size() == manifold.ambient_size(),
            "init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size());
    State s(x0, Eigen::VectorXd::Zero(x0.size()));
    s.x_start = x0;
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const std::uint64_t evals0 = s.gradient_evals, reflections0 = s.reflections;
    rng.normals(s.v);
    manifold.project(s.x, s.v);
    s.x_start = s.x;
    const bool mh = metropolis;
    double h_old = 0.0;
    if (mh) h_old = energy(potential, s);
    kick(s, potential, -0.5 * h, rng);
    for (int l = 0; l < leapfrog_steps; ++l) {
      s.reflections += manifold.flow(s.x, s.v, h);
      kick(s, potential, l + 1 < leapfrog_steps ? -h : -0.5 * h, rng);
    }
    ++s.proposals;
    StepInfo info{.step_size = h};
    if (mh) {
      const double h_new = energy(potential, s);
      info.energy = h_new;
      if (!std::isfinite(h_new)) {
        ++s.divergent;
        info.divergent = true;
        info.acceptance = 0.0;
        info.energy = h_old;
      } else {
        info.acceptance = std::min(1.0, std::exp(h_old - h_new));
      }
      if (!(rng.uniform() < info.acceptance)) {
        s.x = s.x_start;  // rejected: the chain stays where it was
        info.energy = h_old;
      } else {
        ++s.accepted;
      }
    } else {
      ++s.accepted;
    }
    info.gradient_evals = s.gradient_evals - evals0;
    info.reflections = s.reflections - reflections0;
    return info;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}

 private:
  // v <- v + c Λ(x) ∇U(x), with the exact or the stochastic gradient. Adjacent half-kicks are merged.
  template <class P, class R>
  void kick(State& s, const P& potential, double c, R& rng) const {
    if (gradient == Gradient::exact) {
      if constexpr (PotentialWithValue<P>) potential.exact_gradient(s.x, s.gradient);
      else throw Error("hmc: the target has no exact gradient; use a stochastic-gradient sampler");
    } else {
      potential.gradient(s.x, s.gradient, rng);
    }
    ++s.gradient_evals;
    s.v.noalias() += c * s.gradient;
    manifold.project(s.x, s.v);
  }
  template <class P>
  double energy(const P& potential, const State& s) const {
    if constexpr (PotentialWithValue<P>) return potential.value(s.x) + 0.5 * s.v.squaredNorm();
    else throw Error("hmc: the Metropolis–Hastings test needs the target's exact value (mh: false to skip it)");
  }
};

}  // namespace sgmcmc::hmc
