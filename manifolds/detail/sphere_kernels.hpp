#pragma once
// The unit sphere's vector kernels (manifolds/sphere.hpp): its dot product, projection and geodesic flow
// as SIMD sweeps over the coordinates, apart from the geometry they serve.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/modules/simd/isa.hpp>

namespace sgmcmc {

namespace detail::sphere {
// The sphere's sweeps, written once over a vector type V and compiled twice: two-lane SSE2 vectors
// (the x86-64 baseline) and, chosen at run time, four-lane AVX2 vectors (modules/simd/isa.hpp); at
// n = 10³ the AVX2 copy halves a flow. GCC/Clang vector extensions; loads and stores go through memcpy
// (unaligned).
//
// Sums run in eight independent partial sums (one running sum is bound by the latency of an add,
// ~4 cycles per coordinate): partial sum k takes the coordinates i ≡ k (mod 8), whatever the vector
// width — four 2-lane or two 4-lane accumulators — and the eight are added in one fixed order at the
// end. With every element operation IEEE-rounded and no FMA, both copies give the same bits.
// The helpers are always inlined into a copy compiled for V's width; they return V by value and take it
// by reference (a 32-byte vector parameter draws GCC's -Wpsabi note at instantiation, past the pragma).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
using V2 = double __attribute__((vector_size(16)));
#if SGMCMC_ISA_DISPATCH
using V4 = double __attribute__((vector_size(32)));
#endif

template <class V>
constexpr int kLanes = sizeof(V) / sizeof(double);
template <class V>
constexpr int kAcc = 8 / kLanes<V>;  // accumulators for eight partial sums

template <class V>
SGMCMC_FORCE_INLINE V load(const double* p) {
  V r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
template <class V>
SGMCMC_FORCE_INLINE void store(double* p, const V& r) {
  std::memcpy(p, &r, sizeof r);
}
template <class V>
SGMCMC_FORCE_INLINE V broadcast(double a) {
  V r;
  for (int k = 0; k < kLanes<V>; ++k) r[k] = a;
  return r;
}
/// The eight partial sums p_0..p_7 added as ((p0+p4) + (p2+p6)) + ((p1+p5) + (p3+p7)).
template <class V>
SGMCMC_FORCE_INLINE double total(const V (&a)[kAcc<V>]) {
  SGMCMC_NO_CONTRACT
  double p[8];
  std::memcpy(p, a, sizeof p);
  return ((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7]));
}

/// Σ a_i b_i.
template <class V>
SGMCMC_FORCE_INLINE double dot(const double* a, const double* b, Eigen::Index size) {
  SGMCMC_NO_CONTRACT
  constexpr int L = kLanes<V>;
  V acc[kAcc<V>] = {};
  Eigen::Index i = 0;
  for (; i + 8 <= size; i += 8)
    for (int j = 0; j < kAcc<V>; ++j) acc[j] += load<V>(a + i + L * j) * load<V>(b + i + L * j);
  double r = total<V>(acc);
  for (; i < size; ++i) r += a[i] * b[i];
  return r;
}

/// Σ x_i², Σ x_i v_i, Σ v_i² in one sweep.
struct Moments {
  double xx, xv, vv;
};
template <class V>
SGMCMC_FORCE_INLINE Moments moments(const double* x, const double* v, Eigen::Index size) {
  SGMCMC_NO_CONTRACT
  constexpr int L = kLanes<V>;
  V axx[kAcc<V>] = {}, axv[kAcc<V>] = {}, avv[kAcc<V>] = {};
  Eigen::Index i = 0;
  for (; i + 8 <= size; i += 8)
    for (int j = 0; j < kAcc<V>; ++j) {
      const V xi = load<V>(x + i + L * j), vi = load<V>(v + i + L * j);
      axx[j] += xi * xi;
      axv[j] += xi * vi;
      avv[j] += vi * vi;
    }
  Moments m{total<V>(axx), total<V>(axv), total<V>(avv)};
  for (; i < size; ++i) m.xx += x[i] * x[i], m.xv += x[i] * v[i], m.vv += v[i] * v[i];
  return m;
}

/// The projection v <- v - x(xᵀv).
template <class V>
SGMCMC_FORCE_INLINE void project(const double* __restrict x, double* __restrict v, Eigen::Index size) {
  SGMCMC_NO_CONTRACT
  const double a = dot<V>(x, v, size);
  constexpr int L = kLanes<V>;
  const V aa = broadcast<V>(a);
  Eigen::Index i = 0;
  for (; i + L <= size; i += L) store<V>(v + i, load<V>(v + i) - aa * load<V>(x + i));
  for (; i < size; ++i) v[i] -= a * x[i];
}

/// The great circle's coefficients for speed α and time t.
struct Rotation {
  double c, s, q;  ///< cos(αt), sin(αt)/α, α sin(αt)
};
SGMCMC_FORCE_INLINE Rotation rotation(double alpha, double t) {
  SGMCMC_NO_CONTRACT
  const double angle = alpha * t;
  // sin(αt)/α as t·sinc(αt): the quotient is 0/0 at v = 0 (the SGGMC authors' code returns NaN there),
  // and below |αt| = 1e-4 the Taylor form t(1 - (αt)²/6) is exact to rounding (next term (αt)⁴/120).
  const double s = std::abs(angle) < 1e-4 ? t * (1.0 - angle * angle / 6.0) : std::sin(angle) / alpha;
  return {std::cos(angle), s, alpha * alpha * s};  // α sin(αt) = α² · sin(αt)/α, finite at α = 0
}

/// What a flow measured: ‖x(t)‖², x(t)ᵀv(t) (the drifts) and the speed α.
struct Flowed {
  double xx, xv, alpha;
};

/// The second sweep of a flow: (with Project, the projection v <- v - a x, then) the rotation of each
/// coordinate in the plane of x and v, x <- c x + s v, v <- c v - q x, for speed α, accumulating
/// ‖x(t)‖² and x(t)ᵀv(t) on the way.
template <class V, bool Project>
SGMCMC_FORCE_INLINE Flowed rotate(double* __restrict x, double* __restrict v, Eigen::Index size, double t, double a,
                                  double alpha) {
  SGMCMC_NO_CONTRACT
  const Rotation r = rotation(alpha, t);
  constexpr int L = kLanes<V>;
  const V cc = broadcast<V>(r.c), ss = broadcast<V>(r.s), qq = broadcast<V>(r.q), aa = broadcast<V>(a);
  V xx[kAcc<V>] = {}, xv[kAcc<V>] = {};
  Eigen::Index i = 0;
  for (; i + 8 <= size; i += 8)
    for (int j = 0; j < kAcc<V>; ++j) {
      const V xi = load<V>(x + i + L * j);
      V vi = load<V>(v + i + L * j);
      if constexpr (Project) vi -= aa * xi;
      const V xn = cc * xi + ss * vi, vn = cc * vi - qq * xi;
      store<V>(x + i + L * j, xn);
      store<V>(v + i + L * j, vn);
      xx[j] += xn * xn;
      xv[j] += xn * vn;
    }
  Flowed f{total<V>(xx), total<V>(xv), alpha};
  for (; i < size; ++i) {
    const double xi = x[i];
    double vi = v[i];
    if constexpr (Project) vi -= a * xi;
    const double xn = r.c * xi + r.s * vi, vn = r.c * vi - r.q * xi;
    x[i] = xn, v[i] = vn;
    f.xx += xn * xn, f.xv += xn * vn;
  }
  return f;
}

/// The flow for time t in two sweeps: ‖v‖², then the rotation.
template <class V>
SGMCMC_FORCE_INLINE Flowed flow(double* __restrict x, double* __restrict v, Eigen::Index size, double t) {
  SGMCMC_NO_CONTRACT
  return rotate<V, false>(x, v, size, t, 0.0, std::sqrt(dot<V>(v, v, size)));
}

/// Coordinates per chunk of the kicked sweep: a multiple of 8, so the eight partial sums see the same
/// coordinates in the same order as in one unchunked sweep.
inline constexpr Eigen::Index kKickChunk = 1024;
static_assert(kKickChunk % 8 == 0);

/// The kick, the projection v <- v - a x (a = xᵀv after the kick) and the flow for time t, in two
/// sweeps: the first kicks a chunk and then takes its ‖x‖², xᵀv and ‖v‖² while it is in cache, so the
/// projected speed is known before the rotation, ‖v - a x‖² = ‖v‖² - a²(2 - ‖x‖²); the second projects
/// and rotates. a is computed with `project`'s lanes and order (the partial sums carry across chunks),
/// so the projection is `project`'s to the bit; the speed differs from ‖Λv‖'s by rounding (the formula
/// is algebraically equal, not the same operations).
template <class V>
SGMCMC_FORCE_INLINE Flowed flow_kicked(double* x, double* v, Eigen::Index size, double t, const ChunkKick& kick) {
  SGMCMC_NO_CONTRACT
  constexpr int L = kLanes<V>;
  V axx[kAcc<V>] = {}, axv[kAcc<V>] = {}, avv[kAcc<V>] = {};
  Eigen::Index i = 0;
  for (Eigen::Index b = 0; b < size; b += kKickChunk) {
    const Eigen::Index e = std::min(size, b + kKickChunk);
    kick(b, e);
    for (; i + 8 <= e; i += 8)
      for (int j = 0; j < kAcc<V>; ++j) {
        const V xi = load<V>(x + i + L * j), vi = load<V>(v + i + L * j);
        axx[j] += xi * xi;
        axv[j] += xi * vi;
        avv[j] += vi * vi;
      }
  }
  Moments m{total<V>(axx), total<V>(axv), total<V>(avv)};
  for (; i < size; ++i) m.xx += x[i] * x[i], m.xv += x[i] * v[i], m.vv += v[i] * v[i];
  return rotate<V, true>(x, v, size, t, m.xv, std::sqrt(std::max(0.0, m.vv - m.xv * m.xv * (2.0 - m.xx))));
}

// The entry points: one copy per instruction set (fp contraction off in each), chosen at run time.
[[SGMCMC_EXACT]] inline double dot_generic(const double* a, const double* b, Eigen::Index n) { return dot<V2>(a, b, n); }
[[SGMCMC_EXACT]] inline void project_generic(const double* x, double* v, Eigen::Index n) { project<V2>(x, v, n); }
[[SGMCMC_EXACT]] inline Flowed flow_generic(double* x, double* v, Eigen::Index n, double t) { return flow<V2>(x, v, n, t); }
[[SGMCMC_EXACT]] inline Flowed flow_kicked_generic(double* x, double* v, Eigen::Index n, double t, const ChunkKick& kick) {
  return flow_kicked<V2>(x, v, n, t, kick);
}
#if SGMCMC_ISA_DISPATCH
[[SGMCMC_TARGET_AVX2]] inline double dot_avx2(const double* a, const double* b, Eigen::Index n) { return dot<V4>(a, b, n); }
[[SGMCMC_TARGET_AVX2]] inline void project_avx2(const double* x, double* v, Eigen::Index n) { project<V4>(x, v, n); }
[[SGMCMC_TARGET_AVX2]] inline Flowed flow_avx2(double* x, double* v, Eigen::Index n, double t) { return flow<V4>(x, v, n, t); }
[[SGMCMC_TARGET_AVX2]] inline Flowed flow_kicked_avx2(double* x, double* v, Eigen::Index n, double t, const ChunkKick& kick) {
  return flow_kicked<V4>(x, v, n, t, kick);
}
#endif

/// Which copy runs: the AVX2 one on a CPU with AVX2 (AVX-512 CPUs included), else the baseline.
/// `isa` is exposed so tests can compare the copies.
inline bool use_avx2(simd::Isa isa = simd::best_isa()) { return SGMCMC_ISA_DISPATCH && isa != simd::Isa::generic; }

inline double dispatch_dot(const double* a, const double* b, Eigen::Index n, simd::Isa isa = simd::best_isa()) {
#if SGMCMC_ISA_DISPATCH
  if (use_avx2(isa)) return dot_avx2(a, b, n);
#endif
  return dot_generic(a, b, n);
}
inline void dispatch_project(const double* x, double* v, Eigen::Index n, simd::Isa isa = simd::best_isa()) {
#if SGMCMC_ISA_DISPATCH
  if (use_avx2(isa)) return project_avx2(x, v, n);
#endif
  project_generic(x, v, n);
}
inline Flowed dispatch_flow(double* x, double* v, Eigen::Index n, double t, simd::Isa isa = simd::best_isa()) {
#if SGMCMC_ISA_DISPATCH
  if (use_avx2(isa)) return flow_avx2(x, v, n, t);
#endif
  return flow_generic(x, v, n, t);
}
inline Flowed dispatch_flow_kicked(double* x, double* v, Eigen::Index n, double t, const ChunkKick& kick,
                                   simd::Isa isa = simd::best_isa()) {
#if SGMCMC_ISA_DISPATCH
  if (use_avx2(isa)) return flow_kicked_avx2(x, v, n, t, kick);
#endif
  return flow_kicked_generic(x, v, n, t, kick);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}  // namespace detail::sphere

}  // namespace sgmcmc
