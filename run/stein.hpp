#pragma once
// The Stein diagnostics of a run record (modules/diagnostics/stein.hpp): each kept draw's score −∇U(x)
// is the full-data gradient of the target the record's own config builds (so the data file must still
// be there), computed here rather than stored with the draws: one gradient per draw, a pass over the
// data for a data target, paid only when asked (`sgmcmc summary RUN --stein`, `sgmcmc thin`).
// Euclidean targets with an exact gradient only: on a manifold the Stein operator needs the manifold's
// own divergence, and a target whose precisions are redrawn by Gibbs steps has no fixed score for θ.
// The report also measures the gradient noise the chain feels at its draws (gradient_noise_report).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/stein.hpp>
#include <sgmcmc/run/checks.hpp>
#include <sgmcmc/run/log_likelihood.hpp>
#include <sgmcmc/run/data_files.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/run/reported_scale.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

/// KSD's cost is quadratic in the draws: a chain with more than this many is measured on every k-th
/// draw (k the smallest that brings it under), and the report says how many were used.
inline constexpr std::size_t stein_max_draws = 5000;

/// The gradient noise the chain feels is measured at this many of each chain's draws (evenly spaced),
/// from this many independent batches at each.
inline constexpr std::size_t gradient_noise_draws = 100;
inline constexpr int gradient_noise_batches = 32;

namespace detail {

/// Refuses what the Stein diagnostics cannot measure, naming the record's field (run/checks.hpp's
/// no_target_score, which the default checks' configurational temperature asks too).
inline void require_stein_target(const RunConfig& c) {
  if (const auto no = no_target_score(c)) fail(no->field, "the Stein diagnostics need " + no->needs);
}

/// A record's draws (columns of d × n, on the reported scale) as points of the potential
/// (run/reported_scale.hpp): the Stein diagnostics measure the sampled density, at the sampled points.
inline Eigen::MatrixXd sampled_draws(const AnyTarget& target, const Eigen::MatrixXd& draws, std::size_t chain) {
  if (!target.is_reparametrised()) return draws;
  Eigen::MatrixXd out(draws.rows(), draws.cols());
  for (Eigen::Index i = 0; i < draws.cols(); ++i)
    out.col(i) = sampled_point(target, draws.col(i), fmt::format("/chains/{}/samples/{}", chain, i));
  return out;
}

/// −∇U at every draw (columns of d × n).
inline Eigen::MatrixXd scores_at(const AnyTarget& target, const Eigen::MatrixXd& draws) {
  Eigen::MatrixXd s(draws.rows(), draws.cols());
  Eigen::VectorXd x(draws.rows()), g(draws.rows());
  for (Eigen::Index i = 0; i < draws.cols(); ++i) {
    x = draws.col(i);
    target.exact_gradient(x, g);
    s.col(i) = -g;
  }
  return s;
}

/// Every k-th column, k the smallest that leaves at most `most` (all when there are few enough).
inline Eigen::MatrixXd every_kth(const Eigen::MatrixXd& m, std::size_t most) {
  const auto n = static_cast<std::size_t>(m.cols());
  const std::size_t k = (n + most - 1) / most;
  if (k <= 1) return m;
  Eigen::MatrixXd out(m.rows(), static_cast<Eigen::Index>((n + k - 1) / k));
  for (Eigen::Index j = 0; j < out.cols(); ++j) out.col(j) = m.col(j * static_cast<Eigen::Index>(k));
  return out;
}

/// The stochastic gradient's variance at x, averaged over coordinates: the sample variance of ∇Ũ(x) —
/// the gradient the sampler is given, temperature included — over `gradient_noise_batches` batches,
/// each the first batch of its own stream, so they are independent whatever the sampling scheme.
/// The streams are keyed apart from the run's own (seed ⊕ "SGNOISE"), `first` + k for batch k.
inline double gradient_noise_at(const AnyTarget& target, const Eigen::VectorXd& x, std::uint64_t seed, std::uint32_t first,
                                Eigen::VectorXd& g, Eigen::VectorXd& mean, Eigen::VectorXd& m2) {
  mean.setZero(x.size()), m2.setZero(x.size());
  for (int k = 1; k <= gradient_noise_batches; ++k) {
    random::Stream rng(seed ^ 0x53474e4f495345ULL, first + static_cast<std::uint32_t>(k));
    target.gradient(x, g, rng);
    // Welford, as models/minibatch.hpp's empirical Fisher.
    m2.array() += (g - mean).array().square() * ((k - 1.0) / k);
    mean += (g - mean) / k;
  }
  return m2.mean() / (gradient_noise_batches - 1);
}

/// Each chain's gradient noise at its draws: V̄, the mean over draws of gradient_noise_at, and, where the
/// sampler states its noise balance (SamplerChoice::noise_balance: sgld, or sghmc with a scalar friction;
/// a constant step h; no preconditioner), the share of the step's variance the gradient noise adds beyond the correction,
/// h(V̄ − V̂)/(2C) (C = 1 for SGLD; V̂ the config's noise_estimate): SGHMC's predicted excess kinetic
/// temperature (MATH.md §9), SGLD's relative excess variance per step. Only for estimators whose noise
/// does not depend on the chain's past (minibatch, control_variate); null otherwise.
inline json gradient_noise_report(const RunConfig& c, const Eigen::MatrixXd& draws, std::size_t chain) {
  if (c.target.gradient.depends_on_past()) return nullptr;
  const Eigen::MatrixXd at = every_kth(draws, gradient_noise_draws);
  Eigen::VectorXd x(draws.rows()), g, mean, m2;
  double sum = 0;
  for (Eigen::Index i = 0; i < at.cols(); ++i) {
    x = at.col(i);
    const auto first = static_cast<std::uint32_t>((chain * gradient_noise_draws + static_cast<std::size_t>(i)) * gradient_noise_batches);
    sum += gradient_noise_at(c.target.target, x, c.seed, first, g, mean, m2);
  }
  const double variance = sum / static_cast<double>(at.cols());
  json out = {{"variance", variance}, {"draws", at.cols()}, {"batches", gradient_noise_batches}};
  if (const auto& b = c.sampler.noise_balance)
    out["excess_temperature"] = b->step_size * (variance - b->noise_estimate) / (2 * b->friction);
  return out;
}

inline json kernel_json(const diagnostics::ImqKernel& k) { return {{"name", "imq"}, {"c", k.c}, {"beta", k.beta}}; }

}  // namespace detail

/// The Stein diagnostics of each chain's draws (`chains[i]`: draws × coordinates, as the summary holds
/// them) against the record's target: KSD (IMQ kernel) and the configurational temperature, per chain
/// and over the chains pooled; with each chain's gradient noise at its draws (detail::gradient_noise_report).
/// `record_folder`: where the record's relative data paths start (run/data_files.hpp).
inline json stein_report(const json& record, const std::vector<Eigen::MatrixXd>& chains, const Registry& registry = shipped_registry(),
                         const diagnostics::ImqKernel& kernel = {}, const std::filesystem::path& record_folder = {}) {
  const RunConfig c = detail::config_of(record, registry, {nullptr, true}, record_folder);
  detail::require_stein_target(c);
  json per_chain = json::array();
  std::vector<Eigen::MatrixXd> used, used_scores;
  for (const Eigen::MatrixXd& rows : chains) {
    const Eigen::MatrixXd draws = detail::sampled_draws(c.target.target, rows.transpose(), per_chain.size());
    const Eigen::MatrixXd scores = detail::scores_at(c.target.target, draws);
    const Eigen::MatrixXd x = detail::every_kth(draws, stein_max_draws), s = detail::every_kth(scores, stein_max_draws);
    per_chain.push_back({{"draws", draws.cols()}, {"ksd_draws", x.cols()}, {"ksd", diagnostics::kernel_stein_discrepancy(x, s, kernel)},
                         {"configurational_temperature", diagnostics::configurational_temperature(draws, scores)},
                         {"gradient_noise", detail::gradient_noise_report(c, draws, per_chain.size())}});
    used.push_back(x), used_scores.push_back(s);
  }
  json out = {{"kernel", detail::kernel_json(kernel)}, {"chains", per_chain}};
  if (chains.size() > 1) {  // pooled: an even share of each chain's draws, within the same bound
    Eigen::Index total = 0;
    for (const auto& x : used) total += x.cols();
    const std::size_t share = static_cast<std::size_t>(total) > stein_max_draws ? std::max<std::size_t>(1, stein_max_draws / chains.size())
                                                                                : static_cast<std::size_t>(total);
    Eigen::MatrixXd x(used.front().rows(), 0), s(used.front().rows(), 0);
    for (std::size_t i = 0; i < used.size(); ++i) {
      const Eigen::MatrixXd xi = detail::every_kth(used[i], share), si = detail::every_kth(used_scores[i], share);
      x.conservativeResize(Eigen::NoChange, x.cols() + xi.cols()), s.conservativeResize(Eigen::NoChange, s.cols() + si.cols());
      x.rightCols(xi.cols()) = xi, s.rightCols(si.cols()) = si;
    }
    out["pooled"] = {{"ksd_draws", x.cols()}, {"ksd", diagnostics::kernel_stein_discrepancy(x, s, kernel)}};
  }
  return out;
}

/// Stein thinning of the record in file `path` (Riabiz et al. 2022): each chain's draws cut to the `m`
/// that Stein thinning picks, in the order picked, written through `writers` as a run record whose
/// `thinned` section names the source, the kernel, each chain's picked indices (into its kept draws)
/// and its KSD before and after. A thinned record is a selection, not a chain: it cannot be resumed. Its
/// relative data paths are read from the record's folder and written relative to `output_folder`.
inline json thin(const std::string& path, std::size_t m, const Registry& registry, std::span<output::Writer* const> writers,
                 const diagnostics::ImqKernel& kernel = {}, const std::filesystem::path& output_folder = {}) {
  std::vector<std::vector<double>> values;
  std::vector<std::vector<std::vector<std::pair<std::string, double>>>> stats;
  json record = output::read_record(path, [&](const output::RecordDraw& d) {
    if (d.warmup) return;  // the burn-in's draws (save_warmup) are not among those thinned
    if (d.chain >= values.size()) values.resize(d.chain + 1), stats.resize(d.chain + 1);
    values[d.chain].insert(values[d.chain].end(), d.values.begin(), d.values.end());
    stats[d.chain].push_back(d.stats);
  });
  try {
    validate_record(record);
    if (record.contains("thinned")) fail("/thinned", "the record is already thinned");
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  RunConfig c = detail::config_of(record, registry, {nullptr, true}, folder);
  detail::write_paths_for(c, Options{.output_folder = output_folder});
  detail::move_record_paths(record, folder, output_folder);
  detail::refuse_outputs_over_data(c, writers);
  // The chains thinned are the record's, the writers' those of its config: the two must agree (fuzz
  // finding C2: a record with a chain more than its config's reached a writer as an unknown chain).
  if (record["chains"].size() != c.chains)
    throw Error(fmt::format("{}: /chains: the record holds {} chains, its config /config/chains says {}", path, record["chains"].size(), c.chains));
  try {
    detail::require_stein_target(c);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  const auto chain = make_chain(c, 0);
  output::RunHeader header = detail::header_of(c, *chain, c.steps);
  header.expected_draws = m;
  const Eigen::Index d = header.dim();
  json thinned = {{"method", "stein"}, {"source", path}, {"kernel", detail::kernel_json(kernel)}, {"to", m}};
  header.thinning = thinned;
  header.save_warmup = false;
  header.expected_warmup = 0;
  thinned.update({{"indices", json::array()}, {"ksd_before", json::array()}, {"ksd_after", json::array()}});
  for (output::Writer* w : writers) w->begin(header);
  detail::warm_ups_from_record(writers, record, c);  // a Stan CSV's adaptation block: each chain's adapted scale
  {
    output::BlockBuffer buffer(writers, header, log_likelihood_of(chain->target(), d));
    for (std::size_t ch = 0; ch < record["chains"].size(); ++ch) {
      const std::size_t n = ch < values.size() ? values[ch].size() / static_cast<std::size_t>(d) : 0;
      if (n == 0) {
        thinned["indices"].push_back(json::array()), thinned["ksd_before"].push_back(nullptr), thinned["ksd_after"].push_back(nullptr);
        record["chains"][ch]["draws"] = 0;
        continue;
      }
      const Eigen::MatrixXd draws = detail::sampled_draws(c.target.target, Eigen::Map<const Eigen::MatrixXd>(values[ch].data(), d, static_cast<Eigen::Index>(n)), ch);
      // A record's draws are input: a null (NaN) draw or one whose score is not finite is refused
      // naming the file and the chain (fuzz finding C1: the message named neither).
      if (!draws.allFinite())
        throw Error(fmt::format("{}: /chains/{}/samples: a draw is not finite (null): Stein thinning needs finite draws", path, ch));
      const Eigen::MatrixXd scores = detail::scores_at(c.target.target, draws);
      if (!scores.allFinite())
        throw Error(fmt::format("{}: /chains/{}/samples: the target's score is not finite at a draw: Stein thinning needs finite scores", path, ch));
      const auto picked = diagnostics::stein_thin(draws, scores, m, kernel);
      Eigen::MatrixXd x(d, static_cast<Eigen::Index>(m)), s(d, static_cast<Eigen::Index>(m));
      for (std::size_t j = 0; j < m; ++j) {
        x.col(static_cast<Eigen::Index>(j)) = draws.col(picked[j]), s.col(static_cast<Eigen::Index>(j)) = scores.col(picked[j]);
        const auto i = static_cast<std::size_t>(picked[j]);
        detail::add_draw(buffer, output::RecordDraw{ch, std::span<const double>(values[ch]).subspan(i * static_cast<std::size_t>(d),
                                                                                                    static_cast<std::size_t>(d)),
                                                    stats[ch][i]});
      }
      const Eigen::MatrixXd all = detail::every_kth(draws, stein_max_draws), all_scores = detail::every_kth(scores, stein_max_draws);
      thinned["indices"].push_back(picked);
      thinned["ksd_before"].push_back(diagnostics::kernel_stein_discrepancy(all, all_scores, kernel));
      thinned["ksd_after"].push_back(diagnostics::kernel_stein_discrepancy(x, s, kernel));
      record["chains"][ch]["draws"] = m;
    }
    buffer.flush();
  }
  record["schema_version"] = schema_version;
  record["thinned"] = thinned;
  for (auto& ch : record["chains"]) {
    ch.erase("samples");
    ch.erase("sample_stats");
    ch.erase("burn_in_draws");  // the selection holds none
  }
  output::finish_all(writers, record);
  return thinned;
}

}  // namespace sgmcmc::run
