#pragma once
// A mixture of von Mises–Fisher densities on S^{n-1}: U(x) = -log Σ_k w_k exp(κ_k μ_kᵀx)
// (docs/config.md, target `vmf_mixture`; the SGGMC paper's Fig. 3 circle target is w = (1, 2), κ = 5,
// μ₂ = -μ₁). Evaluated with log-sum-exp; ∇U = -Σ_k r_k κ_k μ_k with responsibilities r_k.
// The weights multiply exp(κ_k μ_kᵀx) directly, as the SGGMC paper writes the target (so they are
// not the mixture's component probabilities unless all κ_k are equal).
#include <cmath>
#include <vector>

#include <Eigen/Core>

namespace sgmcmc::models {

struct VmfMixture {
  Eigen::MatrixXd mus;         ///< n×K: column k is μ_k
  Eigen::VectorXd kappas;      ///< κ_k
  Eigen::VectorXd log_weights; ///< log w_k

  Eigen::Index dim() const { return mus.rows(); }
  // Writes the responsibilities into r and returns log Σ_k w_k exp(κ_k μ_kᵀx).
  double log_sum(const Eigen::VectorXd& x, Eigen::VectorXd& r) const {
    r = log_weights + kappas.cwiseProduct(mus.transpose() * x);
    const double m = r.maxCoeff();
    r = (r.array() - m).exp();
    const double s = r.sum();
    r /= s;
    return m + std::log(s);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    Eigen::VectorXd r;
    log_sum(x, r);
    g.noalias() = -(mus * r.cwiseProduct(kappas));
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const {
    Eigen::VectorXd r;
    return -log_sum(x, r);
  }
};

}  // namespace sgmcmc::models
