#pragma once
// The convergence warnings Stan prints after sampling (Vehtari, Gelman, Simpson, Carpenter & Bürkner
// 2021, "Rank-normalization, folding, and localization: an improved R̂", §4–5): rank-normalised split-R̂
// above 1.01, and bulk or tail ESS below 100 per chain (400 for Stan's default 4 chains), below which
// the MCSE estimates themselves are unreliable. A stochastic-gradient chain can pass all of these and
// still be biased by its step size: they say the chains agree and mixed, not that they are right.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/summary.hpp>

namespace sgmcmc::diagnostics {

struct WarningThresholds {
  double rhat = 1.01;
  double ess_per_chain = 100;
};

/// One line per kind of problem, naming how many coordinates have it and the worst one; empty when none.
inline std::vector<std::string> convergence_warnings(const std::vector<Summary>& sums, std::size_t chains,
                                                     const WarningThresholds& t = {}) {
  std::vector<std::string> out;
  const double ess_min = t.ess_per_chain * static_cast<double>(chains);
  struct Worst {
    std::size_t count = 0, at = 0;
    double value = 0;
  };
  Worst rhat, bulk, tail;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const Summary& s = sums[k];
    if (std::isfinite(s.rhat) && s.rhat > t.rhat && (rhat.count++ == 0 || s.rhat > rhat.value)) rhat.value = s.rhat, rhat.at = k;
    if (std::isfinite(s.ess_bulk) && s.ess_bulk < ess_min && (bulk.count++ == 0 || s.ess_bulk < bulk.value))
      bulk.value = s.ess_bulk, bulk.at = k;
    if (std::isfinite(s.ess_tail) && s.ess_tail < ess_min && (tail.count++ == 0 || s.ess_tail < tail.value))
      tail.value = s.ess_tail, tail.at = k;
  }
  const std::size_t n = sums.size();
  if (rhat.count)
    out.push_back(fmt::format("R-hat > {} for {} of {} coordinates (largest {:.3f}, coordinate {}): the chains have not "
                              "mixed; run longer, or check the step size and the initial points",
                              t.rhat, rhat.count, n, rhat.value, rhat.at));
  if (bulk.count)
    out.push_back(fmt::format("bulk ESS < {:.0f} ({:.0f} per chain) for {} of {} coordinates (smallest {:.0f}, coordinate {}): "
                              "means, sds and their MCSEs are unreliable; run longer",
                              ess_min, t.ess_per_chain, bulk.count, n, bulk.value, bulk.at));
  if (tail.count)
    out.push_back(fmt::format("tail ESS < {:.0f} ({:.0f} per chain) for {} of {} coordinates (smallest {:.0f}, coordinate {}): "
                              "the 5% and 95% quantiles are unreliable; run longer",
                              ess_min, t.ess_per_chain, tail.count, n, tail.value, tail.at));
  return out;
}

}  // namespace sgmcmc::diagnostics
