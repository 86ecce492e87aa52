#pragma once
// Potential scale reduction R-hat: Vehtari, Gelman, Simpson, Carpenter &
// Buerkner (2021), "Rank-normalization, folding, and localization: an
// improved R-hat", sec. 4; Stan's stan/analyze/mcmc/rhat.hpp and
// split_rank_normalized_rhat.hpp.
//
// Needs >= 4 draws per chain (2 per split half), otherwise NaN. Chains of
// unequal length are truncated to the shortest. Non-finite or all-identical
// draws give NaN, as in Stan.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/chains.hpp>
#include <sgmcmc/modules/diagnostics/quantile.hpp>
#include <sgmcmc/modules/diagnostics/rank_normalize.hpp>

namespace sgmcmc::diagnostics {

// Classic R-hat of a (draws x chains) matrix, eq. (3)-(4):
// sqrt(((n-1)/n W + B/n) / W).
inline double rhat_of_draws(const Eigen::MatrixXd& draws) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Eigen::Index n = draws.rows();
  const Eigen::Index m = draws.cols();
  if (n < 2 || m < 2 || !is_finite_and_varies(draws)) return nan;
  const double nd = static_cast<double>(n);

  const Eigen::VectorXd chain_mean = draws.colwise().mean().transpose();
  Eigen::VectorXd chain_var(m);
  for (Eigen::Index j = 0; j < m; ++j) chain_var(j) = sample_variance(draws.col(j));
  const double between = nd * sample_variance(chain_mean);
  const double within = chain_var.mean();
  // Every chain constant but chains disagree: infinitely bad mixing.
  if (!(within > 0.0)) return between > 0.0 ? std::numeric_limits<double>::infinity() : nan;
  return std::sqrt((between / within + nd - 1.0) / nd);
}

// Split-R-hat without rank normalisation (posterior's rhat_basic()).
inline double rhat_basic(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::MatrixXd draws = chains_to_matrix(chains);
  if (draws.rows() < 4) return std::numeric_limits<double>::quiet_NaN();
  return rhat_of_draws(split_chains(draws));
}

// Rank-normalised split-R-hat, the larger of the bulk value (location
// differences) and the folded value |x - median| (scale differences); the
// paper's recommended R-hat. NaN if either part is NaN, since convergence
// then cannot be certified.
inline double rhat(const std::vector<Eigen::VectorXd>& chains) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Eigen::MatrixXd draws = chains_to_matrix(chains);
  if (draws.rows() < 4) return nan;
  const Eigen::MatrixXd split = split_chains(draws);
  if (!is_finite_and_varies(split)) return nan;

  const double bulk = rhat_of_draws(rank_normalize_draws(split));
  // Fold at the median of the split draws, as Stan does.
  const double median = quantile(pool(split), 0.5);
  const Eigen::MatrixXd folded = (split.array() - median).abs().matrix();
  const double tail = rhat_of_draws(rank_normalize_draws(folded));
  if (std::isnan(bulk) || std::isnan(tail)) return nan;
  return std::max(bulk, tail);
}

}  // namespace sgmcmc::diagnostics
