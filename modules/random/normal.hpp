#pragma once
// Standard normal draws from Philox blocks by the Box–Muller transform (Box & Muller 1958).
//
// Pair p of a stream is computed from one Philox4x32-10 block with counter {lo32(p), hi32(p), stream,
// kind} and key {lo32(seed), hi32(seed)}: words w0..w3, a = w1:w0, b = w3:w2,
// u1 = ((a >> 11) + 1)·2⁻⁵³ ∈ (0, 1], u2 = (b >> 11)·2⁻⁵³ ∈ [0, 1), and
// (z0, z1) = sqrt(-2 log u1) (cos 2πu2, sin 2πu2). Every pair is a pure function of (seed, stream, kind,
// p), so a block fill equals one-by-one draws.
//
// Bit reproducibility. glibc's log/sin/cos pick FMA or non-FMA code at run time by CPU, so their last
// bit may differ between machines. The transform therefore uses its own `portable::log_unit` and
// `portable::sincos_turns`: fixed polynomials evaluated in a fixed order with +, -, *, /, sqrt and bit
// manipulation only, each correctly rounded by IEEE 754, so a draw is the same double on every IEEE
// machine. This needs the arithmetic neither fused nor reassociated, and evaluated in double
// (FLT_EVAL_METHOD 0, as on x86-64 and AArch64): the file forbids contraction itself (see
// SGMCMC_EXACT in modules/simd/isa.hpp), and -ffast-math is not supported.
//
// Speed. `fill_normal_pairs` works in chunks of 128 pairs: Philox for all the chunk's counters in
// structure-of-arrays form (the 32×32→64 products are `pmuludq`, two, four or eight lanes at a time),
// then the transform as branch-free loops that GCC vectorises. On x86-64 with GCC or Clang the kernel
// is compiled three times (SSE2, AVX2, AVX-512) and the widest the CPU supports is chosen at run time.
// Every operation in it is exact integer arithmetic or one correctly rounded IEEE operation per lane
// (no FMA, no reassociation), so all copies give the same bits as the scalar `box_muller`:
// tests/random/test_random.cpp compares each copy the CPU can run against it.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include <sgmcmc/modules/simd/isa.hpp>

// The shared ISA machinery (modules/simd/isa.hpp) under this file's names.
#define SGMCMC_RANDOM_DISPATCH SGMCMC_ISA_DISPATCH
#define SGMCMC_RANDOM_INLINE SGMCMC_FORCE_INLINE
#define SGMCMC_RANDOM_EXACT SGMCMC_EXACT
#define SGMCMC_RANDOM_NO_CONTRACT SGMCMC_NO_CONTRACT

namespace sgmcmc::random {

/// Portable elementary functions on the exact inputs Box–Muller needs: same bits on every IEEE machine.
/// They are force-inlined building blocks: called directly, they inherit the caller's -ffp-contract
/// (the entry points box_muller and fill_normal_pairs fix it).
namespace portable {

/// Natural log of x for a normal positive double x ≤ 1 (in particular every u1 = k·2⁻⁵³, k = 1..2⁵³).
/// Reduction x = 2^k·m with m ∈ [√2/2, √2), log m = log(1+f) = 2s + s·R(s²), s = f/(2+f), with the
/// minimax R and the ln 2 split of fdlibm's e_log.c (Sun Microsystems 1993; error < 1 ulp), branch-free.
SGMCMC_RANDOM_INLINE double log_unit(double x) {
  SGMCMC_RANDOM_NO_CONTRACT
  constexpr double ln2_hi = 0x1.62e42feep-1;            // 6.93147180369123816490e-01, 32 bits
  constexpr double ln2_lo = 0x1.a39ef35793c76p-33;      // 1.90821492927058770002e-10
  constexpr double lg1 = 0x1.5555555555593p-1, lg2 = 0x1.999999997fa04p-2, lg3 = 0x1.2492494229359p-2,
                   lg4 = 0x1.c71c51d8e78afp-3, lg5 = 0x1.7466496cb03dep-3, lg6 = 0x1.39a09d078c69fp-3,
                   lg7 = 0x1.2f112df3e5244p-3;
  const std::uint64_t ix = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t mant = ix & 0x000fffffffffffffULL;
  // Carry into bit 52 iff the significand 1.mant ≥ √2 (fdlibm's 0x95f64 test on the high word).
  const std::uint64_t up = (mant + 0x00095f6400000000ULL) & 0x0010000000000000ULL;
  const double m = std::bit_cast<double>(mant | (up ^ 0x3ff0000000000000ULL));  // [√2/2, √2)
  // k = biased exponent - 1023 + (m was halved), as an exact double: 2⁵² + integer trick.
  const double dk = (std::bit_cast<double>(0x4330000000000000ULL + (ix >> 52) + (up >> 52)) - 0x1p52) - 1023.0;
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (lg2 + w * (lg4 + w * lg6));
  const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  // fdlibm's more accurate final form (it takes a cheaper one for small |f|; one form keeps this
  // branch-free, and the dense-grid test finds < 0.9 ulp against a long double reference).
  return dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
}

/// (cos 2πu, sin 2πu) for u = k·2⁻⁵³, k < 2⁵³ (the low 53 bits of k are used). The reduction is exact:
/// 4u = q + r with q the nearest integer and r ∈ [-1/2, 1/2) (integer arithmetic on k), then
/// cos/sin(πr/2) by Taylor polynomials in r (truncation < 3e-18 relative on |r| ≤ 1/2) and the quadrant
/// q by swaps and sign flips. No argument ever loses bits, so the result is within ~1 ulp everywhere,
/// including next to the zeros of sin and cos.
SGMCMC_RANDOM_INLINE void sincos_turns(std::uint64_t k, double& c, double& s) {
  SGMCMC_RANDOM_NO_CONTRACT
  // sin(πr/2) = r·(s0 + s1 r² + ... + s8 r¹⁶), s0 = π/2 split in two: coefficients (-1)^j (π/2)^(2j+1)/(2j+1)!.
  constexpr double s0_hi = 0x1.921fb54442d18p+0, s0_lo = 0x1.1a62633145c07p-54;
  constexpr double s1 = -0x1.4abbce625be53p-1, s2 = 0x1.466bc6775aae2p-4, s3 = -0x1.32d2cce62bd86p-8,
                   s4 = 0x1.50783487ee782p-13, s5 = -0x1.e3074fde8871fp-19, s6 = 0x1.e8f434d018d63p-25,
                   s7 = -0x1.6fadb9f155744p-31, s8 = 0x1.aaec32af93359p-38;
  // cos(πr/2) = 1 + c1 r² + ... + c8 r¹⁶: coefficients (-1)^j (π/2)^(2j)/(2j)!.
  constexpr double c1 = -0x1.3bd3cc9be45dep+0, c2 = 0x1.03c1f081b5ac4p-2, c3 = -0x1.55d3c7e3cbffap-6,
                   c4 = 0x1.e1f506891babbp-11, c5 = -0x1.a6d1f2a204a8cp-16, c6 = 0x1.f9d38a3763cc3p-22,
                   c7 = -0x1.b6e24f44b128fp-28, c8 = 0x1.20c62c2f2d7f5p-34;
  const std::uint64_t t = (k & 0x001fffffffffffffULL) + (std::uint64_t{1} << 50);  // + 1/8 turn
  const std::uint64_t q = (t >> 51) & 3;                                          // nearest quadrant
  // r = (t mod 2⁵¹ - 2⁵⁰)·2⁻⁵¹ ∈ [-1/2, 1/2), converted exactly through the 2⁵² + integer trick.
  const double r = (std::bit_cast<double>(0x4330000000000000ULL | (t & 0x0007ffffffffffffULL)) - 0x1.4p52) * 0x1p-51;
  const double z = r * r;
  const double ps = s1 + z * (s2 + z * (s3 + z * (s4 + z * (s5 + z * (s6 + z * (s7 + z * s8))))));
  const double pc = c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * (c7 + z * c8)))));
  const double sn = r * s0_hi + (r * s0_lo + (r * z) * ps);
  const double cs = 1.0 + (z * c1 + (z * z) * pc);
  // Quadrant q: (cos, sin)(qπ/2 + θ) = (cs, sn), (-sn, cs), (-cs, -sn), (sn, -cs).
  const std::uint64_t bs = std::bit_cast<std::uint64_t>(sn), bc = std::bit_cast<std::uint64_t>(cs);
  const std::uint64_t swap = 0 - (q & 1);
  const std::uint64_t cos_bits = ((bs & swap) | (bc & ~swap)) ^ (((q + 1) & 2) << 62);
  const std::uint64_t sin_bits = ((bc & swap) | (bs & ~swap)) ^ ((q & 2) << 62);
  c = std::bit_cast<double>(cos_bits);
  s = std::bit_cast<double>(sin_bits);
}

/// u1 = ((a >> 11) + 1)·2⁻⁵³, computed as hi·2⁻³² + lo·2⁻⁵³ with hi = a >> 32 and lo = ((a mod 2³²) >> 11) + 1,
/// each converted exactly through the 2⁵² + integer trick: both terms and the sum are exact, and it
/// vectorises on SSE2 (which has no 64-bit integer to double conversion).
SGMCMC_RANDOM_INLINE double u1_from_bits(std::uint64_t a) {
  SGMCMC_RANDOM_NO_CONTRACT
  const double hi = std::bit_cast<double>(0x4330000000000000ULL | (a >> 32)) - 0x1p52;
  const double lo = std::bit_cast<double>(0x4330000000000000ULL | (((a & 0xffffffffULL) >> 11) + 1)) - 0x1p52;
  return hi * 0x1p-32 + lo * 0x1p-53;
}

/// The Box–Muller pair from one Philox block's four words (the stream's definition, see the top).
SGMCMC_RANDOM_INLINE void box_muller_words(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2, std::uint32_t w3,
                                           double& z0, double& z1) {
  SGMCMC_RANDOM_NO_CONTRACT
  const double rad = std::sqrt(-2.0 * log_unit(u1_from_bits(std::uint64_t{w1} << 32 | w0)));
  double c, s;
  sincos_turns((std::uint64_t{w3} << 32 | w2) >> 11, c, s);
  z0 = rad * c;
  z1 = rad * s;
}

}  // namespace portable

/// One Box–Muller pair from one Philox block (what Stream::normal uses): the stream's definition.
[[SGMCMC_RANDOM_EXACT]] inline void box_muller(const std::array<std::uint32_t, 4>& w, double (&pair)[2]) {
  portable::box_muller_words(w[0], w[1], w[2], w[3], pair[0], pair[1]);
}

namespace detail {

inline constexpr std::uint32_t philox_m0 = 0xD2511F53, philox_m1 = 0xCD9E8D57;  // Salmon et al. 2011
inline constexpr std::uint32_t philox_w0 = 0x9E3779B9, philox_w1 = 0xBB67AE85;
/// Pairs per chunk (5 KiB of scratch, in L1); a multiple of every vector width below.
inline constexpr int normal_chunk = 128;

// Each instruction-set copy supplies two loops over a chunk, run for n rounded up to a multiple of 8:
//   chunk: Philox4x32-10 for counters {lo32(first + i), hi32(first + i), c2, c3}, written as the
//          64-bit halves a[i] = w1:w0 and b[i] = w3:w2 that the transform reads;
//   sqrt:  x[i] = sqrt(x[i]) (GCC never vectorises std::sqrt under the default -fmath-errno).
// The x86 copies keep each 32-bit Philox word in a 64-bit lane, so each 32×32→64 product is one
// pmuludq, which reads only the low halves: the high halves may carry junk between rounds and are
// cleared once at the end. (GCC does not find this form itself: it emulates a full 64-bit product or
// shuffles 32-bit lanes, 3× slower, hence the intrinsics.) Everything is exact integer arithmetic or
// one correctly rounded IEEE sqrt per lane, so every copy gives the same bits.

/// Portable copy: plain C++, what a non-x86 build runs.
struct IsaPortable {
  static void chunk(std::uint64_t first, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0, std::uint32_t k1,
                    int n, std::uint64_t* a, std::uint64_t* b) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t idx = first + static_cast<std::uint64_t>(i);
      std::uint32_t x0 = static_cast<std::uint32_t>(idx), x1 = static_cast<std::uint32_t>(idx >> 32), x2 = c2,
                    x3 = c3, key0 = k0, key1 = k1;
      for (int round = 0; round < 10; ++round, key0 += philox_w0, key1 += philox_w1) {
        const std::uint64_t p0 = std::uint64_t{philox_m0} * x0, p1 = std::uint64_t{philox_m1} * x2;
        x0 = static_cast<std::uint32_t>(p1 >> 32) ^ x1 ^ key0;
        x1 = static_cast<std::uint32_t>(p1);
        x2 = static_cast<std::uint32_t>(p0 >> 32) ^ x3 ^ key1;
        x3 = static_cast<std::uint32_t>(p0);
      }
      a[i] = std::uint64_t{x1} << 32 | x0;
      b[i] = std::uint64_t{x3} << 32 | x2;
    }
  }
  static void sqrt(double* x, int n) {
    for (int i = 0; i < n; ++i) x[i] = std::sqrt(x[i]);
  }
};

#if defined(__SSE2__)
/// SSE2 copy: two counters per vector; the baseline of every x86-64 build.
struct IsaSse2 {
  static void chunk(std::uint64_t first, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0, std::uint32_t k1,
                    int n, std::uint64_t* a, std::uint64_t* b) {
    const __m128i m0 = _mm_set1_epi64x(philox_m0), m1 = _mm_set1_epi64x(philox_m1), lo = _mm_set1_epi64x(0xffffffff);
    __m128i key0[10], key1[10];
    for (int r = 0; r < 10; ++r) {
      key0[r] = _mm_set1_epi64x(static_cast<std::uint32_t>(k0 + static_cast<std::uint32_t>(r) * philox_w0));
      key1[r] = _mm_set1_epi64x(static_cast<std::uint32_t>(k1 + static_cast<std::uint32_t>(r) * philox_w1));
    }
    __m128i idx = _mm_add_epi64(_mm_set1_epi64x(static_cast<long long>(first)), _mm_set_epi64x(1, 0));
    for (int i = 0; i < n; i += 2, idx = _mm_add_epi64(idx, _mm_set1_epi64x(2))) {
      __m128i x0 = idx, x1 = _mm_srli_epi64(idx, 32), x2 = _mm_set1_epi64x(c2), x3 = _mm_set1_epi64x(c3);
      for (int r = 0; r < 10; ++r) {
        const __m128i p0 = _mm_mul_epu32(x0, m0), p1 = _mm_mul_epu32(x2, m1);
        x0 = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi64(p1, 32), x1), key0[r]);
        x2 = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi64(p0, 32), x3), key1[r]);
        x1 = p1;
        x3 = p0;
      }
      _mm_store_si128(reinterpret_cast<__m128i*>(a + i), _mm_or_si128(_mm_slli_epi64(x1, 32), _mm_and_si128(x0, lo)));
      _mm_store_si128(reinterpret_cast<__m128i*>(b + i), _mm_or_si128(_mm_slli_epi64(x3, 32), _mm_and_si128(x2, lo)));
    }
  }
  static void sqrt(double* x, int n) {
    for (int i = 0; i < n; i += 2) _mm_store_pd(x + i, _mm_sqrt_pd(_mm_load_pd(x + i)));
  }
};
using IsaGeneric = IsaSse2;
#else
using IsaGeneric = IsaPortable;
#endif

#if SGMCMC_RANDOM_DISPATCH
#define SGMCMC_RANDOM_TARGET_AVX2 SGMCMC_TARGET_AVX2
#define SGMCMC_RANDOM_TARGET_AVX512 SGMCMC_TARGET_AVX512

/// AVX2 copy: four counters per vector. The target adds wider vectors only (no FMA).
struct IsaAvx2 {
  [[SGMCMC_RANDOM_TARGET_AVX2]] static void chunk(std::uint64_t first, std::uint32_t c2, std::uint32_t c3,
                                                  std::uint32_t k0, std::uint32_t k1, int n, std::uint64_t* a,
                                                  std::uint64_t* b) {
    const __m256i m0 = _mm256_set1_epi64x(philox_m0), m1 = _mm256_set1_epi64x(philox_m1);
    const __m256i lo = _mm256_set1_epi64x(0xffffffff);
    __m256i key0[10], key1[10];
    for (int r = 0; r < 10; ++r) {
      key0[r] = _mm256_set1_epi64x(static_cast<std::uint32_t>(k0 + static_cast<std::uint32_t>(r) * philox_w0));
      key1[r] = _mm256_set1_epi64x(static_cast<std::uint32_t>(k1 + static_cast<std::uint32_t>(r) * philox_w1));
    }
    __m256i idx = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(first)), _mm256_set_epi64x(3, 2, 1, 0));
    for (int i = 0; i < n; i += 4, idx = _mm256_add_epi64(idx, _mm256_set1_epi64x(4))) {
      __m256i x0 = idx, x1 = _mm256_srli_epi64(idx, 32), x2 = _mm256_set1_epi64x(c2), x3 = _mm256_set1_epi64x(c3);
      for (int r = 0; r < 10; ++r) {
        const __m256i p0 = _mm256_mul_epu32(x0, m0), p1 = _mm256_mul_epu32(x2, m1);
        x0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), x1), key0[r]);
        x2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3), key1[r]);
        x1 = p1;
        x3 = p0;
      }
      _mm256_store_si256(reinterpret_cast<__m256i*>(a + i),
                         _mm256_or_si256(_mm256_slli_epi64(x1, 32), _mm256_and_si256(x0, lo)));
      _mm256_store_si256(reinterpret_cast<__m256i*>(b + i),
                         _mm256_or_si256(_mm256_slli_epi64(x3, 32), _mm256_and_si256(x2, lo)));
    }
  }
  [[SGMCMC_RANDOM_TARGET_AVX2]] static void sqrt(double* x, int n) {
    for (int i = 0; i < n; i += 4) _mm256_store_pd(x + i, _mm256_sqrt_pd(_mm256_load_pd(x + i)));
  }
};

/// AVX-512 copy: eight counters per vector. The maskz forms with a full mask are the plain operations;
/// GCC 12's unmasked forms trip -Wuninitialized inside its own header (GCC PR 105593).
struct IsaAvx512 {
  [[SGMCMC_RANDOM_TARGET_AVX512]] static void chunk(std::uint64_t first, std::uint32_t c2, std::uint32_t c3,
                                                    std::uint32_t k0, std::uint32_t k1, int n, std::uint64_t* a,
                                                    std::uint64_t* b) {
    const __mmask8 all = 0xff;
    const __m512i m0 = _mm512_set1_epi64(philox_m0), m1 = _mm512_set1_epi64(philox_m1);
    const __m512i lo = _mm512_set1_epi64(0xffffffff);
    __m512i key0[10], key1[10];
    for (int r = 0; r < 10; ++r) {
      key0[r] = _mm512_set1_epi64(static_cast<std::uint32_t>(k0 + static_cast<std::uint32_t>(r) * philox_w0));
      key1[r] = _mm512_set1_epi64(static_cast<std::uint32_t>(k1 + static_cast<std::uint32_t>(r) * philox_w1));
    }
    __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first)),
                                   _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    for (int i = 0; i < n; i += 8, idx = _mm512_add_epi64(idx, _mm512_set1_epi64(8))) {
      __m512i x0 = idx, x1 = _mm512_maskz_srli_epi64(all, idx, 32), x2 = _mm512_set1_epi64(c2),
              x3 = _mm512_set1_epi64(c3);
      for (int r = 0; r < 10; ++r) {
        const __m512i p0 = _mm512_maskz_mul_epu32(all, x0, m0), p1 = _mm512_maskz_mul_epu32(all, x2, m1);
        x0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(all, p1, 32), x1), key0[r]);
        x2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(all, p0, 32), x3), key1[r]);
        x1 = p1;
        x3 = p0;
      }
      _mm512_store_si512(a + i, _mm512_or_si512(_mm512_maskz_slli_epi64(all, x1, 32), _mm512_and_si512(x0, lo)));
      _mm512_store_si512(b + i, _mm512_or_si512(_mm512_maskz_slli_epi64(all, x3, 32), _mm512_and_si512(x2, lo)));
    }
  }
  [[SGMCMC_RANDOM_TARGET_AVX512]] static void sqrt(double* x, int n) {
    const __mmask8 all = 0xff;
    for (int i = 0; i < n; i += 8) _mm512_store_pd(x + i, _mm512_maskz_sqrt_pd(all, _mm512_load_pd(x + i)));
  }
};
#endif

/// The bulk kernel, shared by every copy: per chunk, Philox for all counters, then the transform in
/// three vectorised loops (log and sincos; the square roots; the products, interleaved into out). The
/// Isa loops run to n rounded up to 8 (the scratch arrays are a whole chunk); only n pairs are stored.
template <class Isa>
SGMCMC_RANDOM_INLINE void fill_normal_pairs_kernel(std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                                                   std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  SGMCMC_RANDOM_NO_CONTRACT
  alignas(64) std::uint64_t a[normal_chunk], b[normal_chunk];
  alignas(64) double rad[normal_chunk], cs[normal_chunk], sn[normal_chunk];
  const auto k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (Eigen::Index done = 0; done < pairs;) {
    const int n = pairs - done < normal_chunk ? static_cast<int>(pairs - done) : normal_chunk;
    const int padded = (n + 7) & ~7;
    Isa::chunk(first_pair + static_cast<std::uint64_t>(done), stream, kind, k0, k1, padded, a, b);
    for (int i = 0; i < padded; ++i) {
      rad[i] = -2.0 * portable::log_unit(portable::u1_from_bits(a[i]));
      portable::sincos_turns(b[i] >> 11, cs[i], sn[i]);
    }
    Isa::sqrt(rad, padded);
    double* __restrict o = out + 2 * done;
    for (int i = 0; i < n; ++i) {
      o[2 * i] = rad[i] * cs[i];
      o[2 * i + 1] = rad[i] * sn[i];
    }
    done += n;
  }
}

/// The copies, each callable directly (the tests compare every one the CPU runs with the scalar path).
[[SGMCMC_RANDOM_EXACT]] inline void fill_normal_pairs_portable(std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                                       std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  fill_normal_pairs_kernel<IsaPortable>(seed, stream, kind, first_pair, out, pairs);
}
[[SGMCMC_RANDOM_EXACT]] inline void fill_normal_pairs_generic(std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                                      std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  fill_normal_pairs_kernel<IsaGeneric>(seed, stream, kind, first_pair, out, pairs);
}

/// Which copy `fill_normal_pairs` runs on this CPU.
using simd::Isa;
using simd::cpu_supports;
using simd::best_isa;

#if SGMCMC_RANDOM_DISPATCH
[[SGMCMC_RANDOM_TARGET_AVX2]] inline void fill_normal_pairs_avx2(std::uint64_t seed, std::uint32_t stream,
                                                                 std::uint32_t kind, std::uint64_t first_pair,
                                                                 double* out, Eigen::Index pairs) {
  fill_normal_pairs_kernel<IsaAvx2>(seed, stream, kind, first_pair, out, pairs);
}
[[SGMCMC_RANDOM_TARGET_AVX512]] inline void fill_normal_pairs_avx512(std::uint64_t seed, std::uint32_t stream,
                                                                     std::uint32_t kind, std::uint64_t first_pair,
                                                                     double* out, Eigen::Index pairs) {
  fill_normal_pairs_kernel<IsaAvx512>(seed, stream, kind, first_pair, out, pairs);
}
#endif

/// fill_normal_pairs with a chosen copy (which must be supported: see cpu_supports).
inline void fill_normal_pairs_with(Isa isa, std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                                   std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  if (pairs <= 0) return;
#if SGMCMC_RANDOM_DISPATCH
  if (isa == Isa::avx512) return fill_normal_pairs_avx512(seed, stream, kind, first_pair, out, pairs);
  if (isa == Isa::avx2) return fill_normal_pairs_avx2(seed, stream, kind, first_pair, out, pairs);
#endif
  (void)isa;
  fill_normal_pairs_generic(seed, stream, kind, first_pair, out, pairs);
}

}  // namespace detail

/// Writes normal pairs first_pair, first_pair+1, ... (2·pairs doubles) of stream (seed, stream, kind):
/// the same doubles as box_muller on each block, whichever copy the CPU runs.
inline void fill_normal_pairs(std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                              std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  detail::fill_normal_pairs_with(detail::best_isa(), seed, stream, kind, first_pair, out, pairs);
}

}  // namespace sgmcmc::random
