#pragma once
// Dense products C = A·B and C += A·B with one fixed summation order: each output is a single chain of
// fused multiply-adds over the inner index, in ascending order,
//
//   c ← fma(a_ip, b_pj, c)  for p = 0, 1, …, k − 1,  from c = C_ij (multiply_add) or c = +0 (multiply),
//
// whatever the vector width, the register block or the cache blocking. Its bits are those of
// `multiply_add_reference`, the plain loop that defines it, on every machine with FMA: a vector copy
// is tested to the bit against that loop (tests/dense/test_product.cpp).
//
// Why not Eigen's product: on the BNN's shapes (500×784 by 784×100 and 784×500 by 500×100) Eigen 3.4's
// AVX-512 kernel keeps a 3-vector × 4-column block of accumulators (12 of 32 registers), so every
// broadcast feeds three multiply-adds; this one keeps 2 vectors × 10 columns (20), and packs a
// transposed operand 16×16 tiles at a time in registers (docs/benchmarks.md, "Dense products").
//
// The kernel exists where the build compiles FMA vector instructions (the default tier on an AVX2 or
// AVX-512 machine). Elsewhere — the portable tier (no FMA in baseline x86-64) or a CPU without FMA —
// multiply and multiply_add are Eigen's product, exactly what the callers ran before.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <sgmcmc/modules/simd/isa.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>

#if defined(__FMA__) && (defined(__AVX2__) || defined(__AVX512F__)) && !defined(SGMCMC_PORTABLE)
#define SGMCMC_DENSE_KERNEL 1
#else
#define SGMCMC_DENSE_KERNEL 0
#endif

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

#if SGMCMC_DENSE_KERNEL && defined(__AVX2__)
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
#endif

#if SGMCMC_DENSE_KERNEL && defined(__AVX512F__)
/// AVX-512 (32 zmm registers): 2 vectors × 10 columns of accumulators; transposed operands are packed
/// by in-register tile transposes (unpack within 128-bit lanes, then two 128-bit-lane shuffles).
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
      t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
      t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 4; ++k) {
      const __m512d a = _mm512_castps_pd(t[4 * k]), b = _mm512_castps_pd(t[4 * k + 2]);
      const __m512d c = _mm512_castps_pd(t[4 * k + 1]), d = _mm512_castps_pd(t[4 * k + 3]);
      r[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
      r[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
      r[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
      r[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int k = 0; k < 2; ++k)
      for (int q = 0; q < 4; ++q) {
        t[8 * k + q] = _mm512_shuffle_f32x4(r[8 * k + q], r[8 * k + 4 + q], 0x88);
        t[8 * k + 4 + q] = _mm512_shuffle_f32x4(r[8 * k + q], r[8 * k + 4 + q], 0xdd);
      }
    for (int q = 0; q < 8; ++q) {
      r[q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0x88);
      r[8 + q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0xdd);
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
      t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
      t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
    }
    // t[0] holds rows 0,1 at columns 0,2,4,6 (one pair per 128-bit lane); t[1] at columns 1,3,5,7.
    for (int odd = 0; odd < 2; ++odd) {
      const __m512d s0 = _mm512_shuffle_f64x2(t[odd], t[2 + odd], 0x88), s1 = _mm512_shuffle_f64x2(t[odd], t[2 + odd], 0xdd);
      const __m512d s2 = _mm512_shuffle_f64x2(t[4 + odd], t[6 + odd], 0x88), s3 = _mm512_shuffle_f64x2(t[4 + odd], t[6 + odd], 0xdd);
      r[odd] = _mm512_shuffle_f64x2(s0, s2, 0x88);
      r[4 + odd] = _mm512_shuffle_f64x2(s0, s2, 0xdd);
      r[2 + odd] = _mm512_shuffle_f64x2(s1, s3, 0x88);
      r[6 + odd] = _mm512_shuffle_f64x2(s1, s3, 0xdd);
    }
    for (int i = 0; i < 8; ++i) _mm512_storeu_pd(dst + i * ld_dst, r[i]);
  }
};
#endif

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

/// C[0:MR, 0:NR] (leading dimension ldc) ← (load ? C : 0) + the panels' product, one fma chain per output.
template <class S>
SGMCMC_FORCE_INLINE void block(Index kc, const typename S::Scalar* pa, const typename S::Scalar* pb, typename S::Scalar* c,
                               Index ldc, bool load) {
  using V = typename S::V;
  constexpr int MV = S::row_vectors, NR = S::columns, MR = MV * S::lanes;
  V acc[NR][MV];
  for (int j = 0; j < NR; ++j)
    for (int v = 0; v < MV; ++v) acc[j][v] = load ? S::load(c + j * ldc + v * S::lanes) : S::zero();
  for (Index p = 0; p < kc; ++p) {
    V a[MV];
    for (int v = 0; v < MV; ++v) a[v] = S::load(pa + p * MR + v * S::lanes);
    for (int j = 0; j < NR; ++j) {
      const V b = S::broadcast(pb + p * NR + j);
      for (int v = 0; v < MV; ++v) acc[j][v] = S::fma(a[v], b, acc[j][v]);
    }
  }
  for (int j = 0; j < NR; ++j)
    for (int v = 0; v < MV; ++v) S::store(c + j * ldc + v * S::lanes, acc[j][v]);
}

/// Rows [r0, r0 + rows) × inner [p0, p0 + kc) of A into MR-row panels (zero rows past the end).
template <class S>
SGMCMC_FORCE_INLINE void pack_a(const Strided<typename S::Scalar>& A, Index r0, Index rows, Index p0, Index kc,
                                typename S::Scalar* dst) {
  using T = typename S::Scalar;
  constexpr Index MR = S::row_vectors * S::lanes;
  for (Index i0 = 0; i0 < rows; i0 += MR, dst += MR * kc) {
    const Index mr = std::min(MR, rows - i0);
    Index p = 0;
    if (A.row_stride == 1) {
      for (; p < kc; ++p) {
        const T* src = &A(r0 + i0, p0 + p);
        std::copy(src, src + mr, dst + p * MR);
        std::fill(dst + p * MR + mr, dst + (p + 1) * MR, T(0));
      }
    } else if (A.col_stride == 1 && mr == MR) {  // rows contiguous (a transpose): tile transposes
      for (; p + S::lanes <= kc; p += S::lanes)
        for (int v = 0; v < S::row_vectors; ++v)
          S::transpose(&A(r0 + i0 + v * S::lanes, p0 + p), A.row_stride, dst + p * MR + v * S::lanes, MR);
    }
    for (; p < kc; ++p) {
      for (Index i = 0; i < mr; ++i) dst[p * MR + i] = A(r0 + i0 + i, p0 + p);
      std::fill(dst + p * MR + mr, dst + (p + 1) * MR, T(0));
    }
  }
}

/// Inner [p0, p0 + kc) × columns [j0, j0 + cols) of B into NR-column panels (zero columns past the end).
template <class S>
SGMCMC_FORCE_INLINE void pack_b(const Strided<typename S::Scalar>& B, Index p0, Index kc, Index j0, Index cols,
                                typename S::Scalar* dst) {
  using T = typename S::Scalar;
  constexpr Index NR = S::columns;
  for (Index jp = 0; jp < cols; jp += NR, dst += NR * kc) {
    const Index nr = std::min(NR, cols - jp);
    for (Index j = 0; j < nr; ++j)
      for (Index p = 0; p < kc; ++p) dst[p * NR + j] = B(p0 + p, j0 + jp + j);
    for (Index j = nr; j < NR; ++j)
      for (Index p = 0; p < kc; ++p) dst[p * NR + j] = T(0);
  }
}

/// C (column-major, leading dimension ldc, m × n) += or = A·B by the lanes S.
template <class S>
SGMCMC_FORCE_INLINE void product(typename S::Scalar* c, Index ldc, const Strided<typename S::Scalar>& A,
                                 const Strided<typename S::Scalar>& B, bool accumulate) {
  using T = typename S::Scalar;
  constexpr Index MR = S::row_vectors * S::lanes, NR = S::columns;
  constexpr Index MC = std::max<Index>(1, row_block / MR) * MR;  // a multiple of MR: panels never overlap
  constexpr Index NC = 32 * NR;
  const Index m = A.rows, n = B.cols, k = A.cols;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate)
      for (Index j = 0; j < n; ++j) std::fill(c + j * ldc, c + j * ldc + m, T(0));
    return;
  }
  Packs<T>& buf = packs<T>();
  const auto a_size = static_cast<std::size_t>(MC * inner_block), b_size = static_cast<std::size_t>(NC * inner_block);
  if (buf.a.size() < a_size) buf.a.resize(a_size);
  if (buf.b.size() < b_size) buf.b.resize(b_size);
  alignas(64) T edge[MR * NR];
  for (Index j0 = 0; j0 < n; j0 += NC) {
    const Index nc = std::min(NC, n - j0);
    for (Index p0 = 0; p0 < k; p0 += inner_block) {
      const Index kc = std::min(inner_block, k - p0);
      const bool load = accumulate || p0 > 0;
      pack_b<S>(B, p0, kc, j0, nc, buf.b.data());
      for (Index i0 = 0; i0 < m; i0 += MC) {
        const Index mc = std::min(MC, m - i0);
        pack_a<S>(A, i0, mc, p0, kc, buf.a.data());
        for (Index jr = 0; jr < nc; jr += NR) {
          const Index nr = std::min(NR, nc - jr);
          const T* pb = buf.b.data() + (jr / NR) * NR * kc;
          for (Index ir = 0; ir < mc; ir += MR) {
            const Index mr = std::min(MR, mc - ir);
            const T* pa = buf.a.data() + (ir / MR) * MR * kc;
            T* out = c + (j0 + jr) * ldc + i0 + ir;
            if (mr == MR && nr == NR) {
              block<S>(kc, pa, pb, out, ldc, load);
              continue;
            }
            // An edge: through a full tile (its padded rows and columns are computed and dropped).
            if (load) {
              std::fill(edge, edge + MR * NR, T(0));
              for (Index j = 0; j < nr; ++j) std::copy(out + j * ldc, out + j * ldc + mr, edge + j * MR);
            }
            block<S>(kc, pa, pb, edge, MR, load);
            for (Index j = 0; j < nr; ++j) std::copy(edge + j * MR, edge + j * MR + mr, out + j * ldc);
          }
        }
      }
    }
  }
}

/// C += A·B (accumulate) or C = A·B by the lanes S: the kernel with a chosen copy, for the tests.
template <class S, DirectMatrix DA, DirectMatrix DB>
void product_with(Target<typename S::Scalar> c, const DA& a, const DB& b, bool accumulate) {
  static_assert(std::same_as<typename DA::Scalar, typename S::Scalar> && std::same_as<typename DB::Scalar, typename S::Scalar>);
  assert(c.rows() == a.rows() && c.cols() == b.cols() && a.cols() == b.rows());
  product<S>(c.data(), c.outerStride(), strided(a), strided(b), accumulate);
}

#if SGMCMC_DENSE_KERNEL && defined(__AVX512F__)
template <class T>
using BestLanes = Avx512Lanes<T>;
#elif SGMCMC_DENSE_KERNEL
template <class T>
using BestLanes = Avx2Lanes<T>;
#endif

}  // namespace detail

/// Whether multiply and multiply_add run the fixed-order kernel in this build (else Eigen's product).
inline constexpr bool fixed_order_kernel = SGMCMC_DENSE_KERNEL != 0;

/// C += A·B, C not aliasing A or B.
template <DirectMatrix DA, DirectMatrix DB>
void multiply_add(Target<typename DA::Scalar> c, const DA& a, const DB& b) {
#if SGMCMC_DENSE_KERNEL
  detail::product_with<detail::BestLanes<typename DA::Scalar>>(c, a, b, true);
#else
  c.noalias() += a * b;
#endif
}

/// C = A·B, C not aliasing A or B (C must already have A's rows and B's columns).
template <DirectMatrix DA, DirectMatrix DB>
void multiply(Target<typename DA::Scalar> c, const DA& a, const DB& b) {
#if SGMCMC_DENSE_KERNEL
  detail::product_with<detail::BestLanes<typename DA::Scalar>>(c, a, b, false);
#else
  c.noalias() = a * b;
#endif
}

}  // namespace sgmcmc::dense
