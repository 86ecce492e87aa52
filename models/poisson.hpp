#pragma once
// Bayesian Poisson regression with the canonical log link, a DataModel for models::Minibatch: the
// Poisson generalised linear model (McCullagh & Nelder 1989, Generalized Linear Models, 2nd ed., §6.2,
// log-linear models for counts; the log is the Poisson family's canonical link), with a N(0, σ²I) prior:
//   θ ~ N(0, σ² I),   y_i ~ Poisson(exp(θᵀx_i)),
//   U(θ) = ‖θ‖²/(2σ²) + Σ_i [exp(θᵀx_i) − y_i θᵀx_i + log(y_i!)],
//   ∇U(θ) = θ/σ² + Σ_i ψ_i(θ) x_i,   ψ_i(θ) = exp(θᵀx_i) − y_i.
// A generalised linear model (the per-example gradient is ψ_i·x_i), so SAGA keeps one number per
// example and the control variate one per example too. Only the per-example hooks: the batched and
// range paths (models/logistic.hpp) are not given, and models::Minibatch loops over the examples.
// exp(θᵀx_i) overflows to +inf for θᵀx_i > 709: it is not capped, so a chain that wanders there gets a
// non-finite gradient, which the chain's divergence check reports rather than hides.
// The data are shared (shared_ptr<const Dataset>): copying the model for another chain copies no data.
#include <cmath>
#include <cstddef>
#include <memory>

#include <Eigen/Core>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/minibatch.hpp>

namespace sgmcmc::models {

struct PoissonRegression {
  std::shared_ptr<const data::Dataset<double>> data;
  double prior_sd = 1.0;  ///< θ ~ N(0, prior_sd² I)

  std::size_t size() const { return data->size(); }
  Eigen::Index dim() const { return data->dim(); }

  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    g.noalias() += (1.0 / (prior_sd * prior_sd)) * theta;
  }
  double prior_value(const Eigen::VectorXd& theta) const { return 0.5 * theta.squaredNorm() / (prior_sd * prior_sd); }

  /// g += scale · (exp(θᵀx_i) − y_i) x_i.
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    add_example_features(i, g, scale * example_coefficient(theta, i));
  }
  /// ψ_i(θ) = exp(θᵀx_i) − y_i, the residual: example i's gradient is ψ_i·x_i (GeneralisedLinearModel).
  double example_coefficient(const Eigen::VectorXd& theta, std::size_t i) const {
    const auto k = static_cast<Eigen::Index>(i);
    return std::exp(theta.dot(data->x.col(k))) - data->y[k];
  }
  /// g += scale · x_i.
  void add_example_features(std::size_t i, Eigen::VectorXd& g, double scale) const {
    g.noalias() += scale * data->x.col(static_cast<Eigen::Index>(i));
  }
  /// −log p(y_i | x_i, θ) = exp(z) − y_i z + log(y_i!), z = θᵀx_i.
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const {
    const auto k = static_cast<Eigen::Index>(i);
    const double z = theta.dot(data->x.col(k));
    const double y = data->y[k];
    return std::exp(z) - y * z + std::lgamma(y + 1.0);
  }
  /// log p(y_i | x_i, θ), every constant included (pointwise log-likelihood, for LOO).
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const { return -example_value(theta, i); }

  /// The Poisson mean exp(θᵀx) for a feature vector x.
  template <class V>
  double rate(const Eigen::VectorXd& theta, const V& x) const {
    return std::exp(theta.dot(x.template cast<double>()));
  }
};
static_assert(DataModel<PoissonRegression> && GeneralisedLinearModel<PoissonRegression>);

}  // namespace sgmcmc::models
