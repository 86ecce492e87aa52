#pragma once
// Chain layout helpers shared by the diagnostics. Internally draws are held
// as a (draws x chains) matrix, like Stan's stan/analyze/mcmc code.

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

namespace sgmcmc::diagnostics {

// Length of the shortest chain (0 for no chains). Every diagnostic uses only
// the first common_length draws of each chain, so chains of unequal length
// are truncated to the shortest: the formulas assume equal lengths.
inline Eigen::Index common_length(const std::vector<Eigen::VectorXd>& chains) {
  if (chains.empty()) return 0;
  Eigen::Index n = chains.front().size();
  for (const auto& chain : chains) n = std::min(n, chain.size());
  return n;
}

// (common_length x chains) matrix of the first common_length draws per chain.
inline Eigen::MatrixXd chains_to_matrix(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::Index n = common_length(chains);
  Eigen::MatrixXd draws(n, static_cast<Eigen::Index>(chains.size()));
  for (std::size_t j = 0; j < chains.size(); ++j) {
    draws.col(static_cast<Eigen::Index>(j)) = chains[j].head(n);
  }
  return draws;
}

// All draws in one vector (column-major: chain after chain).
inline Eigen::VectorXd pool(const Eigen::MatrixXd& draws) {
  return draws.reshaped();
}

// Splits every chain into its first and second half, giving 2 * chains
// columns of floor(n / 2) draws, so that within-chain trends show up as
// between-chain differences (Vehtari et al. 2021, sec. 4.1). When n is odd the
// middle draw, number (n + 1) / 2, is dropped, as documented in Stan's
// split_chains.hpp and done by the posterior R package.
inline Eigen::MatrixXd split_chains(const Eigen::MatrixXd& draws) {
  const Eigen::Index half = draws.rows() / 2;
  Eigen::MatrixXd split(half, 2 * draws.cols());
  for (Eigen::Index j = 0; j < draws.cols(); ++j) {
    split.col(2 * j) = draws.col(j).head(half);
    split.col(2 * j + 1) = draws.col(j).tail(half);
  }
  return split;
}

// True when every draw is finite and not all draws are identical. Stan and
// posterior return NaN diagnostics otherwise (no autocorrelation or variance
// ratio exists). Like posterior we test the pooled draws, so a single stuck
// chain among moving ones still gets an (alarming) R-hat instead of NaN.
inline bool is_finite_and_varies(const Eigen::MatrixXd& draws) {
  if (draws.size() == 0 || !draws.allFinite()) return false;
  return draws.maxCoeff() != draws.minCoeff();
}

// Unbiased sample variance (divisor n - 1); NaN for fewer than 2 values.
inline double sample_variance(const Eigen::VectorXd& x) {
  if (x.size() < 2) return std::nan("");
  return (x.array() - x.mean()).square().sum() / static_cast<double>(x.size() - 1);
}

}  // namespace sgmcmc::diagnostics
