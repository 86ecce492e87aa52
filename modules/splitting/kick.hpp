#pragma once
// The shared O sub-step (DESIGN.md §4.2): v <- v + Λ(x)[-t ∇Ũ(x) + N(0, σ²)], σ² = 2Ct - V̂t².
// Adding before projecting is exact: v is already tangent and Λ(x) is a linear projector, and the
// projection also removes any rounding drift of v off the tangent space.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>

namespace sgmcmc::splitting {

/// Standard deviation of the injected noise for diffusion c over time t with noise estimate V̂:
/// sqrt(2ct - V̂t²). The B̂ correction must not exceed the injected variance (SGHMC paper §3.2).
inline double kick_sd(double c, double noise_estimate, double t) {
  const double var = 2.0 * c * t - noise_estimate * t * t;
  if (!(var >= 0.0))
    throw Error(fmt::format("noise_estimate: 2·C·t - V̂·t² = {} < 0 (C = {}, V̂ = {}, t = {}); lower the "
                            "noise estimate or the step size", var, c, noise_estimate, t));
  return std::sqrt(var);
}

/// Whether a kick ends with its projection, or leaves it to the flow that follows (`project_flow`).
enum class Projection : bool { now, deferred };

template <Manifold M, class P, class R>
void kick(const M& manifold, PhaseState& s, const P& potential, double t, double sd, R& rng, double pre = 1.0,
          double post = 1.0, Projection projection = Projection::now) {
  // v <- post·Λ(pre·v + sd·ζ - t·g): `pre` and `post` fold exact friction sub-steps B on either side of
  // the kick into its sweep (B·O·B in ABOBA). Λ is linear, so post·Λ(u) = Λ(post·u). With pre = post = 1
  // the arithmetic is exactly the plain kick's (multiplying by 1 is exact). With Projection::deferred v
  // is left unprojected: the caller must run project_flow next (ABOBA's B·O·B·A).
  potential.gradient(s.x, s.gradient, rng);
  ++s.gradient_evals;
  if constexpr (std::same_as<R, random::Stream>) {
    // A Stream's chunked fills are its whole fill to the bit (modules/random/stream.hpp), so the noise
    // is drawn 1024 values at a time and used while still in L1: one sweep fewer over memory.
    const Eigen::Index n = s.v.size();
    constexpr Eigen::Index chunk = 1024;
    for (Eigen::Index i0 = 0; i0 < n; i0 += chunk) {
      const Eigen::Index len = std::min(chunk, n - i0);
      rng.normals(s.noise.data() + i0, len);
      double* __restrict v = s.v.data() + i0;
      const double* __restrict g = s.gradient.data() + i0;
      const double* __restrict z = s.noise.data() + i0;
      for (Eigen::Index i = 0; i < len; ++i) v[i] = post * (pre * v[i] + (sd * z[i] - t * g[i]));
    }
  } else {
    rng.normals(s.noise);
    s.v = post * (pre * s.v + (sd * s.noise - t * s.gradient));
  }
  if (projection == Projection::now) manifold.project(s.x, s.v);
}

/// The same kick for a diagonal friction c: σ_i² = 2c_i t - V̂t², computed inline (no allocation).
template <Manifold M, class P, class R>
void kick_diagonal(const M& manifold, PhaseState& s, const P& potential, double t, Eigen::Ref<const Eigen::VectorXd> c,
                   double noise_estimate, R& rng) {
  kick_sd(c.minCoeff(), noise_estimate, t);  // throws if any σ_i² < 0
  potential.gradient(s.x, s.gradient, rng);
  ++s.gradient_evals;
  rng.normals(s.noise);
  s.v.array() += ((2.0 * t) * c.array() - noise_estimate * t * t).sqrt() * s.noise.array() - t * s.gradient.array();
  manifold.project(s.x, s.v);
}

/// The kick with the empirical-Fisher V̂ (per coordinate) drawn with the gradient: σ_i² = 2Ct - V̂_i t²,
/// clipped at 0 where the estimate exceeds the injected noise (counted in s.clipped).
template <Manifold M, class P, class R>
void kick_empirical(const M& manifold, PhaseState& s, const P& potential, double t, double c, R& rng) {
  if constexpr (PotentialWithNoiseEstimate<P>) {
    potential.gradient_and_variance(s.x, s.gradient, s.noise_variance, rng);
  } else {
    throw Error("noise_estimate: empirical_fisher needs a minibatch target (per-example gradients)");
  }
  ++s.gradient_evals;
  rng.normals(s.noise);
  for (Eigen::Index i = 0; i < s.v.size(); ++i) {
    const double var = 2.0 * c * t - s.noise_variance[i] * t * t;
    if (var < 0) ++s.clipped;
    s.v[i] += std::sqrt(std::max(var, 0.0)) * s.noise[i] - t * s.gradient[i];
  }
  manifold.project(s.x, s.v);
}

}  // namespace sgmcmc::splitting
