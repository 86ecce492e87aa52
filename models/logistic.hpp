#pragma once
// Bayesian logistic regression, a DataModel for models::Minibatch (Welling & Teh 2011, §5.1):
//   U(θ) = ‖θ‖²/(2σ²) + Σ_i [log(1 + e^{θᵀx_i}) − y_i θᵀx_i],   y_i ∈ {0, 1},
//   ∇U(θ) = θ/σ² + Σ_i (σ(θᵀx_i) − y_i) x_i.
// The data are shared (shared_ptr<const Dataset>): copying the model for another chain copies no
// data. Per-example gradients are available, so the minibatch noise covariance B̂ can be estimated by
// the empirical Fisher information (SGHMC paper §3.2; `minibatch_noise`). The minibatch gradient itself
// takes the batched path (`add_batch_gradient`: the batch's examples gathered into one d × n matrix, two
// matrix–vector products and a vectorised sigmoid): SGHMC steps 1.6–2.1× faster than with n dot
// products and n axpys (bench/bench_logistic.cpp, docs/benchmarks.md).
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::models {

struct LogisticRegression {
  std::shared_ptr<const data::Dataset<double>> data;
  double prior_sd = 1.0;  ///< θ ~ N(0, prior_sd² I)
  /// Scratch for add_batch_gradient, reused: no allocation after the first batch. Derived data, not
  /// state: copying the model copies it harmlessly, but one model object must not be used by two threads
  /// at once (as models::Minibatch's scratch). The `{}` keeps `LogisticRegression{data, sd}` warning-free.
  struct BatchScratch {
    Eigen::MatrixXd x;     ///< the batch's examples, d × n
    Eigen::VectorXd y, r;  ///< their labels; z = X_bᵀθ, then the residuals σ(z) − y
  };
  mutable BatchScratch batch{};

  std::size_t size() const { return data->size(); }
  Eigen::Index dim() const { return data->dim(); }

  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    g.noalias() += (1.0 / (prior_sd * prior_sd)) * theta;
  }
  double prior_value(const Eigen::VectorXd& theta) const { return 0.5 * theta.squaredNorm() / (prior_sd * prior_sd); }

  /// g += scale · Σ_{i ∈ idx} (σ(θᵀx_i) − y_i) x_i = scale · X_b (σ(X_bᵀθ) − y_b): the likelihood term of
  /// Welling & Teh 2011 Eq. 3 (scale = N/n) on the batch's examples gathered into X_b (d × n), as two
  /// matrix–vector products instead of n dot products and n axpys. A repeated index (batches drawn with
  /// replacement) counts once per occurrence, as in the per-example sum; the result equals
  /// Σ add_example_gradient up to rounding (the sums run in another order), deterministically.
  void add_batch_gradient(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& g,
                          double scale) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    gather_residuals(theta, idx);
    g.noalias() += scale * (batch.x.leftCols(n) * batch.r.head(n));
  }
  /// g += scale · Σ_k (ψ_{idx_k}(θ) − c_k) x_{idx_k}, c_k a reference coefficient per batch position, and
  /// c_k ← ψ_{idx_k}(θ): the control variate's correction (models/control_variate.hpp, ψ at its centre)
  /// and SAGA's (models/saga.hpp, its table's entries, which it then replaces) in one gathered pass.
  void add_batch_gradient_relative(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& c,
                                   Eigen::VectorXd& g, double scale) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    gather_residuals(theta, idx);
    auto r = batch.r.head(n);  // ψ(θ) on the batch
    for (Eigen::Index k = 0; k < n; ++k) {
      const double psi = r[k];
      r[k] = psi - c[k];
      c[k] = psi;
    }
    g.noalias() += scale * (batch.x.leftCols(n) * batch.r.head(n));
  }

  /// ψ_i(θ) for the examples i = begin, …, begin + ψ.size() − 1, stored contiguously: one matrix–vector
  /// product over the block, no gather (the full-data passes: models::Minibatch::exact_gradient).
  void range_coefficients(const Eigen::VectorXd& theta, std::size_t begin, Eigen::Ref<Eigen::VectorXd> psi) const {
    const auto b = static_cast<Eigen::Index>(begin), m = psi.size();
    psi.noalias() = data->x.middleCols(b, m).transpose() * theta;
    residuals(psi, data->y.segment(b, m));
  }
  /// g += scale · Σ_k c_k x_{begin + k}.
  void add_range_features(std::size_t begin, const Eigen::Ref<const Eigen::VectorXd>& c, Eigen::VectorXd& g, double scale) const {
    g.noalias() += scale * (data->x.middleCols(static_cast<Eigen::Index>(begin), c.size()) * c);
  }
  /// Σ_k [log(1 + e^{θᵀx_k}) − y_k θᵀx_k] over the examples k = begin, …, begin + z.size() − 1, vectorised
  /// over the block; leaves their ψ_k(θ) in z (the gradient's weights, for a one-pass U and ∇U).
  double range_value(const Eigen::VectorXd& theta, std::size_t begin, Eigen::Ref<Eigen::VectorXd> z) const {
    const auto b = static_cast<Eigen::Index>(begin), m = z.size();
    const auto y = data->y.segment(b, m);
    z.noalias() = data->x.middleCols(b, m).transpose() * theta;
    // softplus(z) = max(z, 0) + log1p(e^{−|z|}): no overflow at any z (example_value's two branches).
    const double u = (z.array().max(0.0) + (-z.array().abs()).exp().log1p() - y.cast<double>().array() * z.array()).sum();
    residuals(z, y);
    return u;
  }

  /// g += scale · (σ(θᵀx_i) − y_i) x_i.
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    add_example_features(i, g, scale * example_coefficient(theta, i));
  }
  /// ψ_i(θ) = σ(θᵀx_i) − y_i, the residual: example i's gradient is ψ_i·x_i (GeneralisedLinearModel).
  double example_coefficient(const Eigen::VectorXd& theta, std::size_t i) const {
    const double z = theta.dot(data->x.col(static_cast<Eigen::Index>(i)));
    return 1.0 / (1.0 + std::exp(-z)) - data->y[static_cast<Eigen::Index>(i)];
  }
  /// g += scale · x_i.
  void add_example_features(std::size_t i, Eigen::VectorXd& g, double scale) const {
    g.noalias() += scale * data->x.col(static_cast<Eigen::Index>(i));
  }
  /// log(1 + e^z) − y z, computed without overflow.
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const {
    const double z = theta.dot(data->x.col(static_cast<Eigen::Index>(i)));
    const double softplus = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
    return softplus - data->y[static_cast<Eigen::Index>(i)] * z;
  }

  /// log p(y_i | x_i, θ), every constant included (pointwise log-likelihood, for LOO).
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const { return -example_value(theta, i); }

  /// Gathers the batch's examples into batch.x (d × n) and sets batch.r = σ(X_bᵀθ) − y_b.
  void gather_residuals(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    auto& [x_store, y_store, r_store] = batch;
    // The scratch only grows: a shard's part of a batch (models::Shard) changes size every step, and
    // a matrix resized to each would be a fresh allocation (megabytes, page faults) per step.
    if (x_store.rows() != dim() || x_store.cols() < n) x_store.resize(dim(), n), y_store.resize(n), r_store.resize(n);
    auto xb = x_store.leftCols(n);
    auto yb = y_store.head(n);
    auto r = r_store.head(n);
    // Ask for every column's cache lines before copying any: the columns lie scattered over the data
    // set, and a gather that misses one line at a time waits on memory for most of a step.
    const double* base = data->x.data();
    const Eigen::Index d = dim();
    for (Eigen::Index k = 0; k < n; ++k) {
      const double* col = base + static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]) * d;
      for (Eigen::Index j = 0; j < d; j += 8) __builtin_prefetch(col + j);
    }
    for (Eigen::Index k = 0; k < n; ++k) {
      const auto i = static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]);
      xb.col(k) = data->x.col(i);
      yb[k] = data->y[i];
    }
    r.noalias() = xb.transpose() * theta;  // z = X_bᵀθ
    residuals(r, yb);
  }
  /// z ← σ(z) − y, σ(z) = 1/(1 + e^{−z}) with the exponent capped at 709 so e^{−z} stays finite (the
  /// naive form computes e^{800} = inf at z = −800). The cap changes σ only where z < −709, from below
  /// 10⁻³⁰⁸ to about 10⁻³⁰⁸: an absolute 10⁻³⁰⁸ in the residual. One vectorised exp per example; the
  /// exact e^{min(z,0)}/(1 + e^{−|z|}) costs a second one, 3–7 % of a step at d = 50, n = 100.
  template <class Z, class Y>
  static void residuals(Z&& z, const Y& y) {
    z.array() = (1.0 + (-z.array()).min(709.0).exp()).inverse() - y.template cast<double>().array();
  }

  /// P(y = 1 | x, θ) for a feature vector x.
  template <class V>
  double probability(const Eigen::VectorXd& theta, const V& x) const {
    return 1.0 / (1.0 + std::exp(-theta.dot(x.template cast<double>())));
  }
};
static_assert(BatchDataModel<LogisticRegression> && GeneralisedLinearModel<LogisticRegression> &&
              BatchGeneralisedLinearModel<LogisticRegression> && RangeGeneralisedLinearModel<LogisticRegression>);

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
