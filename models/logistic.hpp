#pragma once
// Bayesian logistic regression, a DataModel for models::Minibatch (Welling & Teh 2011, §5.1):
//   U(θ) = ‖θ‖²/(2σ²) + Σ_i [log(1 + e^{θᵀx_i}) − y_i θᵀx_i],   y_i ∈ {0, 1},
//   ∇U(θ) = θ/σ² + Σ_i (σ(θᵀx_i) − y_i) x_i.
// The data are shared (shared_ptr<const Dataset>): copying the model for another chain copies no
// data. Per-example gradients are available, so the minibatch noise covariance B̂ can be estimated by
// the empirical Fisher information (SGHMC paper §3.2; `minibatch_noise`).
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/models/data/dataset.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::models {

struct LogisticRegression {
  std::shared_ptr<const data::Dataset<double>> data;
  double prior_sd = 1.0;  ///< θ ~ N(0, prior_sd² I)

  std::size_t size() const { return data->size(); }
  Eigen::Index dim() const { return data->dim(); }

  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    g.noalias() += (1.0 / (prior_sd * prior_sd)) * theta;
  }
  double prior_value(const Eigen::VectorXd& theta) const { return 0.5 * theta.squaredNorm() / (prior_sd * prior_sd); }

  /// g += scale · (σ(θᵀx_i) − y_i) x_i.
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    const auto xi = data->x.col(static_cast<Eigen::Index>(i));
    const double z = theta.dot(xi);
    const double r = 1.0 / (1.0 + std::exp(-z)) - data->y[static_cast<Eigen::Index>(i)];
    g.noalias() += (scale * r) * xi;
  }
  /// log(1 + e^z) − y z, computed without overflow.
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const {
    const double z = theta.dot(data->x.col(static_cast<Eigen::Index>(i)));
    const double softplus = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
    return softplus - data->y[static_cast<Eigen::Index>(i)] * z;
  }

  /// P(y = 1 | x, θ) for a feature vector x.
  template <class V>
  double probability(const Eigen::VectorXd& theta, const V& x) const {
    return 1.0 / (1.0 + std::exp(-theta.dot(x.template cast<double>())));
  }
};
static_assert(DataModel<LogisticRegression>);

/// Fraction of examples of `d` misclassified by the predictive probability `p(x)` thresholded at ½.
template <class S, class F>
double error_rate(const data::Dataset<S>& d, F&& p) {
  std::size_t wrong = 0;
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(d.size()); ++i) wrong += (p(d.x.col(i)) > 0.5) != (d.y[i] == 1);
  return static_cast<double>(wrong) / static_cast<double>(d.size());
}

/// The covariance of the minibatch gradient's noise at θ for batches of n drawn with replacement,
/// estimated by the empirical Fisher information over `sample` examples:
///   B̂ = (N²/n) · Cov_i[∇ℓ_i(θ)],  ℓ_i = −log p(y_i | x_i, θ)   (SGHMC paper §3.2, Eq. 12's B̂).
/// Its mean diagonal is the scalar noise estimate V̂ the samplers take.
template <DataModel M>
Eigen::MatrixXd minibatch_noise(const M& model, const Eigen::VectorXd& theta, std::size_t n) {
  const std::size_t N = model.size();
  const auto d = theta.size();
  Eigen::VectorXd gi(d), mean = Eigen::VectorXd::Zero(d);
  Eigen::MatrixXd second = Eigen::MatrixXd::Zero(d, d);
  for (std::size_t i = 0; i < N; ++i) {
    gi.setZero();
    model.add_example_gradient(theta, i, gi, 1.0);
    mean += gi;
    second.selfadjointView<Eigen::Lower>().rankUpdate(gi);
  }
  mean /= static_cast<double>(N);
  Eigen::MatrixXd cov = second.selfadjointView<Eigen::Lower>();
  cov = cov / static_cast<double>(N) - mean * mean.transpose();
  return (static_cast<double>(N) * static_cast<double>(N) / static_cast<double>(n)) * cov;
}

}  // namespace sgmcmc::models
