#pragma once
// The checks of a chain's kept draws (modules/diagnostics/chain_check.hpp), for a C++ `Chain` user: one
// call after the run, from what the chain knows — its sampler's statistics (an acceptance, a kinetic
// energy), its space (SamplerOnManifold) and its potential's exact gradient (PotentialWithValue) — and a
// printer of the draws' summary with every warning. The CLI writes the same checks into every output
// (docs/diagnostics.md).
#include <cstddef>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/diagnostics/chain_check.hpp>
#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/modules/diagnostics/warnings.hpp>

namespace sgmcmc {

namespace detail {
/// Whether the configurational temperature can be measured for this chain: draws in ℝᵈ (a sampler on
/// `Euclidean`; on a manifold, or with reflecting faces, integration by parts has other terms) and an
/// exact gradient. Empty when it can; else why not.
template <class S, class P>
std::string configurational_skip_reason() {
  if constexpr (!SamplerOnManifold<S>) return "the sampler does not say its space (SamplerOnManifold)";
  else if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(std::declval<const S&>().manifold_of())>, Euclidean>)
    return "the draws are on a manifold (the configurational temperature is for R^d)";
  else if constexpr (!PotentialWithValue<P>) return "the potential has no exact gradient (PotentialWithValue)";
  else return {};
}
}  // namespace detail

/// The checks of `draws` (this chain's kept draws, as KeepDraws or Chain::advance collected them): the
/// acceptance of an MH sampler, whether the chain moved, the kinetic temperature of a momentum sampler,
/// and, for a flat target with an exact gradient, the configurational temperature on at most 1000
/// evenly spaced draws (one exact gradient each: the cost of 1000 full-data gradients on a data target).
/// Warm-up draws (Draws::warmup_rows) are not judged.
template <class S, class P, class R>
diagnostics::ChainCheck check(const Chain<S, P, R>& chain, const Draws& draws, const diagnostics::CheckThresholds& thresholds = {}) {
  const std::size_t n = draws.count() - draws.warmup_rows;
  Eigen::Index momentum_dim = 0;
  if constexpr (S::statistics.has(stats::kinetic_energy)) {
    if constexpr (SamplerOnManifold<S>) momentum_dim = static_cast<Eigen::Index>(chain.sampler.manifold_of().intrinsic_dim());
    else momentum_dim = draws.dim;
  }
  diagnostics::ChainChecker checker(draws.dim, n, {.has_acceptance = S::statistics.has(stats::acceptance), .momentum_dim = momentum_dim},
                                    thresholds);
  const auto rows = draws.matrix();
  for (std::size_t i = draws.warmup_rows; i < draws.count(); ++i)
    checker.observe(rows.row(static_cast<Eigen::Index>(i)).transpose(), draws.stats[i]);
  const std::string skip = detail::configurational_skip_reason<S, P>();
  if constexpr (SamplerOnManifold<S> && PotentialWithValue<P>) {
    if (skip.empty())
      return checker.finish([&](const Eigen::VectorXd& x, Eigen::VectorXd& g) { chain.potential.exact_gradient(x, g); });
  }
  return checker.finish(nullptr, skip);
}

/// Prints the draws' summary (mean, sd, 5/50/95 % quantiles, bulk and tail ESS, R̂ per coordinate; at
/// most `max_rows` rows) and then every warning: each chain's checks, Stan's convergence warnings, and
/// each chain that stopped with its cause.
inline void print_summary(std::ostream& os, const std::vector<Draws>& chains, const std::vector<diagnostics::ChainCheck>& checks,
                          const std::vector<ChainStatus>& status = {}, std::size_t max_rows = 20) {
  std::vector<Eigen::MatrixXd> kept;
  for (const Draws& d : chains) {
    const auto m = d.matrix();
    kept.emplace_back(m.bottomRows(static_cast<Eigen::Index>(d.count() - d.warmup_rows)));
  }
  const std::vector<diagnostics::Summary> sums = diagnostics::summarize_columns(kept);
  os << fmt::format("{:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>7}\n", "", "mean", "sd", "5%", "50%", "95%", "ess_bulk",
                    "ess_tail", "rhat");
  for (std::size_t k = 0; k < sums.size() && k < max_rows; ++k) {
    const diagnostics::Summary& s = sums[k];
    os << fmt::format("{:>8} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>8.0f} {:>8.0f} {:>7.3f}\n", fmt::format("x[{}]", k),
                      s.mean, s.sd, s.q5, s.q50, s.q95, s.ess_bulk, s.ess_tail, s.rhat);
  }
  if (sums.size() > max_rows) os << fmt::format("({} more coordinates)\n", sums.size() - max_rows);
  for (std::size_t i = 0; i < checks.size(); ++i)
    for (const diagnostics::CheckWarning& w : checks[i].warnings) os << fmt::format("warning: chain {}: {}\n", i, w.message);
  for (const std::string& w : diagnostics::convergence_warnings(sums, chains.size())) os << "warning: " << w << '\n';
  for (std::size_t i = 0; i < status.size(); ++i)
    if (!status[i].ok()) os << fmt::format("warning: chain {} stopped early: {}\n", i, status[i].error);
}

}  // namespace sgmcmc
