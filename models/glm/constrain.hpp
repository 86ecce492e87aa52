#pragma once
// Positive parameters (σ, shape, ν > 0) sampled on the unconstrained scale, as Stan does (Stan Reference
// Manual, "Constraint transforms", lower-bounded scalar): u = log x, x = eᵘ, so the density of u is
// p_u(u) = p_x(eᵘ) · |dx/du| = p_x(eᵘ) · eᵘ, and the potential gains −log|dx/du| = −u. The draws the
// sampler makes are u; the outputs report x (`constrain`).
//
// A positive parameter's prior is its half version when the prior is a location-scale one
// (models/glm/prior.hpp, log_upper_mass); with the Jacobian, on the u scale:
//   log p_u(u) = log p(eᵘ) − log P(X > 0) + u,   d/du log p_u(u) = eᵘ · (log p)′(eᵘ) + 1.
#include <cmath>

#include <sgmcmc/models/glm/prior.hpp>

namespace sgmcmc::models::glm {

/// x = eᵘ.
inline double constrain(double u) { return std::exp(u); }
/// u = log x, x > 0.
inline double unconstrain(double x) { return std::log(x); }

/// The prior of a positive parameter, with its half version's normaliser computed once.
struct PositivePrior {
  Prior prior = Flat{};
  double log_mass = 0;  ///< log P(X > 0) under `prior` (0 for flat, exponential, gamma)
};
inline PositivePrior positive_prior(Prior p) {
  const double m = log_upper_mass(p);
  return {std::move(p), m};
}

/// log p_u(u) = log p(eᵘ) − log P(X > 0) + u: the prior of the positive parameter eᵘ, as a density of u.
inline double log_density_unconstrained(const PositivePrior& p, double u) {
  return log_density(p.prior, std::exp(u)) - p.log_mass + u;
}
/// d/du log p_u(u) = eᵘ (log p)′(eᵘ) + 1.
inline double d_log_density_unconstrained(const PositivePrior& p, double u) {
  const double x = std::exp(u);
  return x * d_log_density(p.prior, x) + 1;
}

}  // namespace sgmcmc::models::glm
