#pragma once
// The build's reproducibility tier (README "Reproducibility"; docs/run-format.md) and the one piece of
// run-time state that would otherwise make Eigen's dense products differ between machines of one
// instruction set.
//
// Tiers:
// - every build: one binary on one machine gives the same bits for a seed whatever the thread or rank
//   count, and a resumed run continues with the bits of the run that was never stopped;
// - a portable build (-DSGMCMC_PORTABLE=ON: baseline x86-64, SSE2, no FMA) also gives the same bits on
//   every x86-64 machine;
// - the default build compiles for the building machine's vector units (-march=native): Eigen's
//   products use AVX2/AVX-512 and FMA, so its bits are those of the instruction set it was built for.
//
// Eigen's GEMM cuts the summation over the inner dimension into blocks sized from the L1/L2/L3 caches
// it detects at run time (GeneralBlockPanelKernel.h, computeProductBlockingSizes), so even one binary
// on two machines with different caches sums in different orders. Fixing the sizes Eigen assumes makes
// the blocking a function of the matrix shapes alone; the values are Eigen's own x86 defaults (used
// when it cannot query the CPU). Any header that runs dense products includes this one.
#include <cstddef>

#include <Eigen/Core>

namespace sgmcmc::simd {

/// The cache sizes every build gives Eigen's blocking (bytes): Eigen's x86 defaults.
inline constexpr std::ptrdiff_t fixed_l1 = 32 * 1024, fixed_l2 = 256 * 1024, fixed_l3 = 2 * 1024 * 1024;

/// Sets Eigen's blocking cache sizes to the fixed ones; returns true (for the initialiser below).
inline bool fix_dense_blocking() {
  Eigen::setCpuCacheSizes(fixed_l1, fixed_l2, fixed_l3);
  return true;
}
/// Done once per program, before main: every product afterwards blocks the same way on every machine.
inline const bool dense_blocking_fixed = fix_dense_blocking();

/// Whether this build is the portable tier (the same bits on every x86-64 machine).
inline constexpr bool portable_build =
#if defined(SGMCMC_PORTABLE)
    true;
#else
    false;
#endif

/// The widest vector instructions the compiler may use in this build's dense code (not the run-time
/// dispatched kernels of isa.hpp, which give the same bits in every build): recorded with a run so a
/// reader knows on which machines its bits can be replayed.
inline constexpr const char* compiled_isa =
#if defined(__AVX512F__)
    "avx512"
#elif defined(__AVX2__) && defined(__FMA__)
    "avx2+fma"
#elif defined(__AVX2__)
    "avx2"
#elif defined(__AVX__)
    "avx"
#elif defined(__SSE2__)
    "sse2"
#else
    "generic"
#endif
    ;

}  // namespace sgmcmc::simd
