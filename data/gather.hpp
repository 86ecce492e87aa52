#pragma once
// A batch gather with look-ahead: the columns (examples) idx[k] of a data matrix copied into the
// columns k of a scratch matrix (the BNN's batch). The columns lie scattered over a data set far larger
// than the caches, so a plain copy waits on memory one cache line at a time; asking for the lines of
// the columns a few places ahead overlaps those waits. LogisticRegression keeps its own gather (all
// columns asked for first, labels read in the same loop): through this helper and a separate label
// loop its d = 50 epoch went from 0.010 s to 0.013 s (`bench_epochs logistic --dim 50 --epochs 9
// --out r.json`, built with -DSGMCMC_BUILD_BENCH=ON, run with each version of models/logistic.hpp).
#include <algorithm>
#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace sgmcmc::data {

/// How far ahead the gather asks for columns: as many as fill about 32 KiB (an L1 data cache), at
/// least one; a batch of small columns (logistic regression at d = 50) is asked for whole up front.
inline std::size_t gather_lookahead(std::size_t column_bytes) {
  return std::max<std::size_t>(1, (std::size_t{32} << 10) / std::max<std::size_t>(1, column_bytes));
}

/// dst.col(k) = src.col(idx[first + k]) (converted to dst's scalar) for k < dst.cols(); dst must have
/// src's rows and is written through a const reference, Eigen's idiom for accepting a block
/// expression (`x.leftCols(n)`). The values are exactly those of the plain copy (prefetching is only a
/// hint).
template <class Src, class Dst>
void gather_columns(const Eigen::MatrixBase<Src>& src, const std::vector<std::size_t>& idx, std::size_t first,
                    const Eigen::MatrixBase<Dst>& out) {
  auto& dst = const_cast<Eigen::MatrixBase<Dst>&>(out);
  using S = typename Src::Scalar;
  const Eigen::Index rows = src.rows(), n = dst.cols();
  const std::size_t bytes = sizeof(S) * static_cast<std::size_t>(rows);
  const std::size_t ahead = gather_lookahead(bytes);
  const auto ask = [&](Eigen::Index k) {
    const char* col = reinterpret_cast<const char*>(src.derived().data() + static_cast<Eigen::Index>(idx[first + static_cast<std::size_t>(k)]) * src.outerStride());
    for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(col + b);
  };
  const auto lead = static_cast<Eigen::Index>(std::min<std::size_t>(ahead, static_cast<std::size_t>(n)));
  for (Eigen::Index k = 0; k < lead; ++k) ask(k);
  for (Eigen::Index k = 0; k < n; ++k) {
    if (k + lead < n) ask(k + lead);
    dst.col(k) = src.col(static_cast<Eigen::Index>(idx[first + static_cast<std::size_t>(k)])).template cast<typename Dst::Scalar>();
  }
}

}  // namespace sgmcmc::data
