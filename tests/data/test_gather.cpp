// The batch gather with look-ahead prefetch (data/gather.hpp) against the plain indexed copy.
#include <doctest/doctest.h>

#include <vector>

#include <Eigen/Core>

#include <sgmcmc/data/gather.hpp>

using namespace sgmcmc;

TEST_CASE("gather_columns equals the plain copy to the bit, for batches shorter and longer than its look-ahead") {
  // Catches: a look-ahead that reads past the batch's indices (ASan in the sanitizer build), columns
  // copied from the wrong index or to the wrong place around the look-ahead's edge, an offset `first`
  // ignored (the BNN's parts start inside the batch), a conversion that is not the plain cast.
  const Eigen::Index rows = 600;  // 2400 B of float a column: a look-ahead of 13 columns
  CHECK(data::gather_lookahead(sizeof(float) * rows) == 13);
  CHECK(data::gather_lookahead(400) == 81);
  CHECK(data::gather_lookahead(1 << 20) == 1);
  const Eigen::MatrixXf src = Eigen::MatrixXf::Random(rows, 97);
  std::vector<std::size_t> idx;
  for (std::size_t k = 0; k < 60; ++k) idx.push_back((k * 41 + 7) % 97);
  for (const std::size_t first : {std::size_t{0}, std::size_t{5}}) {
    for (const Eigen::Index n : {Eigen::Index{1}, Eigen::Index{12}, Eigen::Index{13}, Eigen::Index{14}, Eigen::Index{55}}) {
      CAPTURE(first);
      CAPTURE(n);
      Eigen::MatrixXf out(rows, n);
      data::gather_columns(src, idx, first, out);
      Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(rows, n + 3);
      data::gather_columns(src, idx, first, wide.leftCols(n));  // a block, converted to double
      for (Eigen::Index k = 0; k < n; ++k) {
        const auto i = static_cast<Eigen::Index>(idx[first + static_cast<std::size_t>(k)]);
        CHECK(out.col(k) == src.col(i));
        CHECK(wide.col(k) == src.col(i).cast<double>());
      }
      CHECK(wide.rightCols(3).isZero(0));  // nothing written past the block
    }
  }
}
