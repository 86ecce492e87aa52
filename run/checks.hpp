#pragma once
// The default checks of every run's chains (modules/diagnostics/chain_check.hpp; docs/diagnostics.md):
// the run loop feeds each chain's kept draws to a checker as they are written, and the record keeps
// each chain's findings (`chains[i].checks`) and warnings (`chains[i].warnings`), which the summary,
// the Stan CSV and the NetCDF file carry too. What a run's config allows to be measured is decided
// here: the configurational temperature needs euclidean space, a target with an exact gradient, no
// Gibbs step and the whole data set on this process, and costs one exact gradient per draw it uses.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/chain_check.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run {

/// The configurational temperature's cost bound: its exact gradients may together touch at most this
/// many example·coordinate pairs; fewer evenly spaced draws are used when the
/// data are large, and none below `min_configurational_draws`.
inline constexpr double configurational_budget = 2e9;
inline constexpr std::size_t min_configurational_draws = 100;

/// The facts a chain's checker needs, from the sampler's declared statistics (typed, never a name).
inline diagnostics::ChainChecker::Facts check_facts(const output::RunHeader& header, const RunConfig& c) {
  const auto has = [&](const Statistic& s) { return std::find(header.statistics.begin(), header.statistics.end(), &s) != header.statistics.end(); };
  return {.has_acceptance = has(stats::acceptance),
          .momentum_dim = has(stats::kinetic_energy) ? static_cast<Eigen::Index>(c.manifold.manifold.intrinsic_dim()) : 0};
}

/// Why the draws of a run have no fixed target score −∇U to be measured against — what the Stein
/// diagnostics (run/stein.hpp, which refuse with it) and the configurational temperature (skipped with
/// it) both need: the record's field to blame and the reason; nullopt when they have one.
struct NoTargetScore {
  const char* field;
  std::string needs;  ///< "<what is needed>; <why this run has not>"
};
inline std::optional<NoTargetScore> no_target_score(const RunConfig& c) {
  if (!c.manifold.geometry.flat)
    return NoTargetScore{"/config/manifold", fmt::format("a target on euclidean space; this run is on {} (the Stein operator there "
                                                         "needs the manifold's own divergence)", c.manifold.kind)};
  if (!c.target.target.has_value())
    return NoTargetScore{"/config/target/name", fmt::format("an exact gradient for the draws' scores; target '{}' has none", c.target.kind)};
  if (c.target.gradient.gibbs_every > 0)
    return NoTargetScore{"/config/target/gibbs_every", "a fixed target score; the Gibbs step redraws the prior precisions, so θ has none"};
  return std::nullopt;
}

/// Why this run's configurational temperature cannot be measured; empty when it can.
inline std::string configurational_skip_reason(const RunConfig& c) {
  if (const auto no = no_target_score(c)) return "it needs " + no->needs;
  if (c.shards > 1) return "the target's data are sharded over the MPI ranks";
  return {};
}

/// The chain's findings, measuring T_conf with the target's exact gradient where the config allows it
/// and its cost stays within configurational_budget.
inline diagnostics::ChainCheck finish_check(const diagnostics::ChainChecker& checker, const RunConfig& c, const AnyTarget& target) {
  std::string skip = configurational_skip_reason(c);
  const std::size_t points = static_cast<std::size_t>(checker.points().cols());
  const double per_gradient = static_cast<double>(std::max<Eigen::Index>(1, target.examples())) * static_cast<double>(checker.points().rows());
  const auto affordable = static_cast<std::size_t>(configurational_budget / per_gradient);
  if (skip.empty() && std::min(points, affordable) < min_configurational_draws && points >= min_configurational_draws)
    skip = fmt::format("{} exact gradients of {} examples would cost more than the default checks allow; `sgmcmc summary --stein` "
                       "measures it",
                       points, target.examples());
  if (!skip.empty()) return checker.finish(nullptr, std::move(skip));
  return checker.finish([&](const Eigen::VectorXd& x, Eigen::VectorXd& g) { target.exact_gradient(x, g); }, {},
                        std::max<std::size_t>(1, affordable));
}

/// The record's `checks` of a chain: what was measured (each temperature's value, se and draws, or why
/// not), and its `warnings`: [{kind, message}].
inline json checks_json(const diagnostics::ChainCheck& check) {
  const auto measured = [](const diagnostics::Measured& m, const std::string& skipped) {
    if (!m.measured()) return json{{"skipped", skipped}};
    return json{{"value", m.value}, {"se", std::isfinite(m.se) ? json(m.se) : json(nullptr)}, {"draws", m.draws}};
  };
  json out = {{"draws", check.draws}, {"moves", check.moves}};
  if (std::isfinite(check.acceptance)) out["acceptance"] = check.acceptance;
  out["configurational_temperature"] = measured(check.configurational, check.configurational_skipped);
  if (check.kinetic.draws > 0) out["kinetic_temperature"] = measured(check.kinetic, "");
  return out;
}

inline json warnings_json(const diagnostics::ChainCheck& check) {
  json out = json::array();
  for (const diagnostics::CheckWarning& w : check.warnings) out.push_back({{"kind", diagnostics::name_of(w.kind)}, {"message", w.message}});
  return out;
}

}  // namespace sgmcmc::run
