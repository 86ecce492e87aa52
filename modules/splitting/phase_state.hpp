#pragma once
// The augmented state of a momentum sampler: position, velocity, thermostat, and the scratch buffers
// a step needs, so a step allocates nothing. Copying a state forks a chain.
#include <cstdint>
#include <Eigen/Core>

namespace sgmcmc::splitting {

struct PhaseState {
  Eigen::VectorXd x;          ///< position on the manifold (embedded coordinates)
  Eigen::VectorXd v;          ///< velocity in T_x M (unit mass)
  double xi = 0.0;            ///< Nosé–Hoover thermostat (SGNHT only)
  Eigen::VectorXd gradient;   ///< scratch: the last stochastic gradient
  Eigen::VectorXd noise;      ///< scratch: the last Gaussian draw
  Eigen::VectorXd noise_variance;  ///< scratch: the last empirical-Fisher V̂ (empty unless used)
  /// Factor on the injected noise's sd, set by the sampler before each step: 0 in a cyclical
  /// schedule's exploration stage (schedule::StepSize::noise_at), else 1 (multiplying by 1 is exact).
  double noise_scale = 1.0;
  std::uint64_t clipped = 0;  ///< coordinates whose 2Ct - V̂_i t² < 0 was clipped to 0 (empirical Fisher)
  std::uint64_t reflections = 0;      ///< boundary reflections made by the flow so far
  std::uint64_t gradient_evals = 0;   ///< stochastic gradients evaluated so far

  PhaseState() = default;
  PhaseState(Eigen::VectorXd x0, Eigen::VectorXd v0)
      : x(std::move(x0)), v(std::move(v0)), gradient(x.size()), noise(x.size()) {
    gradient.setZero();
    noise.setZero();
  }
};

}  // namespace sgmcmc::splitting
