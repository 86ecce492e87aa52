#pragma once
// The state of a Riemannian sampler (SGRLD, and SGRHMC which adds a momentum): the position, the metric
// evaluated there, and the scratch a step needs, so a step allocates nothing after the first.
#include <cstdint>

#include <Eigen/Core>

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

}  // namespace sgmcmc::recipe
