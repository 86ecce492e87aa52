#pragma once
// Effective sample size for several chains, following Vehtari, Gelman,
// Simpson, Carpenter & Buerkner (2021), "Rank-normalization, folding, and
// localization: an improved R-hat", sec. 3.2 and 4, and Stan's
// stan/analyze/mcmc/compute_effective_sample_size.hpp, ess.hpp and
// split_rank_normalized_ess.hpp.
//
// Minimum lengths (otherwise NaN, never a crash): ess_basic needs >= 4 draws
// per chain, Stan's precondition. ess_bulk, ess_tail and mcse_mean work on
// split chains and, like Stan's split_rank_normalized_ess, need >= 4 draws
// per half, i.e. >= 8 per chain. Chains of unequal length are truncated to
// the shortest. Non-finite or all-identical draws give NaN, as in Stan.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/autocovariance.hpp>
#include <sgmcmc/modules/diagnostics/chains.hpp>
#include <sgmcmc/modules/diagnostics/quantile.hpp>
#include <sgmcmc/modules/diagnostics/rank_normalize.hpp>

namespace sgmcmc::diagnostics {

// The chains' autocovariances (autocovariance.hpp's estimator: lag k summed over n - k terms, divided
// by n), at the lags the ESS asks for. Geyer's sequence usually stops after a few lags, so the first
// `direct_lags` are summed directly (n flops a lag and chain); a chain that needs more gets every lag
// at once by FFT (O(n log n)). Both give the same estimator; they differ only in rounding.
class LagAutocovariance {
 public:
  static constexpr Eigen::Index direct_lags = 128;
  explicit LagAutocovariance(const Eigen::MatrixXd& draws)
      : draws_(draws), centred_(draws.rowwise() - draws.colwise().mean()) {}
  /// acov_j(lag) of chain j.
  double at(Eigen::Index lag, Eigen::Index j) {
    const Eigen::Index n = centred_.rows();
    if (lag < direct_lags && full_.size() == 0)
      return centred_.col(j).head(n - lag).dot(centred_.col(j).tail(n - lag)) / static_cast<double>(n);
    if (full_.size() == 0) {
      full_.resize(n, centred_.cols());
      for (Eigen::Index c = 0; c < centred_.cols(); ++c) full_.col(c) = autocovariance(draws_.col(c));
    }
    return full_(lag, j);
  }
  /// The mean over chains of acov_j(lag).
  double mean_at(Eigen::Index lag) {
    double sum = 0.0;
    for (Eigen::Index j = 0; j < centred_.cols(); ++j) sum += at(lag, j);
    return sum / static_cast<double>(centred_.cols());
  }

 private:
  const Eigen::MatrixXd& draws_;
  Eigen::MatrixXd centred_;
  Eigen::MatrixXd full_;  ///< every lag of every chain, once a chain needs more than direct_lags
};

// ESS of a (draws x chains) matrix, no splitting: Stan's ess().
inline double ess_of_draws(const Eigen::MatrixXd& draws) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Eigen::Index n = draws.rows();
  const Eigen::Index m = draws.cols();
  if (m < 1 || n < 4 || !is_finite_and_varies(draws)) return nan;

  LagAutocovariance acov(draws);
  Eigen::VectorXd chain_mean(m);
  Eigen::VectorXd chain_var(m);
  const double nd = static_cast<double>(n);
  for (Eigen::Index j = 0; j < m; ++j) {
    chain_mean(j) = draws.col(j).mean();
    chain_var(j) = acov.at(0, j) * nd / (nd - 1.0);
  }

  // eq. (3): var+ = (n-1)/n W + B/n, W the mean within-chain variance.
  const double mean_var = chain_var.mean();
  double var_plus = mean_var * (nd - 1.0) / nd;
  if (m > 1) var_plus += sample_variance(chain_mean);
  if (!(var_plus > 0.0) || !std::isfinite(var_plus)) return nan;

  // eq. (10): combined-chain autocorrelation at a lag; using var+ rather than
  // W makes disagreeing chains look autocorrelated, lowering the ESS.
  auto rho_at = [&](Eigen::Index lag) {
    return 1.0 - (mean_var - acov.mean_at(lag)) / var_plus;
  };

  // Geyer's initial positive sequence: sum pairs (rho_{2k}, rho_{2k+1}) while
  // the pair sum is positive, eq. (11). Stopping at n - 4 leaves room for the
  // antithetic term below.
  Eigen::VectorXd rho = Eigen::VectorXd::Zero(n);
  double rho_even = 1.0;
  rho(0) = rho_even;
  double rho_odd = rho_at(1);
  rho(1) = rho_odd;
  Eigen::Index t = 1;
  while (t < n - 4 && rho_even + rho_odd > 0.0) {  // false on NaN too
    rho_even = rho_at(t + 1);
    rho_odd = rho_at(t + 2);
    if (rho_even + rho_odd >= 0.0) {
      rho(t + 1) = rho_even;
      rho(t + 2) = rho_odd;
    }
    t += 2;
  }
  const Eigen::Index max_t = t;
  // Paper p. 8, "In extreme antithetic cases": keep the last positive even
  // lag as a bias term; it reduces the variance for antithetic chains.
  if (rho_even > 0.0) rho(max_t + 1) = rho_even;

  // Geyer's initial monotone sequence: pair sums must not increase.
  for (Eigen::Index s = 1; s <= max_t - 3; s += 2) {
    if (rho(s + 1) + rho(s + 2) > rho(s - 1) + rho(s)) {
      rho(s + 1) = 0.5 * (rho(s - 1) + rho(s));
      rho(s + 2) = rho(s + 1);
    }
  }

  const double total = nd * static_cast<double>(m);
  // eq. (13) with Stan's antithetic modification; tau >= 1/log10(S) caps the
  // ESS at S log10(S) so antithetic chains cannot claim unbounded precision.
  // Indexing is Stan's; posterior's R code agrees except when the loop above
  // runs into the end of the chain without meeting a negative pair.
  double tau = -1.0 + 2.0 * rho.head(max_t).sum() + rho(max_t + 1);
  tau = std::max(tau, 1.0 / std::log10(total));
  return total / tau;
}

// ESS of the chains as given (no splitting, no rank normalisation).
inline double ess_basic(const std::vector<Eigen::VectorXd>& chains) {
  return ess_of_draws(chains_to_matrix(chains));
}

// Bulk ESS: ESS of the split, rank-normalised chains (paper sec. 4.3); it
// measures the efficiency of location estimates and exists even without a
// finite variance.
inline double ess_bulk(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::MatrixXd split = split_chains(chains_to_matrix(chains));
  if (split.rows() < 4 || !is_finite_and_varies(split)) return std::numeric_limits<double>::quiet_NaN();
  return ess_of_draws(rank_normalize_draws(split));
}

// Tail ESS: the smaller ESS of the indicators I(x <= q05) and I(x >= q95),
// quantiles over the pooled split draws (paper sec. 4.3; Stan's
// split_rank_normalized_ess). If one indicator is degenerate (NaN ESS) the
// other is used, as Stan does.
inline double ess_tail(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::MatrixXd split = split_chains(chains_to_matrix(chains));
  if (split.rows() < 4 || !is_finite_and_varies(split)) return std::numeric_limits<double>::quiet_NaN();
  const Eigen::VectorXd pooled = pool(split);
  const double q05 = quantile(pooled, 0.05);
  const double q95 = quantile(pooled, 0.95);
  const double ess_05 = ess_of_draws((split.array() <= q05).cast<double>().matrix());
  const double ess_95 = ess_of_draws((split.array() >= q95).cast<double>().matrix());
  if (std::isnan(ess_05)) return ess_95;
  if (std::isnan(ess_95)) return ess_05;
  return std::min(ess_05, ess_95);
}

// Monte Carlo standard error of the mean: sd / sqrt(ESS), the ESS being
// ess_basic of the split (not rank-normalised) chains and sd that of all
// pooled draws, as posterior's mcse_mean() (Stan's mcse.hpp).
inline double mcse_mean(const std::vector<Eigen::VectorXd>& chains) {
  const Eigen::MatrixXd draws = chains_to_matrix(chains);
  const Eigen::MatrixXd split = split_chains(draws);
  if (split.rows() < 4 || !is_finite_and_varies(split)) return std::numeric_limits<double>::quiet_NaN();
  const double ess = ess_of_draws(split);
  return std::sqrt(sample_variance(pool(draws)) / ess);
}

}  // namespace sgmcmc::diagnostics
