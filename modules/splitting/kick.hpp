#pragma once
// The shared O sub-step (docs/math.md#split-dynamics): v <- v + Λ(x)[-t ∇Ũ(x) + N(0, σ²)], σ² = 2Ct - V̂t².
// Adding before projecting is exact: v is already tangent and Λ(x) is a linear projector, and the
// projection also removes any rounding drift of v off the tangent space. The scalar kick is one chunk
// kick (BOBKick), run alone by O and inside the manifold's fused sweep by kick_sweep (ABOBA's B·O·B·A:
// docs/architecture.md, "Fused paths: one hook").
#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/random.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/simd/isa.hpp>
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

/// The coefficients of B(t1)·O(t)·B(t2) with scalar dissipations: v <- post·(pre·v + (sd·ζ - t·g)),
/// pre = e^{-c t1}, post = e^{-c t2} (c = C for SGHMC, ξ for SGNHT), sd = kick_sd(...). A plain O is
/// pre = post = 1 (multiplying by 1 is exact, so it is then the textbook v + (sd·ζ - t·g)).
struct KickCoefficients {
  double pre = 1.0, post = 1.0, sd = 0.0, t = 0.0;
};

/// Coordinates per chunk of the kick's stack buffers (noise, separable gradient): 8 KB each, L1-sized.
inline constexpr Eigen::Index kick_chunk = 1024;

/// The dynamics' B·O·B as a chunk kick (concepts/manifold.hpp, ChunkKick): on v[begin, end),
///   v_i <- post·(pre·v_i + (sd·ζ_i - t·g_i)),
/// in this order of operations whatever the chunking, so any chunking gives the same bits.
/// - ζ: when the engine is SplittableNormals, drawn `kick_chunk` values at a time into a stack buffer
///   as the chunks come (consecutive fills equal one whole fill, so the draws are a whole fill's);
///   otherwise read from s.noise, which the caller filled before the sweep.
/// - g: s.gradient, computed by the caller before the sweep; or, with `inline_gradient` (a
///   SeparablePotential whose is_separable() holds), the potential's partial(begin, end, x, g) on
///   x[begin, end) as the kick sees it — after the sweep's first flow.
/// The manifold must call it on consecutive chunks covering [0, N) in order (flow_kick_flow's contract).
/// Each chunk's work (the separable partial and the update) is compiled twice like the sphere's sweeps
/// (modules/simd/isa.hpp): two-lane SSE2, the x86-64 baseline, and four-lane AVX2, chosen at run time
/// (`isa`, the CPU's best by default). Every lane does the same correctly rounded operations in the same
/// order, no FMA, so both copies give the same bits.
template <class P, class R>
class BOBKick {
 public:
  BOBKick(PhaseState& s, const P& potential, R& rng, KickCoefficients k, bool inline_gradient,
          simd::Isa isa = simd::best_isa())
      : s_(s), potential_(potential), rng_(rng), k_(with_noise_scale(k, s.noise_scale)), inline_gradient_(inline_gradient),
        wide_(SGMCMC_ISA_DISPATCH && isa != simd::Isa::generic) {}
  BOBKick(const BOBKick&) = delete;  // held by reference in a ChunkKick
  BOBKick& operator=(const BOBKick&) = delete;

  void operator()(Eigen::Index begin, Eigen::Index end) {
#if SGMCMC_ISA_DISPATCH
    if (wide_ && end - begin >= 64) {  // a short chunk is not worth the switch
      for (Eigen::Index b = begin; b < end; b += kick_chunk) chunk_avx2(b, std::min(kick_chunk, end - b));
      return;
    }
#endif
    for (Eigen::Index b = begin; b < end; b += kick_chunk) chunk_generic(b, std::min(kick_chunk, end - b));
  }

 private:
  static KickCoefficients with_noise_scale(KickCoefficients k, double scale) {
    k.sd *= scale;
    return k;
  }
  SGMCMC_FORCE_INLINE void chunk(Eigen::Index b, Eigen::Index len) {
    SGMCMC_NO_CONTRACT
    alignas(64) double noise[kick_chunk];
    alignas(64) double gradient[kick_chunk];
    const double* z = noise;
    if constexpr (SplittableNormals<R>) rng_.normals(noise, len);
    else z = s_.noise.data() + b;
    const double* g = gradient;
    if (!inline_gradient_) g = s_.gradient.data() + b;
    else if constexpr (SeparablePotential<P>) potential_.partial(b, b + len, s_.x.data() + b, gradient);
    update(s_.v.data() + b, z, g, len, k_);
  }
  [[SGMCMC_EXACT]] void chunk_generic(Eigen::Index b, Eigen::Index len) { chunk(b, len); }
#if SGMCMC_ISA_DISPATCH
  [[SGMCMC_TARGET_AVX2]] void chunk_avx2(Eigen::Index b, Eigen::Index len) { chunk(b, len); }
#endif
  SGMCMC_FORCE_INLINE static void update(double* __restrict v, const double* __restrict z, const double* __restrict g,
                                         Eigen::Index len, const KickCoefficients& k) {
    SGMCMC_NO_CONTRACT
    const double pre = k.pre, post = k.post, sd = k.sd, t = k.t;
    for (Eigen::Index i = 0; i < len; ++i) v[i] = post * (pre * v[i] + (sd * z[i] - t * g[i]));
  }

  PhaseState& s_;
  const P& potential_;
  R& rng_;
  KickCoefficients k_;
  bool inline_gradient_;
  bool wide_;
};

/// The plain O sub-step with scalar noise sd: v <- Λ(x)(v + (sd·ζ - t·∇Ũ(x))), one fresh stochastic
/// gradient (drawn before the noise: the potential may draw from the engine too).
template <Manifold M, class P, class R>
void kick(const M& manifold, PhaseState& s, const P& potential, double t, double sd, R& rng) {
  potential.gradient(s.x, s.gradient, rng);
  ++s.gradient_evals;
  if constexpr (!SplittableNormals<R>) rng.normals(s.noise);
  BOBKick<P, R> bob(s, potential, rng, KickCoefficients{1.0, 1.0, sd, t}, false);
  bob(0, s.v.size());
  manifold.project(s.x, s.v);
}

/// [A(t1)]·B·O·B·A(t2) as the manifold's fused sweep, flow_kick_flow(x, v, t1, BOBKick, t2): the
/// sub-steps flow(t1), kick with coefficients k, project, flow(t2), as a dynamics whose A is the bare
/// flow runs them (t1 = 0: no first flow; the caller ran its own A). A black-box gradient needs the
/// whole position first, so then the first flow runs on its own and the gradient is computed on the
/// whole vector before the sweep; a separable potential's gradient is computed inside the kick, and the
/// first flow joins the sweep too. Counts the gradient and the reflections in s.
template <Manifold M, class P, class R>
void kick_sweep(const M& manifold, PhaseState& s, const P& potential, R& rng, const KickCoefficients& k, double t1,
                double t2) {
  bool separable = false;
  if constexpr (SeparablePotential<P>) separable = potential.is_separable();
  if (!separable) {
    if (t1 != 0.0) s.reflections += manifold.flow(s.x, s.v, t1);
    t1 = 0.0;
    potential.gradient(s.x, s.gradient, rng);
  }
  ++s.gradient_evals;
  if constexpr (!SplittableNormals<R>) rng.normals(s.noise);  // after the gradient's own draws
  BOBKick<P, R> bob(s, potential, rng, k, separable);
  s.reflections += flow_kick_flow(manifold, s.x, s.v, t1, ChunkKick(bob), t2);
}

/// The same kick for a diagonal friction c: σ_i² = 2c_i t - V̂t², computed inline (no allocation).
template <Manifold M, class P, class R>
void kick_diagonal(const M& manifold, PhaseState& s, const P& potential, double t, Eigen::Ref<const Eigen::VectorXd> c,
                   double noise_estimate, R& rng) {
  kick_sd(c.minCoeff(), noise_estimate, t);  // throws if any σ_i² < 0
  potential.gradient(s.x, s.gradient, rng);
  ++s.gradient_evals;
  rng.normals(s.noise);
  s.v.array() += (((2.0 * t) * c.array() - noise_estimate * t * t).sqrt() * s.noise_scale) * s.noise.array() - t * s.gradient.array();
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
    s.v[i] += (std::sqrt(std::max(var, 0.0)) * s.noise_scale) * s.noise[i] - t * s.gradient[i];
  }
  manifold.project(s.x, s.v);
}

}  // namespace sgmcmc::splitting
