#pragma once
// Euclidean space R^n: the flat case of the Manifold interface (docs/math.md#euclidean).
// Λ(x) = I and the geodesic flow is the straight line, so every geodesic sampler run on Euclidean is
// exactly its flat textbook form (SGGMC → SGHMC, gSGNHT → SGNHT, geodesic SGLD → SGLD).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/simd/isa.hpp>

namespace sgmcmc {

namespace detail::euclidean {
// The fused sweep, compiled for SSE2 and AVX2 like the sphere's sweeps (modules/simd/isa.hpp): per chunk
// x += t1·v, the kick (an indirect call), x += t2·v. Elementwise, correctly rounded, no FMA, so both
// copies (and Eigen's x += t * v) give the same bits.
inline constexpr Eigen::Index kChunk = 1024;
SGMCMC_FORCE_INLINE void advance(double* __restrict x, const double* __restrict v, Eigen::Index len, double t) {
  SGMCMC_NO_CONTRACT
  for (Eigen::Index i = 0; i < len; ++i) x[i] += t * v[i];
}
SGMCMC_FORCE_INLINE void sweep(double* x, double* v, Eigen::Index size, double t1, const ChunkKick& kick, double t2) {
  SGMCMC_NO_CONTRACT
  for (Eigen::Index b = 0; b < size; b += kChunk) {
    const Eigen::Index len = std::min(kChunk, size - b);
    if (t1 != 0.0) advance(x + b, v + b, len, t1);
    kick(b, b + len);  // writes v[b, b + len) through its own pointers, between the two advances
    advance(x + b, v + b, len, t2);
  }
}
[[SGMCMC_EXACT]] inline void sweep_generic(double* x, double* v, Eigen::Index size, double t1, const ChunkKick& kick,
                                           double t2) {
  sweep(x, v, size, t1, kick, t2);
}
#if SGMCMC_ISA_DISPATCH
[[SGMCMC_TARGET_AVX2]] inline void sweep_avx2(double* x, double* v, Eigen::Index size, double t1, const ChunkKick& kick,
                                              double t2) {
  sweep(x, v, size, t1, kick, t2);
}
#endif
}  // namespace detail::euclidean

struct Euclidean {
  using Point = Eigen::VectorXd;
  Eigen::Index n = 1;

  Euclidean() = default;
  explicit Euclidean(Eigen::Index dim) : n(dim) { require(dim >= 1, "euclidean: dim must be at least 1"); }

  Eigen::Index ambient_size() const { return n; }
  Eigen::Index intrinsic_dim() const { return n; }
  void project(Eigen::Ref<const Eigen::VectorXd> /*x*/, Eigen::Ref<Eigen::VectorXd> /*v*/) const {}
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    x += t * v;
    return 0;
  }
  /// The fused sweep (ManifoldWithFusedSweep): per chunk of 1024 coordinates, x += t1·v, the kick,
  /// x += t2·v (t1 = 0: no first flow), so x and v cross memory once and each chunk is kicked while it
  /// is in L1. The same operations as flow, kick, flow (project is the identity): the same bits.
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
#if SGMCMC_ISA_DISPATCH
    if (x.size() >= 64 && simd::best_isa() != simd::Isa::generic) {  // short vectors: not worth the switch
      detail::euclidean::sweep_avx2(x.data(), v.data(), x.size(), t1, kick, t2);
      return 0;
    }
#endif
    detail::euclidean::sweep_generic(x.data(), v.data(), x.size(), t1, kick, t2);
    return 0;
  }
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    return x.size() == n && x.allFinite() ? 0.0 : std::numeric_limits<double>::infinity();
  }
  // There is no uniform law on R^n: a standard normal point is the conventional default start.
  template <class R>
  Point random_point(R& rng) const {
    Point x(n);
    rng.normals(x);
    return x;
  }
};

static_assert(ManifoldWithFusedSweep<Euclidean>);

}  // namespace sgmcmc
