// The packed product's driver, compiled once per instruction-set copy: modules/dense/product.hpp
// includes this file inside each copy's target region with SGMCMC_DENSE_COPY naming the copy's
// namespace, so the lanes' intrinsics inline into functions built for that instruction set. There is
// deliberately no include guard; include modules/dense/product.hpp, never this file.
#if !defined(SGMCMC_DENSE_COPY)
#error "modules/dense/packed_product.hpp is included by modules/dense/product.hpp only"
#endif

namespace sgmcmc::dense::detail::SGMCMC_DENSE_COPY {

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

}  // namespace sgmcmc::dense::detail::SGMCMC_DENSE_COPY
