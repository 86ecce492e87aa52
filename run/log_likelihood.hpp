#pragma once
// The pointwise log-likelihood written with each kept draw on request (config "log_likelihood": true;
// docs/run-format.md, "Pointwise log-likelihood"): log p(y_i | x) of each of a data target's N examples,
// for PSIS-LOO and WAIC (loo, ArviZ). Computed from the kept draws only, as they are handed to the
// writers: one pass over the data per kept draw.
#include <span>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/reported_scale.hpp>

namespace sgmcmc::run {

/// Appends to `out` the N = target.examples() log-likelihoods of each draw in `values` (draws of `dim`
/// values each, row-major), draw after draw.
inline void append_log_likelihood(const AnyTarget& target, std::span<const double> values, Eigen::Index dim,
                                  std::vector<double>& out) {
  const Eigen::Index n = target.examples();
  require(n > 0 && dim > 0, "log_likelihood: the target has no pointwise log-likelihood");
  const std::size_t rows = values.size() / static_cast<std::size_t>(dim);
  const std::size_t at = out.size();
  out.resize(at + rows * static_cast<std::size_t>(n));
  Eigen::VectorXd x(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    x = Eigen::Map<const Eigen::VectorXd>(values.data() + r * static_cast<std::size_t>(dim), dim);
    target.log_likelihood(x, Eigen::Map<Eigen::VectorXd>(out.data() + at + r * static_cast<std::size_t>(n), n));
  }
}

/// The same for draws read back (output::BlockBuffer: resume, convert, thin), from `target`: draws on
/// the reported scale, mapped back to the sampled one first (run/reported_scale.hpp).
inline output::LogLikelihoodOf log_likelihood_of(const AnyTarget& target, Eigen::Index dim) {
  return [&target, dim](std::size_t chain, std::span<const double> values, std::vector<double>& out) {
    if (!target.is_reparametrised()) return append_log_likelihood(target, values, dim, out);
    std::vector<double> sampled(values.begin(), values.end());
    for (std::size_t at = 0; at + static_cast<std::size_t>(dim) <= sampled.size(); at += static_cast<std::size_t>(dim)) {
      Eigen::Map<Eigen::VectorXd> row(sampled.data() + at, dim);
      row = sampled_point(target, Eigen::VectorXd(row), fmt::format("/chains/{}/samples", chain));
    }
    append_log_likelihood(target, sampled, dim, out);
  };
}

}  // namespace sgmcmc::run
