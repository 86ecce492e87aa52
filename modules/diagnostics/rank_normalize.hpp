#pragma once
// Rank normalisation of Vehtari, Gelman, Simpson, Carpenter & Buerkner (2021),
// "Rank-normalization, folding, and localization: an improved R-hat", eq. (14):
// pooled ranks r (ties averaged) -> z = Phi^{-1}((r - 3/8) / (S + 1/4)), S the
// number of pooled draws (Blom's offset). As Stan's
// stan/analyze/mcmc/rank_normalization.hpp and posterior's z_scale().
// Rank-based diagnostics then work for heavy tails and infinite variance.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/chains.hpp>
#include <sgmcmc/modules/diagnostics/normal_quantile.hpp>

namespace sgmcmc::diagnostics {

// Ranks 1..S of x, tied values sharing the average of their ranks. NaN
// entries are ordered last and get rank NaN, so sorting stays well defined.
inline Eigen::VectorXd average_ranks(const Eigen::VectorXd& x) {
  const Eigen::Index size = x.size();
  Eigen::VectorXd ranks(size);
  // (value, index) pairs sorted by value: one contiguous sort, not an indirect one through x.
  std::vector<std::pair<double, Eigen::Index>> order;
  order.reserve(static_cast<std::size_t>(size));
  for (Eigen::Index i = 0; i < size; ++i) {
    if (std::isnan(x(i))) ranks(i) = std::numeric_limits<double>::quiet_NaN();
    else order.emplace_back(x(i), i);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t i = 0;
  while (i < order.size()) {
    std::size_t j = i + 1;
    while (j < order.size() && order[j].first == order[i].first) ++j;
    // Ranks i+1..j (1-based) averaged.
    const double avg_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) ranks(order[k].second) = avg_rank;
    i = j;
  }
  return ranks;
}

// Rank-normalises all entries of a (draws x chains) matrix over the pooled
// draws, keeping the shape.
inline Eigen::MatrixXd rank_normalize_draws(const Eigen::MatrixXd& draws) {
  const Eigen::VectorXd ranks = average_ranks(pool(draws));
  const double denom = static_cast<double>(draws.size()) + 0.25;
  Eigen::MatrixXd z(draws.rows(), draws.cols());
  for (Eigen::Index i = 0; i < draws.size(); ++i) {
    z(i) = normal_quantile((ranks(i) - 0.375) / denom);
  }
  return z;
}

// Rank-normalised chains, pooled over all chains (truncated to the shortest).
inline std::vector<Eigen::VectorXd> rank_normalize(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::MatrixXd z = rank_normalize_draws(chains_to_matrix(chains));
  std::vector<Eigen::VectorXd> out;
  out.reserve(chains.size());
  for (Eigen::Index j = 0; j < z.cols(); ++j) out.emplace_back(z.col(j));
  return out;
}

}  // namespace sgmcmc::diagnostics
