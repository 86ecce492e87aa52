#pragma once
// Dense products C = A·B and C += A·B with one fixed summation order: each output is a single chain of
// fused multiply-adds over the inner index, in ascending order,
//
//   c ← fma(a_ip, b_pj, c)  for p = 0, 1, …, k − 1,  from c = C_ij (multiply_add) or c = +0 (multiply),
//
// whatever the vector width, the register block or the cache blocking. Its bits are those of
// `multiply_add_reference`, the plain loop that defines it, on every x86-64 machine and in both
// reproducibility tiers: the copies (AVX-512, AVX2 + FMA, and a generic one on std::fma) are chosen at
// run time like the normal generator's (modules/simd/isa.hpp), and each copy the CPU runs is tested to
// the bit against the reference loop (tests/dense/test_product.cpp). Unlike the elementwise kernels of
// isa.hpp these use FMA in every copy: the generic copy's std::fma is correctly rounded as well, and
// slow only on CPUs without FMA (x86-64 before 2013).
//
// Why not Eigen's product: on the BNN's shapes (500×784 by 784×100 and 784×500 by 500×100) Eigen 3.4's
// AVX-512 kernel keeps a 3-vector × 4-column block of accumulators (12 of 32 registers), so every
// broadcast feeds three multiply-adds; this one keeps 2 vectors × 10 columns (20), and packs a
// transposed operand 16×16 tiles at a time in registers (docs/benchmarks.md, "Dense products").
#include <algorithm>
#include <cassert>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#include <sgmcmc/modules/simd/isa.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>

namespace sgmcmc::dense {

using Index = Eigen::Index;

/// A matrix expression whose coefficients sit in memory at fixed strides — a Matrix, Map or Block, or
/// the transpose of one — so the kernel reads it where it is, never through an evaluated temporary.
template <class D>
concept DirectMatrix = std::derived_from<D, Eigen::MatrixBase<D>> && (int(D::Flags) & Eigen::DirectAccessBit) != 0 &&
                       (std::same_as<typename D::Scalar, float> || std::same_as<typename D::Scalar, double>);

/// Coefficient (i, j) of a direct matrix at data[i·row_stride + j·col_stride].
template <class T>
struct Strided {
  const T* data;
  Index rows, cols, row_stride, col_stride;
  const T& operator()(Index i, Index j) const { return data[i * row_stride + j * col_stride]; }
};

template <DirectMatrix D>
Strided<typename D::Scalar> strided(const D& m) {
  if constexpr (D::IsRowMajor) return {m.data(), m.rows(), m.cols(), m.outerStride(), m.innerStride()};
  else return {m.data(), m.rows(), m.cols(), m.innerStride(), m.outerStride()};
}

template <class T>
using Target = Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>;

/// The definition: C += A·B (or C = A·B when `accumulate` is false) by the plain loop above.
template <DirectMatrix DA, DirectMatrix DB>
void multiply_add_reference(Target<typename DA::Scalar> c, const DA& a, const DB& b, bool accumulate = true) {
  static_assert(std::same_as<typename DA::Scalar, typename DB::Scalar>);
  using T = typename DA::Scalar;
  const Strided<T> A = strided(a), B = strided(b);
  assert(c.rows() == A.rows && c.cols() == B.cols && A.cols == B.rows);
  for (Index j = 0; j < c.cols(); ++j)
    for (Index i = 0; i < c.rows(); ++i) {
      T s = accumulate ? c(i, j) : T(0);
      for (Index p = 0; p < A.cols; ++p) s = std::fma(A(i, p), B(p, j), s);
      c(i, j) = s;
    }
}

namespace detail {

// A kernel's lanes: the vector type, how many `row_vectors` of them make the register block's rows
// (MR = row_vectors · lanes) and how many `columns` (NR) it has, and the operations it needs. The
// accumulators (row_vectors · columns) plus row_vectors + 1 operands must fit in the registers.

/// dst[q·ld_dst + r] = src[r·ld_src + q] for an L × L tile, element by element.
template <int L, class T>
SGMCMC_FORCE_INLINE void transpose_elementwise(const T* src, Index ld_src, T* dst, Index ld_dst) {
  for (int r = 0; r < L; ++r)
    for (int q = 0; q < L; ++q) dst[q * ld_dst + r] = src[r * ld_src + q];
}

/// One lane, std::fma: the driver's logic in plain code (tested against the reference like the rest).
template <class T>
struct ScalarLanes {
  using Scalar = T;
  using V = T;
  static constexpr int lanes = 1, row_vectors = 4, columns = 4;
  SGMCMC_FORCE_INLINE static V zero() { return T(0); }
  SGMCMC_FORCE_INLINE static V load(const T* p) { return *p; }
  SGMCMC_FORCE_INLINE static void store(T* p, V v) { *p = v; }
  SGMCMC_FORCE_INLINE static V broadcast(const T* p) { return *p; }
  SGMCMC_FORCE_INLINE static V fma(V a, V b, V c) { return std::fma(a, b, c); }
  /// dst[q·ld_dst + r] = src[r·ld_src + q] for a lanes × lanes tile.
  SGMCMC_FORCE_INLINE static void transpose(const T* src, Index ld_src, T* dst, Index ld_dst) {
    transpose_elementwise<lanes>(src, ld_src, dst, ld_dst);
  }
};

/// Blocking: fixed sizes (never the detected caches). They change the speed, never the bits: each
/// output's chain continues from the stored C across the blocks of the inner dimension.
inline constexpr Index inner_block = 256;
inline constexpr Index row_block = 128;

/// The packed copies of A and B (one per thread and scalar type): grown once, reused by every product.
template <class T>
struct Packs {
  std::vector<T> a, b;
};
template <class T>
Packs<T>& packs() {
  thread_local Packs<T> p;
  return p;
}

}  // namespace detail

}  // namespace sgmcmc::dense

// The generic copy: ScalarLanes on std::fma, compiled for the build's target.
#define SGMCMC_DENSE_COPY generic
#include <sgmcmc/modules/dense/packed_product.hpp>
#undef SGMCMC_DENSE_COPY

#if SGMCMC_ISA_DISPATCH
// The AVX2 + FMA copy: every function defined from here to the matching pop is compiled for the target.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace sgmcmc::dense::detail {
/// AVX2 + FMA (16 ymm registers): 2 vectors × 6 columns of accumulators.
template <class T>
struct Avx2Lanes;
template <>
struct Avx2Lanes<float> : ScalarLanes<float> {
  using V = __m256;
  static constexpr int lanes = 8, row_vectors = 2, columns = 6;
  SGMCMC_FORCE_INLINE static V zero() { return _mm256_setzero_ps(); }
  SGMCMC_FORCE_INLINE static V load(const float* p) { return _mm256_loadu_ps(p); }
  SGMCMC_FORCE_INLINE static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  SGMCMC_FORCE_INLINE static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  SGMCMC_FORCE_INLINE static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  SGMCMC_FORCE_INLINE static void transpose(const float* src, Index ld_src, float* dst, Index ld_dst) {
    transpose_elementwise<lanes>(src, ld_src, dst, ld_dst);
  }
};
template <>
struct Avx2Lanes<double> : ScalarLanes<double> {
  using V = __m256d;
  static constexpr int lanes = 4, row_vectors = 2, columns = 6;
  SGMCMC_FORCE_INLINE static V zero() { return _mm256_setzero_pd(); }
  SGMCMC_FORCE_INLINE static V load(const double* p) { return _mm256_loadu_pd(p); }
  SGMCMC_FORCE_INLINE static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  SGMCMC_FORCE_INLINE static V broadcast(const double* p) { return _mm256_broadcast_sd(p); }
  SGMCMC_FORCE_INLINE static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  SGMCMC_FORCE_INLINE static void transpose(const double* src, Index ld_src, double* dst, Index ld_dst) {
    transpose_elementwise<lanes>(src, ld_src, dst, ld_dst);
  }
};
}  // namespace sgmcmc::dense::detail
#define SGMCMC_DENSE_COPY avx2
#include <sgmcmc/modules/dense/packed_product.hpp>
#undef SGMCMC_DENSE_COPY
namespace sgmcmc::dense::detail::avx2 {
template <class T>
void run(T* c, Index ldc, const Strided<T>& a, const Strided<T>& b, bool accumulate) {
  product<Avx2Lanes<T>>(c, ldc, a, b, accumulate);
}
}  // namespace sgmcmc::dense::detail::avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// The AVX-512 copy.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")
#endif
namespace sgmcmc::dense::detail {
/// AVX-512 (32 zmm registers): 2 vectors × 10 columns of accumulators; transposed operands are packed
/// by in-register tile transposes (unpack within 128-bit lanes, then two 128-bit-lane shuffles). The
/// shuffles are the zero-masking forms with every lane kept (the same results): GCC 12's unmasked
/// forms pass `_mm512_undefined_*()` placeholders that -Wmaybe-uninitialized rejects (GCC bug 105593).
inline constexpr __mmask16 all16 = 0xFFFF;
inline constexpr __mmask8 all8 = 0xFF;
template <class T>
struct Avx512Lanes;
template <>
struct Avx512Lanes<float> : ScalarLanes<float> {
  using V = __m512;
  static constexpr int lanes = 16, row_vectors = 2, columns = 10;
  SGMCMC_FORCE_INLINE static V zero() { return _mm512_setzero_ps(); }
  SGMCMC_FORCE_INLINE static V load(const float* p) { return _mm512_loadu_ps(p); }
  SGMCMC_FORCE_INLINE static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  SGMCMC_FORCE_INLINE static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  SGMCMC_FORCE_INLINE static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  SGMCMC_FORCE_INLINE static void transpose(const float* src, Index ld_src, float* dst, Index ld_dst) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * ld_src);
    for (int k = 0; k < 8; ++k) {
      t[2 * k] = _mm512_maskz_unpacklo_ps(all16, r[2 * k], r[2 * k + 1]);
      t[2 * k + 1] = _mm512_maskz_unpackhi_ps(all16, r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 4; ++k) {
      const __m512d a = _mm512_castps_pd(t[4 * k]), b = _mm512_castps_pd(t[4 * k + 2]);
      const __m512d c = _mm512_castps_pd(t[4 * k + 1]), d = _mm512_castps_pd(t[4 * k + 3]);
      r[4 * k] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, a, b));
      r[4 * k + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, a, b));
      r[4 * k + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, c, d));
      r[4 * k + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, c, d));
    }
    for (int k = 0; k < 2; ++k)
      for (int q = 0; q < 4; ++q) {
        t[8 * k + q] = _mm512_maskz_shuffle_f32x4(all16, r[8 * k + q], r[8 * k + 4 + q], 0x88);
        t[8 * k + 4 + q] = _mm512_maskz_shuffle_f32x4(all16, r[8 * k + q], r[8 * k + 4 + q], 0xdd);
      }
    for (int q = 0; q < 8; ++q) {
      r[q] = _mm512_maskz_shuffle_f32x4(all16, t[q], t[8 + q], 0x88);
      r[8 + q] = _mm512_maskz_shuffle_f32x4(all16, t[q], t[8 + q], 0xdd);
    }
    for (int i = 0; i < 16; ++i) _mm512_storeu_ps(dst + i * ld_dst, r[i]);
  }
};
template <>
struct Avx512Lanes<double> : ScalarLanes<double> {
  using V = __m512d;
  static constexpr int lanes = 8, row_vectors = 2, columns = 10;
  SGMCMC_FORCE_INLINE static V zero() { return _mm512_setzero_pd(); }
  SGMCMC_FORCE_INLINE static V load(const double* p) { return _mm512_loadu_pd(p); }
  SGMCMC_FORCE_INLINE static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  SGMCMC_FORCE_INLINE static V broadcast(const double* p) { return _mm512_set1_pd(*p); }
  SGMCMC_FORCE_INLINE static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  SGMCMC_FORCE_INLINE static void transpose(const double* src, Index ld_src, double* dst, Index ld_dst) {
    __m512d r[8], t[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm512_loadu_pd(src + i * ld_src);
    for (int k = 0; k < 4; ++k) {
      t[2 * k] = _mm512_maskz_unpacklo_pd(all8, r[2 * k], r[2 * k + 1]);
      t[2 * k + 1] = _mm512_maskz_unpackhi_pd(all8, r[2 * k], r[2 * k + 1]);
    }
    // t[0] holds rows 0,1 at columns 0,2,4,6 (one pair per 128-bit lane); t[1] at columns 1,3,5,7.
    for (int odd = 0; odd < 2; ++odd) {
      const __m512d s0 = _mm512_maskz_shuffle_f64x2(all8, t[odd], t[2 + odd], 0x88), s1 = _mm512_maskz_shuffle_f64x2(all8, t[odd], t[2 + odd], 0xdd);
      const __m512d s2 = _mm512_maskz_shuffle_f64x2(all8, t[4 + odd], t[6 + odd], 0x88), s3 = _mm512_maskz_shuffle_f64x2(all8, t[4 + odd], t[6 + odd], 0xdd);
      r[odd] = _mm512_maskz_shuffle_f64x2(all8, s0, s2, 0x88);
      r[4 + odd] = _mm512_maskz_shuffle_f64x2(all8, s0, s2, 0xdd);
      r[2 + odd] = _mm512_maskz_shuffle_f64x2(all8, s1, s3, 0x88);
      r[6 + odd] = _mm512_maskz_shuffle_f64x2(all8, s1, s3, 0xdd);
    }
    for (int i = 0; i < 8; ++i) _mm512_storeu_pd(dst + i * ld_dst, r[i]);
  }
};
}  // namespace sgmcmc::dense::detail
#define SGMCMC_DENSE_COPY avx512
#include <sgmcmc/modules/dense/packed_product.hpp>
#undef SGMCMC_DENSE_COPY
namespace sgmcmc::dense::detail::avx512 {
template <class T>
void run(T* c, Index ldc, const Strided<T>& a, const Strided<T>& b, bool accumulate) {
  product<Avx512Lanes<T>>(c, ldc, a, b, accumulate);
}
}  // namespace sgmcmc::dense::detail::avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // SGMCMC_ISA_DISPATCH

namespace sgmcmc::dense {

namespace detail {

/// Whether this CPU runs a copy (the vector copies need FMA as well as their vector width).
inline bool copy_supported(simd::Isa isa) {
#if SGMCMC_ISA_DISPATCH
  if (isa != simd::Isa::generic && !__builtin_cpu_supports("fma")) return false;
#endif
  return simd::cpu_supports(isa);
}
/// The widest copy this CPU runs (decided once).
inline simd::Isa best_copy() {
  static const simd::Isa isa = copy_supported(simd::Isa::avx512) ? simd::Isa::avx512
                               : copy_supported(simd::Isa::avx2) ? simd::Isa::avx2
                                                                 : simd::Isa::generic;
  return isa;
}

/// C += A·B (accumulate) or C = A·B by a chosen copy (which the CPU must support: copy_supported).
template <DirectMatrix DA, DirectMatrix DB>
void product_with(simd::Isa isa, Target<typename DA::Scalar> c, const DA& a, const DB& b, bool accumulate) {
  using T = typename DA::Scalar;
  static_assert(std::same_as<T, typename DB::Scalar>);
  assert(c.rows() == a.rows() && c.cols() == b.cols() && a.cols() == b.rows());
  const Strided<T> A = strided(a), B = strided(b);
#if SGMCMC_ISA_DISPATCH
  if (isa == simd::Isa::avx512) return avx512::run(c.data(), c.outerStride(), A, B, accumulate);
  if (isa == simd::Isa::avx2) return avx2::run(c.data(), c.outerStride(), A, B, accumulate);
#endif
  (void)isa;
  generic::product<ScalarLanes<T>>(c.data(), c.outerStride(), A, B, accumulate);
}

}  // namespace detail

/// C += A·B, C not aliasing A or B.
template <DirectMatrix DA, DirectMatrix DB>
void multiply_add(Target<typename DA::Scalar> c, const DA& a, const DB& b) {
  detail::product_with(detail::best_copy(), c, a, b, true);
}

/// C = A·B, C not aliasing A or B (C must already have A's rows and B's columns).
template <DirectMatrix DA, DirectMatrix DB>
void multiply(Target<typename DA::Scalar> c, const DA& a, const DB& b) {
  detail::product_with(detail::best_copy(), c, a, b, false);
}

}  // namespace sgmcmc::dense
