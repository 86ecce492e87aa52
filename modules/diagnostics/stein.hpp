#pragma once
// Stein diagnostics of a sample against its target, from each draw's score s(x) = −∇U(x) (the full-data
// gradient: a minibatch estimate would bias them):
// - the kernel Stein discrepancy with the inverse multiquadric kernel k(x, y) = (c² + ‖x − y‖²)^β
//   (Gorham & Mackey 2017, "Measuring sample quality with kernels", Thm. 8: with β ∈ (−1, 0) it
//   detects non-convergence for distantly dissipative targets), the V-statistic
//   KSD² = n⁻² Σ_{i,j} k₀(x_i, x_j), k₀ the Langevin Stein kernel
//   k₀(x, y) = s(x)ᵀs(y) k + s(x)ᵀ∇_y k + s(y)ᵀ∇_x k + ∇_x·∇_y k;
// - Stein thinning (Riabiz, Chen, Cockayne, Swietach, Niederer, Mackey & Oates 2022, "Optimal
//   thinning of MCMC output", Alg. 1): the greedy choice π_m = argmin_i [k₀(x_i, x_i)/2 + Σ_{j<m} k₀(x_{π_j}, x_i)],
//   which may pick a draw more than once;
// - the configurational temperature T_conf = ⟨(x − x̄)ᵀ∇U(x)⟩ / d: integration by parts gives
//   E[(x − a)ᵀ∇U(x)] = d·T under exp(−U/T) on ℝᵈ for any constant a (a density decaying at infinity),
//   so a correct chain gives 1, one that samples too wide (too hot) more.
// Draws and scores are d × n matrices, a draw per column. KSD and thinning cost O(n²d) and O(nmd).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::diagnostics {

/// k(x, y) = (c² + ‖x − y‖²)^β; Gorham & Mackey's default c = 1, β = −1/2.
struct ImqKernel {
  double c = 1.0;
  double beta = -0.5;
  void validate() const {
    require(c > 0 && std::isfinite(c), "IMQ kernel: c must be a positive number, got {}", c);
    require(beta > -1 && beta < 0, "IMQ kernel: beta must lie in (-1, 0), got {}", beta);
  }
};

/// k₀(x, y) for the IMQ kernel, written out with r² = ‖x − y‖², u = c² + r²:
///   ∇_x k = 2β u^{β−1}(x − y) = −∇_y k,   ∇_x·∇_y k = −2βd u^{β−1} − 4β(β − 1) r² u^{β−2},
///   k₀ = s_xᵀs_y u^β − 2β u^{β−1} (s_x − s_y)ᵀ(x − y) − 2βd u^{β−1} − 4β(β − 1) r² u^{β−2}.
template <class X, class SX, class Y, class SY>
double stein_kernel(const X& x, const SX& sx, const Y& y, const SY& sy, const ImqKernel& k = {}) {
  const double d = static_cast<double>(x.size());
  const double r2 = (x - y).squaredNorm();
  const double u = k.c * k.c + r2;
  const double b = k.beta;
  const double ub1 = std::pow(u, b - 1);  // u^{β−1}; u^β = u·ub1, u^{β−2} = ub1/u
  return sx.dot(sy) * u * ub1 - 2 * b * ub1 * (sx - sy).dot(x - y) - 2 * b * d * ub1 - 4 * b * (b - 1) * r2 * ub1 / u;
}

inline void check_sample(const Eigen::MatrixXd& draws, const Eigen::MatrixXd& scores) {
  require(draws.rows() == scores.rows() && draws.cols() == scores.cols(),
          "Stein diagnostics: {} × {} draws against {} × {} scores", draws.rows(), draws.cols(), scores.rows(), scores.cols());
  require(draws.cols() > 0, "Stein diagnostics: no draws");
  require(draws.allFinite() && scores.allFinite(), "Stein diagnostics: a draw or its score is not finite");
}

/// KSD of the draws (columns) with their scores: sqrt(n⁻² Σ_{i,j} k₀(x_i, x_j)), the V-statistic
/// (never negative: k₀ is a positive-definite kernel).
inline double kernel_stein_discrepancy(const Eigen::MatrixXd& draws, const Eigen::MatrixXd& scores, const ImqKernel& k = {}) {
  k.validate();
  check_sample(draws, scores);
  const Eigen::Index n = draws.cols();
  double sum = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    sum += stein_kernel(draws.col(i), scores.col(i), draws.col(i), scores.col(i), k);
    for (Eigen::Index j = i + 1; j < n; ++j) sum += 2 * stein_kernel(draws.col(i), scores.col(i), draws.col(j), scores.col(j), k);
  }
  return std::sqrt(std::max(0.0, sum) / (static_cast<double>(n) * static_cast<double>(n)));
}

/// KSD² as the U-statistic (n(n − 1))⁻¹ Σ_{i≠j} k₀(x_i, x_j): unbiased when each score carries its own
/// independent zero-mean noise — stochastic gradients, as the stochastic Stein discrepancy of Gorham,
/// Raj & Mackey (2020) uses them — where the V-statistic's diagonal k₀(x_i, x_i) adds that noise's
/// variance and would favour the settings with the least gradient noise. May be negative; needs n ≥ 2.
inline double kernel_stein_discrepancy_squared_u(const Eigen::MatrixXd& draws, const Eigen::MatrixXd& scores, const ImqKernel& k = {}) {
  k.validate();
  check_sample(draws, scores);
  const Eigen::Index n = draws.cols();
  require(n >= 2, "Stein diagnostics: the U-statistic needs two draws or more, got {}", n);
  double sum = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) sum += 2 * stein_kernel(draws.col(i), scores.col(i), draws.col(j), scores.col(j), k);
  return sum / (static_cast<double>(n) * static_cast<double>(n - 1));
}

/// The m draws Stein thinning picks, in the order picked (indices into the columns; repeats allowed).
inline std::vector<Eigen::Index> stein_thin(const Eigen::MatrixXd& draws, const Eigen::MatrixXd& scores, std::size_t m,
                                            const ImqKernel& k = {}) {
  k.validate();
  check_sample(draws, scores);
  require(m >= 1, "Stein thinning: the number of draws to keep must be at least 1");
  const Eigen::Index n = draws.cols();
  Eigen::VectorXd objective(n);
  for (Eigen::Index i = 0; i < n; ++i) objective[i] = stein_kernel(draws.col(i), scores.col(i), draws.col(i), scores.col(i), k) / 2;
  std::vector<Eigen::Index> picked;
  picked.reserve(m);
  for (std::size_t t = 0; t < m; ++t) {
    Eigen::Index best = 0;
    objective.minCoeff(&best);  // the first of equal values: deterministic
    picked.push_back(best);
    for (Eigen::Index i = 0; i < n; ++i) objective[i] += stein_kernel(draws.col(i), scores.col(i), draws.col(best), scores.col(best), k);
  }
  return picked;
}

/// ⟨(x − x̄)ᵀ∇U(x)⟩ / d over the draws, with ∇U = −score: 1 for a sample at the target's temperature.
inline double configurational_temperature(const Eigen::MatrixXd& draws, const Eigen::MatrixXd& scores) {
  check_sample(draws, scores);
  const Eigen::VectorXd mean = draws.rowwise().mean();
  double sum = 0;
  for (Eigen::Index i = 0; i < draws.cols(); ++i) sum -= (draws.col(i) - mean).dot(scores.col(i));
  return sum / (static_cast<double>(draws.cols()) * static_cast<double>(draws.rows()));
}

}  // namespace sgmcmc::diagnostics
