#pragma once
// A target sampled on one scale and reported on another (ReparametrisedPotential; the glm target's
// log σ and centred intercept): the run writes every draw on the reported scale, as Stan writes its
// constrained parameters, and whatever reads a draw back as a point of the potential — a resume's
// checks, Stein diagnostics and thinning, the pointwise log-likelihood of draws read back — maps it
// to the sampled scale first. Both are identities for every other target, which pay nothing.
//
// A draw read back is exp(log σ) and its logarithm again, and the intercept shifted and back: equal to
// the sampled point to rounding (about 1e-16 relative), not to the bit. What is computed from read-back
// draws (a resumed run's checks) agrees with the uninterrupted run's to that rounding.
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/any_target.hpp>

namespace sgmcmc::run {

/// Maps a chain's draws (row-major, `dim` values each) to the target's reported scale, in place.
inline void report_in_place(const AnyTarget& target, std::span<double> values, Eigen::Index dim) {
  if (!target.is_reparametrised() || dim == 0) return;
  Eigen::VectorXd x(dim);
  for (std::size_t at = 0; at + static_cast<std::size_t>(dim) <= values.size(); at += static_cast<std::size_t>(dim)) {
    Eigen::Map<Eigen::VectorXd> row(values.data() + at, dim);
    x = row;
    row = target.reported(x);
  }
}

/// A draw on the reported scale as the point of the potential it was sampled at. `where` names it (a
/// record's /chains/i/samples/k, or /init) in the error for a draw outside the reported domain.
inline Eigen::VectorXd sampled_point(const AnyTarget& target, const Eigen::VectorXd& reported, const std::string& where) {
  if (!target.is_reparametrised()) return reported;
  try {
    return target.sampled(reported);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace sgmcmc::run
