#pragma once
// Sample quantiles, R type 7 (numpy's default "linear"): the p-quantile of
// sorted x_0..x_{N-1} is x_k + (h - k)(x_{k+1} - x_k) with h = (N - 1) p,
// k = floor(h). Same definition as Stan's math::quantile, which Stan's
// tail-ESS and folded R-hat use (stan/analyze/mcmc/split_rank_normalized_*.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/chains.hpp>

namespace sgmcmc::diagnostics {

// Type-7 quantile of already ascending-sorted draws. NaN when empty or when
// p is outside [0, 1].
inline double quantile_sorted(const Eigen::VectorXd& sorted, double p) {
  const Eigen::Index n = sorted.size();
  if (n == 0 || !(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  const double h = static_cast<double>(n - 1) * p;
  const auto lo = static_cast<Eigen::Index>(std::floor(h));
  if (lo >= n - 1) return sorted(n - 1);
  const double frac = h - static_cast<double>(lo);
  // Skip the interpolation term when it is not needed so x + 0 * inf does
  // not turn an exact order statistic into NaN.
  if (frac == 0.0) return sorted(lo);
  return sorted(lo) + frac * (sorted(lo + 1) - sorted(lo));
}

// Type-7 quantile of unsorted draws: the two order statistics it needs are
// selected in linear time (nth_element on a copy), not by sorting; the value
// is the same as quantile_sorted's. NaN if any draw is NaN, since NaN has no
// place in an order.
inline double quantile(const Eigen::VectorXd& draws, double p) {
  const Eigen::Index n = draws.size();
  if (draws.hasNaN() || n == 0 || !(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x(draws.data(), draws.data() + n);
  const double h = static_cast<double>(n - 1) * p;
  const auto lo = std::min(static_cast<Eigen::Index>(std::floor(h)), n - 1);
  const auto at = x.begin() + lo;
  std::nth_element(x.begin(), at, x.end());
  const double below = *at;
  const double frac = h - static_cast<double>(lo);
  if (lo >= n - 1 || frac == 0.0) return below;
  const double above = *std::min_element(at + 1, x.end());  // the next order statistic
  return below + frac * (above - below);
}

// Type-7 quantile of the draws of all chains pooled, each chain truncated
// to the shortest one (see chains.hpp).
inline double pooled_quantile(const std::vector<Eigen::VectorXd>& chains, double p) {
  return quantile(pool(chains_to_matrix(chains)), p);
}

}  // namespace sgmcmc::diagnostics
