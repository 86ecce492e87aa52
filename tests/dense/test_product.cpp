// The dense products of modules/dense/product.hpp: every copy of the kernel this CPU runs gives the
// bits of the reference loop (so the same bits on every x86-64 machine, in both tiers) (each output one ascending chain of fused multiply-adds), for every
// operand layout the callers use and for shapes that cross every edge and block boundary.
// Catches: a dropped or doubled edge row or column, an inner block summed twice or skipped (overlapping
// row panels did exactly that in a prototype), a transposed operand packed in the wrong order, `+=`
// that overwrites, and any change of summation order (the data are chosen so that one changes bits:
// checked below, so the bitwise tests can fail).
#include <doctest/doctest.h>

#include <cstring>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/dense/product.hpp>

namespace dense = sgmcmc::dense;
using Eigen::Index;

// The concept: direct matrices (and their transposes and blocks) of float or double; never an
// expression that would have to be evaluated into a temporary, never another scalar type.
static_assert(dense::DirectMatrix<Eigen::MatrixXd> && dense::DirectMatrix<Eigen::MatrixXf>);
static_assert(dense::DirectMatrix<Eigen::Transpose<const Eigen::MatrixXf>>);
static_assert(dense::DirectMatrix<Eigen::Map<const Eigen::MatrixXd>>);
static_assert(dense::DirectMatrix<Eigen::Block<Eigen::MatrixXd>>);
static_assert(dense::DirectMatrix<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>);
static_assert(!dense::DirectMatrix<decltype(Eigen::MatrixXd() + Eigen::MatrixXd())>);
static_assert(!dense::DirectMatrix<decltype(Eigen::MatrixXd() * Eigen::MatrixXd())>);
static_assert(!dense::DirectMatrix<decltype(Eigen::MatrixXf().cast<double>())>);
static_assert(!dense::DirectMatrix<Eigen::MatrixXi>);
static_assert(!dense::DirectMatrix<double>);

namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// Entries over six decades with both signs: sums of them depend on their order.
template <class T>
Mat<T> spread(Index rows, Index cols, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), e(-3, 3);
  Mat<T> m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<T>(u(g) * std::pow(10.0, e(g)));
  return m;
}

template <class T>
bool same_bits(const Mat<T>& a, const Mat<T>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(T) * std::size_t(a.size())) == 0;
}

/// Every copy of the kernel this CPU runs, with its name: the dispatched copies and the generic one.
template <class F>
void for_each_copy(F&& f) {
  using sgmcmc::simd::Isa;
  for (const auto& [isa, name] : {std::pair{Isa::generic, "generic"}, std::pair{Isa::avx2, "avx2"}, std::pair{Isa::avx512, "avx512"}})
    if (dense::detail::copy_supported(isa)) f(isa, name);
}

struct Shape {
  Index m, n, k;
};
// Edges of every register block (MR = 4, 8, 16, 32; NR = 4, 6, 10), more than one row block (128),
// inner block (256) and column block (32·NR), full panels read through tile transposes (k ≥ 16), and
// an empty inner dimension. Small enough for the sanitizer build (the BNN's own 500×784×100 products
// are the same code paths, 40 times the work).
const Shape shapes[] = {{1, 1, 1}, {3, 2, 5}, {17, 11, 7}, {33, 21, 257}, {130, 7, 300}, {64, 333, 40},
                        {200, 65, 513}, {31, 19, 0}};

template <class T>
void check_layouts(const Shape& s, unsigned seed) {
  const Mat<T> a = spread<T>(s.m, s.k, seed), at = a.transpose(), b = spread<T>(s.k, s.n, seed + 1), bt = b.transpose();
  const Mat<T> c0 = spread<T>(s.m, s.n, seed + 2);
  Mat<T> big = spread<T>(s.m + 3, s.k + 2, seed + 3);
  big.block(1, 2, s.m, s.k) = a;
  for (bool accumulate : {true, false}) {
    Mat<T> want = c0;
    dense::multiply_add_reference(want, a, b, accumulate);
    for_each_copy([&](sgmcmc::simd::Isa isa, const char* name) {
      CAPTURE(name);
      CAPTURE(accumulate);
      Mat<T> got = c0;
      dense::detail::product_with(isa, got, a, b, accumulate);  // A, B column-major
      CHECK(same_bits(got, want));
      got = c0;
      dense::detail::product_with(isa, got, at.transpose(), b, accumulate);  // A a transpose: rows contiguous
      CHECK(same_bits(got, want));
      got = c0;
      dense::detail::product_with(isa, got, a, bt.transpose(), accumulate);  // B a transpose
      CHECK(same_bits(got, want));
      got = c0;
      dense::detail::product_with(isa, got, big.block(1, 2, s.m, s.k), b, accumulate);  // A a block (outer stride)
      CHECK(same_bits(got, want));
    });
    // The entry points: the widest copy this CPU runs.
    Mat<T> got = c0;
    if (accumulate) dense::multiply_add(got, at.transpose(), b);
    else dense::multiply(got, at.transpose(), b);
    CHECK(same_bits(got, want));
  }
}

}  // namespace

TEST_CASE("dense products: the copies this CPU runs (the others are not tested here)") {
  using sgmcmc::simd::Isa;
  CHECK(dense::detail::copy_supported(Isa::generic));
  for (const auto& [isa, name] : {std::pair{Isa::avx2, "avx2"}, std::pair{Isa::avx512, "avx512"}}) {
    const std::string line = std::string("the ") + name + " copy " +
                             (dense::detail::copy_supported(isa) ? "runs" : "does not run (not tested)") + " on this CPU";
    MESSAGE(line);
  }
}

TEST_CASE_TEMPLATE("dense products: every copy this CPU runs gives the reference loop's bits", T, float, double) {
  unsigned seed = 11;
  for (const Shape& s : shapes) {
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    check_layouts<T>(s, seed += 7);
  }
}

TEST_CASE_TEMPLATE("dense products: the test data are sensitive to the summation order", T, float, double) {
  // The same products summed from the last inner index down: if that gave the reference's bits, the
  // bitwise checks above could not see an order change.
  const Index m = 40, n = 12, k = 300;
  const Mat<T> a = spread<T>(m, k, 5), b = spread<T>(k, n, 6);
  Mat<T> forward = Mat<T>::Zero(m, n);
  dense::multiply_add_reference(forward, a, b);
  Mat<T> backward = Mat<T>::Zero(m, n);
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < m; ++i)
      for (Index p = k; p-- > 0;) backward(i, j) = std::fma(a(i, p), b(p, j), backward(i, j));
  Index differ = 0;
  for (Index i = 0; i < forward.size(); ++i) differ += forward.data()[i] != backward.data()[i];
  CHECK(differ > forward.size() / 2);
}

TEST_CASE("dense products: an empty inner dimension gives C (+=) or zeros (=)") {
  const Mat<double> a(4, 0), b(0, 3);
  Mat<double> c = Mat<double>::Constant(4, 3, 2.5);
  dense::multiply_add(c, a, b);
  CHECK(c == Mat<double>::Constant(4, 3, 2.5));
  dense::multiply(c, a, b);
  CHECK(c == Mat<double>::Zero(4, 3));
}
