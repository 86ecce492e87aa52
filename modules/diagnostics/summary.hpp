#pragma once
// Per-quantity posterior summary in the style of Stan's stansummary and
// posterior's summarise_draws(): moments, quantiles and the Vehtari et al.
// (2021) convergence diagnostics.
//
// Edge cases (never a crash):
//  * chains of unequal length are truncated to the shortest;
//  * mean/sd/quantiles use all (truncated) pooled draws; sd needs 2 draws;
//  * fewer than 4 draws per chain: rhat NaN; ESS and mcse_mean need 8 draws
//    per chain (4 per split half, as Stan), NaN below that;
//  * constant or non-finite draws: ESS, mcse_mean and rhat NaN, as Stan;
//  * no chains or no draws: every field NaN.

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/chains.hpp>
#include <sgmcmc/modules/diagnostics/ess.hpp>
#include <sgmcmc/modules/diagnostics/quantile.hpp>
#include <sgmcmc/modules/diagnostics/rhat.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/parallel/worker_pool.hpp>

namespace sgmcmc::diagnostics {

struct Summary {
  double mean;
  double sd;
  double q5;
  double q50;
  double q95;
  double mcse_mean;
  double ess_bulk;
  double ess_tail;
  double rhat;
};

// Summary of one scalar quantity; chains[c] holds chain c's draws.
inline Summary summarize(const std::vector<Eigen::VectorXd>& chains) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Summary s{nan, nan, nan, nan, nan, nan, nan, nan, nan};
  const Eigen::VectorXd pooled = pool(chains_to_matrix(chains));
  if (pooled.size() == 0) return s;

  s.mean = pooled.mean();
  s.sd = std::sqrt(sample_variance(pooled));
  if (!pooled.hasNaN()) {
    Eigen::VectorXd sorted = pooled;
    std::sort(sorted.data(), sorted.data() + sorted.size());
    s.q5 = quantile_sorted(sorted, 0.05);
    s.q50 = quantile_sorted(sorted, 0.50);
    s.q95 = quantile_sorted(sorted, 0.95);
  }
  s.mcse_mean = mcse_mean(chains);
  s.ess_bulk = ess_bulk(chains);
  s.ess_tail = ess_tail(chains);
  s.rhat = rhat(chains);
  return s;
}

// One Summary per coordinate; chains[c] is chain c as a (draws x coordinates)
// matrix. All chains must have the same number of columns
// (sgmcmc::Error otherwise); rows are truncated to the shortest chain.
// Coordinates are summarised on `threads` threads (each is independent of the
// others, so the result does not depend on the thread count).
inline std::vector<Summary> summarize_columns(const std::vector<Eigen::MatrixXd>& chains, unsigned threads = 1) {
  if (chains.empty()) return {};
  const Eigen::Index dims = chains.front().cols();
  Eigen::Index n = chains.front().rows();
  for (const auto& chain : chains) {
    if (chain.cols() != dims) {
      throw Error("summarize_columns: chains differ in number of columns");
    }
    n = std::min(n, chain.rows());
  }
  std::vector<Summary> out(static_cast<std::size_t>(dims));
  auto one = [&](std::size_t d, unsigned /*worker*/) {
    std::vector<Eigen::VectorXd> column(chains.size());
    for (std::size_t c = 0; c < chains.size(); ++c) column[c] = chains[c].col(static_cast<Eigen::Index>(d)).head(n);
    out[d] = summarize(column);
  };
  parallel::WorkerPool pool(std::min<unsigned>(std::max(1u, threads), static_cast<unsigned>(std::max<Eigen::Index>(1, dims))));
  pool.for_each(static_cast<std::size_t>(dims), one);
  return out;
}

}  // namespace sgmcmc::diagnostics
