#pragma once
// The state of a Riemannian sampler (SGRLD, and SGRHMC which adds a momentum): the position, the metric
// evaluated there, and the scratch a step needs, so a step allocates nothing after the first.
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>

#include <sgmcmc/modules/recipe/checks.hpp>
#include <sgmcmc/modules/recipe/metric.hpp>

namespace sgmcmc::recipe {

struct RiemannianState {
  Eigen::VectorXd x;
  Eigen::VectorXd gradient, noise, drift, var;  ///< scratch
  Eigen::MatrixXd cov;                          ///< scratch (dense metrics)
  metric::Value metric;
  GaussianNoise gaussian;
  std::uint64_t gradient_evals = 0;
  std::uint64_t clipped = 0;
  std::uint64_t reflections = 0;
};

/// Validates a Riemannian sampler's parameters and starts its state at x0 with zeroed scratch.
template <class Metric>
RiemannianState riemannian_start(const schedule::StepSize& step_size, const Metric& metric, double noise_estimate,
                                 Eigen::VectorXd x0) {
  step_size.validate();
  metric.validate();
  require(std::isfinite(noise_estimate) && noise_estimate >= 0,
          "noise_estimate: expected a number >= 0, got {}", noise_estimate);
  require(x0.size() >= 1 && x0.allFinite(), "init: expected a finite point");
  const auto n = x0.size();
  RiemannianState s;
  s.x = std::move(x0);
  s.gradient.setZero(n), s.noise.setZero(n), s.drift.setZero(n), s.var.setZero(n);
  return s;
}

}  // namespace sgmcmc::recipe
