#pragma once
// The Gaussian target N(μ, Σ): U(θ) = ½(θ-μ)ᵀΣ⁻¹(θ-μ), ∇U = Σ⁻¹(θ-μ). An isotropic Σ = σ²I takes a
// fast path with no matrix product (the benchmark target).
#include <cmath>
#include <numbers>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::models {

struct Gaussian {
  Eigen::VectorXd mean;
  Eigen::MatrixXd precision;  ///< Σ⁻¹; empty for the isotropic case
  double isotropic_precision = 1.0;
  bool centered = false;  ///< mean == 0: the gradient need not read the mean vector
  double log_normalizer = 0.0;  ///< log Z, so value() is the normalised -log density

  Gaussian() = default;
  /// N(mean, variance·I).
  static Gaussian isotropic(Eigen::VectorXd mean, double variance) {
    require(std::isfinite(variance) && variance > 0, "cov: expected a positive variance, got {}", variance);
    Gaussian g;
    const double d = static_cast<double>(mean.size());
    g.mean = std::move(mean);
    g.isotropic_precision = 1.0 / variance;
    g.centered = g.mean.isZero(0.0);
    g.log_normalizer = 0.5 * d * std::log(2.0 * std::numbers::pi * variance);
    return g;
  }
  /// N(mean, cov) for a symmetric positive definite cov.
  static Gaussian dense(Eigen::VectorXd mean, const Eigen::MatrixXd& cov) {
    require(cov.rows() == mean.size() && cov.cols() == mean.size(),
            "cov: expected a {0}×{0} matrix, got {1}×{2}", mean.size(), cov.rows(), cov.cols());
    require(cov.isApprox(cov.transpose(), 1e-12), "cov: expected a symmetric matrix");
    Eigen::LLT<Eigen::MatrixXd> llt(cov);
    require(llt.info() == Eigen::Success, "cov: expected a positive definite matrix");
    Gaussian g;
    g.mean = std::move(mean);
    g.precision = llt.solve(Eigen::MatrixXd::Identity(cov.rows(), cov.cols()));
    g.precision = 0.5 * (g.precision + g.precision.transpose()).eval();
    const double logdet = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    g.log_normalizer = 0.5 * (static_cast<double>(cov.rows()) * std::log(2.0 * std::numbers::pi) + logdet);
    return g;
  }

  Eigen::Index dim() const { return mean.size(); }
  bool is_isotropic() const { return precision.size() == 0; }
  /// SeparablePotential: an isotropic Gaussian's gradient is coordinate-wise.
  bool is_separable() const { return is_isotropic(); }
  /// g[k] = ∂_{begin+k} U = λ(x[k] - μ_{begin+k}) (x, g at the chunk's first coordinate): the doubles
  /// exact_gradient writes. Isotropic only (is_separable()).
  void partial(Eigen::Index begin, Eigen::Index end, const double* x, double* g) const {
    const Eigen::Index len = end - begin;
    const double lambda = isotropic_precision;
    const double* __restrict xp = x;
    double* __restrict gp = g;
    if (centered) {
      for (Eigen::Index k = 0; k < len; ++k) gp[k] = lambda * xp[k];
    } else {
      const double* __restrict mu = mean.data() + begin;
      for (Eigen::Index k = 0; k < len; ++k) gp[k] = lambda * (xp[k] - mu[k]);
    }
  }

  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    if (is_isotropic() && centered) g = isotropic_precision * x;
    else if (is_isotropic()) g = isotropic_precision * (x - mean);
    else g.noalias() = precision * (x - mean);
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  /// Isotropic: no allocation (HMC and AMAGOLD call it every step). Dense: x − μ and Σ⁻¹(x − μ) are
  /// temporaries.
  double value(const Eigen::VectorXd& x) const {
    if (is_isotropic()) return 0.5 * (isotropic_precision * (x - mean).squaredNorm()) + log_normalizer;
    const Eigen::VectorXd d = x - mean;
    return 0.5 * d.dot(precision * d) + log_normalizer;
  }
};

}  // namespace sgmcmc::models
