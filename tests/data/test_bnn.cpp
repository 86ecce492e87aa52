// The Bayesian neural net (models/bnn.hpp): hand-written backprop against finite differences.
#include <doctest/doctest.h>

#include <memory>

#include <sgmcmc/models/bnn.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {
// n examples of `rows` uniform features in [-1, 1] with labels i mod classes.
std::shared_ptr<const data::Dataset<float>> labelled_noise(Eigen::Index rows, int n, int classes) {
  data::Dataset<float> d;
  d.x = Eigen::MatrixXf::Random(rows, n);
  d.y.resize(n);
  for (int i = 0; i < n; ++i) d.y[i] = i % classes;
  return std::make_shared<const data::Dataset<float>>(std::move(d));
}
}  // namespace

TEST_CASE("BNN: the batch gradient (backprop) is the derivative of the value") {
  // Catches: a transposed weight matrix, a missing σ' factor, softmax minus the wrong one-hot row.
  models::Bnn m;
  m.data = labelled_noise(5, 12, 3);
  m.hidden = 4, m.classes = 3;
  m.precisions = std::make_shared<models::BnnPrecisions>(models::BnnPrecisions{0.7, 1.3});
  const auto pot = models::minibatch(m, 4, models::Sampling::without_replacement);
  random::Stream rng(3, 0);
  const VectorXd x = m.initial_point(rng, 0.8);
  VectorXd g(m.dim());
  pot.exact_gradient(x, g);
  VectorXd gb = VectorXd::Zero(m.dim());
  std::vector<std::size_t> all(12);
  for (std::size_t i = 0; i < 12; ++i) all[i] = i;
  m.add_prior_gradient(x, gb);
  m.add_batch_gradient(x, all, gb, 1.0);
  CHECK((g - gb).norm() < 1e-10 * g.norm());
  for (Eigen::Index k = 0; k < m.dim(); ++k) {
    VectorXd a = x, b = x;
    a[k] += 1e-6, b[k] -= 1e-6;
    CHECK(g[k] == doctest::Approx((pot.value(a) - pot.value(b)) / 2e-6).epsilon(1e-5));
  }
}

TEST_CASE("BNN: the threaded batch gradient does not depend on the number of threads") {
  // Catches: parts summed in thread-completion order (bits would change with `threads`), parts that
  // overlap or miss examples at the cut points (the sum would differ from the one-part gradient),
  // a data race on shared scratch (differences between repeated runs).
  models::Bnn m;
  m.data = labelled_noise(7, 101, 4);
  m.hidden = 6, m.classes = 4;
  random::Stream rng(5, 0);
  const VectorXd x = m.initial_point(rng, 0.5);
  std::vector<std::size_t> idx(101);
  for (std::size_t i = 0; i < 101; ++i) idx[i] = (i * 37) % 101;
  auto grad = [&](int chunks, int threads) {
    models::Bnn c = m;
    c.chunks = chunks, c.threads = threads;
    VectorXd g = VectorXd::Zero(m.dim());
    c.add_batch_gradient(x, idx, g, 2.5);
    c.add_batch_gradient(x, idx, g, 2.5);  // again on the reused scratch
    return g;
  };
  const VectorXd one = grad(1, 1), t1 = grad(3, 1), t2 = grad(3, 2), t3 = grad(3, 3);
  CHECK((t1 - one).norm() <= 1e-12 * one.norm());
  CHECK(t1 == t2);
  CHECK(t1 == t3);
}

TEST_CASE("BNN in float32: the gradient is the double one to float rounding, and independent of threads") {
  // Catches: a float path that drops the N/n scale or the prior, misplaces a block of θ when rounding
  // it to float (every coordinate is compared), sums its parts in thread order, or accumulates the
  // batch in double on one path and float on another (the relative error would be 1e-16 or 1e-1, not
  // the 1e-7 to 1e-5 of float sums over 60 examples).
  models::Bnn m;
  m.data = labelled_noise(9, 60, 3);
  m.hidden = 7, m.classes = 3;
  models::BnnFloat f;
  f.data = m.data, f.hidden = m.hidden, f.classes = m.classes;
  random::Stream rng(8, 0);
  const VectorXd x = m.initial_point(rng, 0.7);
  std::vector<std::size_t> idx(60);
  for (std::size_t i = 0; i < 60; ++i) idx[i] = (i * 7) % 60;
  VectorXd gd = VectorXd::Zero(m.dim()), gf = VectorXd::Zero(m.dim());
  m.add_prior_gradient(x, gd), m.add_batch_gradient(x, idx, gd, 3.0);
  f.add_prior_gradient(x, gf), f.add_batch_gradient(x, idx, gf, 3.0);
  const double rel = (gf - gd).cwiseAbs().maxCoeff() / gd.cwiseAbs().maxCoeff();
  MESSAGE("float32 gradient: max |g32 - g64| / max |g64| = ", rel);
  CHECK(rel < 1e-5);
  CHECK(rel > 0);  // it did run in float
  CHECK(f.example_value(x, 4) == doctest::Approx(m.example_value(x, 4)).epsilon(1e-5));
  auto grad = [&](int chunks, int threads) {
    models::BnnFloat c = f;
    c.chunks = chunks, c.threads = threads;
    VectorXd g = VectorXd::Zero(f.dim());
    c.add_batch_gradient(x, idx, g, 3.0);
    c.add_batch_gradient(x, idx, g, 3.0);
    return g;
  };
  const VectorXd t1 = grad(3, 1), t2 = grad(3, 2), t3 = grad(3, 3);
  CHECK(t1 == t2);
  CHECK(t1 == t3);
}
