#pragma once
// Leimkuhler & Matthews's two operations for SGHMC-type dynamics (their B and O; docs/math.md#leimkuhler-matthews-baoab):
// the gradient-only kick and the exact Ornstein–Uhlenbeck step with the kicks' gradient-noise correction.
// Not the seed papers' B (friction alone) and O (kick with the friction's noise): concepts/dynamics.hpp.
#include <cmath>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>

namespace sgmcmc::splitting {

/// The variance s² of the exact OU step's injected noise over time t, for friction c, gradient-noise
/// estimate V̂ and the step's kicks' Σ t_k² (`kick_variance`; splitting::kick_variance):
///   s² = 1 - e^{-2ct} - (1 + e^{-ct})²/4 · V̂ · Σ t_k².
/// Without gradient noise this is the OU's exact 1 - e^{-2ct}. With it, the kicks add V̂·Σ t_k² to v's
/// variance each step, and the chain's x-marginal on a Gaussian stays exact to leading order when the OU
/// injects (1 + e^{-ct})²/4 of that much less: the flows on either side of the OU carry the kicks'
/// noise into x averaged over the OU's damping, (1 + e^{-ct})/2 (derived in docs/math.md). It tends to
/// the whole excess V̂·Σ t_k² (SGHMC's B̂ correction) as ct → 0, and to a quarter of it as ct → ∞.
/// Throws, naming noise_estimate, when the correction exceeds the OU's own variance.
inline double ou_noise_variance(double c, double t, double noise_estimate, double kick_variance) {
  const double decay = std::exp(-c * t);
  const double var = -std::expm1(-2.0 * c * t) - 0.25 * (1.0 + decay) * (1.0 + decay) * noise_estimate * kick_variance;
  if (!(var >= 0.0))
    throw Error(fmt::format("noise_estimate: the exact OU step's noise variance 1 - e^(-2Ct) - (1 + e^(-Ct))²·V̂·Σt_k²/4 = {} < 0 "
                            "(C = {}, t = {}, V̂ = {}, Σt_k² = {}); lower the noise estimate or the step size, or raise the friction",
                            var, c, t, noise_estimate, kick_variance));
  return var;
}

/// L–M's B: v <- Λ(x)(v - t ∇Ũ(x)), one fresh stochastic gradient, no injected noise.
template <Manifold M, class P, class R>
void gradient_kick(const M& manifold, PhaseState& s, const P& potential, double t, R& rng) {
  potential.gradient(s.x, s.gradient, rng);
  ++s.gradient_evals;
  s.v.noalias() -= t * s.gradient;
  manifold.project(s.x, s.v);
}

/// L–M's O with a scalar friction: v <- Λ(x)(e^{-ct} v + s ζ), s² = ou_noise_variance(...), scaled by
/// the state's noise_scale (a cyclical schedule's noise-free exploration). On a manifold, v is tangent,
/// so e^{-ct} v is too, and Λ(x)ζ is the tangent-space Gaussian: the exact OU in T_x M.
template <Manifold M, class R>
void exact_ou(const M& manifold, PhaseState& s, double c, double t, double noise_estimate, double kick_variance, R& rng) {
  const double sd = std::sqrt(ou_noise_variance(c, t, noise_estimate, kick_variance)) * s.noise_scale;
  rng.normals(s.noise);
  s.v = std::exp(-c * t) * s.v + sd * s.noise;
  manifold.project(s.x, s.v);
}

/// The same with a diagonal friction c_i, per coordinate (exact on flat space; on a manifold Λ(x) after
/// the per-coordinate step, as the seed B does: a matrix friction does not preserve the tangent space).
template <Manifold M, class R>
void exact_ou_diagonal(const M& manifold, PhaseState& s, Eigen::Ref<const Eigen::VectorXd> c, double t, double noise_estimate,
                       double kick_variance, R& rng) {
  ou_noise_variance(c.minCoeff(), t, noise_estimate, kick_variance);  // throws if any s_i² < 0 (smallest c_i: smallest s_i²)
  rng.normals(s.noise);
  for (Eigen::Index i = 0; i < s.v.size(); ++i)
    s.v[i] = std::exp(-c[i] * t) * s.v[i] +
             std::sqrt(ou_noise_variance(c[i], t, noise_estimate, kick_variance)) * s.noise_scale * s.noise[i];
  manifold.project(s.x, s.v);
}

}  // namespace sgmcmc::splitting
