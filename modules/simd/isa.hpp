#pragma once
// Run-time choice among instruction-set copies of a hot kernel, with the same bits from every copy.
// Used by the normal generator (modules/random/normal.hpp) and the sphere's sweeps (manifolds/sphere.hpp).
//
// A kernel is written once as a force-inlined template and wrapped in one function per target
// (SGMCMC_TARGET_AVX2, SGMCMC_TARGET_AVX512): inlined into a wrapper it is compiled for that target.
// Every copy must do the same correctly rounded IEEE operations per lane in the same order (no FMA,
// no reassociation), so which copy runs never changes a result — reproducibility across machines.
#if defined(__SSE2__)
#include <immintrin.h>
#endif

// x86-64 with GCC or Clang only. Define SGMCMC_NO_ISA_DISPATCH to build only the baseline copies.
#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__) && !defined(SGMCMC_NO_ISA_DISPATCH)
#define SGMCMC_ISA_DISPATCH 1
#else
#define SGMCMC_ISA_DISPATCH 0
#endif

#if defined(__GNUC__)
#define SGMCMC_FORCE_INLINE [[gnu::always_inline]] inline
#else
#define SGMCMC_FORCE_INLINE inline
#endif

// No a·b + c may become a fused multiply-add in a kernel, whatever -ffp-contract the includer uses
// (GCC's default in GNU mode is "fast", and AVX-512 always has FMA). GCC decides contraction per
// function after inlining, so every entry point that is not force-inlined carries
// optimize("fp-contract=off"); Clang decides per statement, so each kernel body opens with
// STDC FP_CONTRACT OFF (honoured under Clang's default -ffp-contract=on; -ffp-contract=fast ignores
// pragmas by design and is not supported for bit reproducibility).
#if defined(__clang__)
#define SGMCMC_EXACT
#define SGMCMC_NO_CONTRACT _Pragma("STDC FP_CONTRACT OFF")
#elif defined(__GNUC__)
#define SGMCMC_EXACT gnu::optimize("fp-contract=off")
#define SGMCMC_NO_CONTRACT
#else
#define SGMCMC_EXACT
#define SGMCMC_NO_CONTRACT
#endif

#if SGMCMC_ISA_DISPATCH
// The targets add wider vectors only (no FMA).
#define SGMCMC_TARGET_AVX2 gnu::target("avx2"), SGMCMC_EXACT
#if defined(__clang__)
#define SGMCMC_TARGET_AVX512 gnu::target("avx512f,avx512dq,avx512vl,avx512bw")
#else
#define SGMCMC_TARGET_AVX512 \
  gnu::target("avx512f,avx512dq,avx512vl,avx512bw,prefer-vector-width=512"), SGMCMC_EXACT
#endif
#endif

namespace sgmcmc::simd {

/// The copies a kernel may have.
enum class Isa { generic, avx2, avx512 };

#if SGMCMC_ISA_DISPATCH
/// Whether the CPU (and the OS, which must save the wider registers) supports each copy.
inline bool cpu_supports(Isa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case Isa::generic: return true;
    case Isa::avx2: return __builtin_cpu_supports("avx2") != 0;
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  }
  return false;
}
/// The widest copy this CPU runs (decided once).
inline Isa best_isa() {
  static const Isa isa = cpu_supports(Isa::avx512) ? Isa::avx512 : cpu_supports(Isa::avx2) ? Isa::avx2 : Isa::generic;
  return isa;
}
#else
inline bool cpu_supports(Isa isa) { return isa == Isa::generic; }
inline Isa best_isa() { return Isa::generic; }
#endif

}  // namespace sgmcmc::simd
