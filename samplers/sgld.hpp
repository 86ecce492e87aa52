#pragma once
// SGLD (Welling & Teh 2011) on any manifold: the geodesic random walk
//   w = Λ(x)(-h∇Ũ(x) + sqrt(2h) N(0, I)),  x <- Exp_x(w) = flow(x, w, 1)
// (docs/math.md#sgld-on-a-manifold). On Euclidean it is exactly x <- x - h∇Ũ + sqrt(2h) N(0, I).
// First order in h.
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>

namespace sgmcmc::sgld {

struct State {
  Eigen::VectorXd x;
  Eigen::VectorXd gradient;  ///< scratch
  Eigen::VectorXd step;      ///< scratch: the tangent step w
  std::uint64_t reflections = 0;
  std::uint64_t gradient_evals = 0;
};

template <Manifold M>
struct Sampler {
  using State = sgld::State;
  static constexpr Statistics statistics =
      stats::step_size | stats::gradient_evals | stats::reflections;
  M manifold;
  const M& manifold_of() const { return manifold; }  ///< SamplerOnManifold
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double noise_estimate = 0.0;  ///< V̂: noise sd becomes sqrt(2h - V̂h²) (Chen et al. 2014's SGLD correction)

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(x0.size() == manifold.ambient_size(),
            "init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size());
    const auto n = x0.size();
    return State{std::move(x0), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const double var = 2.0 * h - noise_estimate * h * h;
    require(var >= 0, "noise_estimate: 2h - V̂h² = {} < 0 at h = {}", var, h);
    potential.gradient(s.x, s.gradient, rng);
    ++s.gradient_evals;
    rng.normals(s.step);
    // noise_at(t) = 0 in a cyclical schedule's exploration stage: an SGD step (cSG-MCMC §3).
    s.step = (std::sqrt(var) * step_size.noise_at(t)) * s.step - h * s.gradient;
    manifold.project(s.x, s.step);
    const std::uint64_t reflections = manifold.flow(s.x, s.step, 1.0);
    s.reflections += reflections;
    return {.step_size = h, .gradient_evals = 1, .reflections = reflections};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

}  // namespace sgmcmc::sgld
