// The minibatch base: unbiased gradients, epochs without replacement, uniform draws with replacement,
// resumable batch streams, and the keyed permutation behind them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <vector>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/vmf_mixture_posterior.hpp>
#include <sgmcmc/modules/random/permutation.hpp>

#include "../support/normal_means.hpp"

using namespace sgmcmc;
using Eigen::VectorXd;

// -log p(x_i | θ) = ½(θ - y_i)², prior θ ~ N(0, 1): gradient θ + Σ(θ - y_i).
using Normals = testing::NormalMeans;
static_assert(models::DataModel<Normals>);

TEST_CASE("the keyed permutation is a bijection for every size, and differs between epochs") {
  // Catches: cycle-walking that leaves the range, collisions (examples seen twice per epoch).
  for (std::uint64_t n : {1u, 2u, 3u, 7u, 64u, 100u, 1000u, 4097u}) {
    random::Permutation p(n, 7, 0, 0);
    std::vector<std::uint64_t> img(n);
    for (std::uint64_t i = 0; i < n; ++i) img[i] = p(i);
    std::sort(img.begin(), img.end());
    for (std::uint64_t i = 0; i < n; ++i) CHECK(img[i] == i);
  }
  random::Permutation a(1000, 7, 0, 0), b(1000, 7, 0, 1), c(1000, 7, 1, 0);
  int same_ab = 0, same_ac = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) same_ab += a(i) == b(i), same_ac += a(i) == c(i);
  CHECK(same_ab < 10);  // a random pair of permutations has ~1 fixed coincidence on average
  CHECK(same_ac < 10);
}

TEST_CASE("the permutation's batch path gives operator()'s images, and batches spanning two epochs are walked right") {
  // Catches: a batch path that drops an index still walking (cycle-walking past the chunk), writes an
  // image to the wrong slot, or reads a batch's second epoch from the first's permutation. The plain
  // path here is the definition: position p of the concatenated epochs is Permutation(N, epoch p/N)(p % N).
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 17u, 100u, 1000u, 4097u, 100000u}) {
    const random::Permutation p(n, 11, 3, 2);
    std::vector<std::uint64_t> xs;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(n, 700); ++i) xs.push_back((i * 7919) % n);  // > 5 chunks
    std::vector<std::uint64_t> batch = xs;
    p.apply(std::span<std::uint64_t>(batch));
    for (std::size_t k = 0; k < xs.size(); ++k) REQUIRE(batch[k] == p(xs[k]));
  }
  for (auto [N, n] : {std::pair<std::size_t, std::size_t>{10, 3}, {10, 10}, {1000, 300}, {100000, 100}, {7, 1}}) {
    std::vector<std::size_t> got;
    for (std::uint64_t b : {0u, 1u, 2u, 3u, 17u, 1001u}) {
      models::batch_indices(b, n, N, models::Sampling::without_replacement, 5, 1, got);
      REQUIRE(got.size() == n);
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t pos = b * n + j;
        REQUIRE(got[j] == random::Permutation(N, 5, 1, pos / N)(pos % N));
      }
    }
  }
}

TEST_CASE("without replacement every example appears once per epoch; with replacement draws are uniform") {
  // Catches: batches that repeat examples within an epoch, or skew the with-replacement draw.
  const std::size_t N = 103, n = 10;
  std::vector<int> seen(N, 0);
  std::vector<std::size_t> idx;
  for (std::uint64_t b = 0; b < 103; ++b) {  // 103 batches of 10 = exactly 10 epochs
    models::batch_indices(b, n, N, models::Sampling::without_replacement, 3, 0, idx);
    for (std::size_t i : idx) ++seen[i];
  }
  for (int c : seen) CHECK(c == 10);
  std::vector<double> counts(7, 0.0);
  const int draws = 70000;
  for (std::uint64_t b = 0; b < draws / 10; ++b) {
    models::batch_indices(b, 10, 7, models::Sampling::with_replacement, 3, 0, idx);
    for (std::size_t i : idx) counts[i] += 1;
  }
  double chi2 = 0;
  for (double c : counts) chi2 += (c - draws / 7.0) * (c - draws / 7.0) / (draws / 7.0);
  CHECK(chi2 < 22.46);  // χ²₆ at p = 0.001
}

TEST_CASE("the minibatch gradient is unbiased: its average over many batches is the full gradient") {
  // Catches: a wrong N/n scale, a prior counted per example, a batch that skips examples.
  Normals model;
  for (int i = 0; i < 50; ++i) model.add(std::sin(i * 0.7) * 3.0);
  for (auto sampling : {models::Sampling::with_replacement, models::Sampling::without_replacement}) {
    const models::Minibatch<Normals> pot{model, 7, sampling, {}};
    const VectorXd x = VectorXd::Constant(1, 0.3);
    VectorXd full(1), g(1);
    pot.exact_gradient(x, full);
    random::Stream rng(5, 0);
    const int batches = 50 * 7 * 20;  // a whole number of epochs: without replacement the mean is exact
    std::vector<double> gs;
    for (int b = 0; b < batches; ++b) {
      pot.gradient(x, g, rng);
      gs.push_back(g[0]);
    }
    const double mean = std::accumulate(gs.begin(), gs.end(), 0.0) / batches;
    double var = 0;
    for (double v : gs) var += (v - mean) * (v - mean) / (batches - 1);
    if (sampling == models::Sampling::without_replacement) CHECK(mean == doctest::Approx(full[0]).epsilon(1e-12));
    else CHECK(std::abs(mean - full[0]) < 4.5 * std::sqrt(var / batches));
  }
}

TEST_CASE("a resumed stream draws the same batches") {
  // Catches: batch positions kept outside the serialized stream state.
  Normals model;
  for (int i = 0; i < 30; ++i) model.add(i);
  const models::Minibatch<Normals> pot{model, 4, models::Sampling::without_replacement, {}};
  random::Stream rng(9, 2);
  VectorXd x = VectorXd::Zero(1), g(1), h(1);
  for (int b = 0; b < 11; ++b) pot.gradient(x, g, rng);
  random::Stream resumed(rng.state());
  for (int b = 0; b < 20; ++b) {
    pot.gradient(x, g, rng);
    pot.gradient(x, h, resumed);
    CHECK(g[0] == h[0]);
  }
}

TEST_CASE("the S¹×S¹ mixture posterior: gradient is the derivative of the value") {
  // Catches: a sign or responsibility slip in the per-example gradient.
  const auto m = models::VmfMixturePosterior::generate(100, -M_PI / 24, M_PI / 8, 20.0, 0);
  const models::Minibatch<models::VmfMixturePosterior> pot{m, 10, models::Sampling::without_replacement, {}};
  VectorXd x(4);
  x << std::cos(0.3), std::sin(0.3), std::cos(-0.2), std::sin(-0.2);
  VectorXd g(4);
  pot.exact_gradient(x, g);
  for (int k = 0; k < 4; ++k) {
    VectorXd a = x, b = x;
    a[k] += 1e-6, b[k] -= 1e-6;
    CHECK(g[k] == doctest::Approx((pot.value(a) - pot.value(b)) / 2e-6).epsilon(1e-6));
  }
  // The data really come from the two components: their mean angle lies between v₁ and v₂.
  const double mean_angle = std::atan2(m.data.row(1).mean(), m.data.row(0).mean());
  CHECK(mean_angle > -M_PI / 24);
  CHECK(mean_angle < M_PI / 8);
}

TEST_CASE("the empirical-Fisher variance estimates the minibatch gradient's variance") {
  // Catches: a wrong N²/n scale, a variance of the wrong quantity. Reference: the empirical variance of
  // many minibatch gradients drawn with replacement.
  Normals model;
  for (int i = 0; i < 40; ++i) model.add(std::cos(i * 1.3) * 2.0 + 0.1 * i);
  const models::Minibatch<Normals> pot{model, 8, models::Sampling::with_replacement, {}};
  const VectorXd x = VectorXd::Constant(1, 0.5);
  random::Stream rng(2, 0), rng2(2, 0);
  VectorXd g(1), var(1), g2(1);
  const int batches = 20000;
  double sum = 0, sum2 = 0, vhat = 0;
  for (int b = 0; b < batches; ++b) {
    pot.gradient_and_variance(x, g, var, rng);
    pot.gradient(x, g2, rng2);
    CHECK(g[0] == doctest::Approx(g2[0]).epsilon(1e-12));  // the same batch, the same gradient
    sum += g[0], sum2 += g[0] * g[0], vhat += var[0];
  }
  const double empirical = sum2 / batches - (sum / batches) * (sum / batches);
  // E[V̂] equals the true variance (s² is unbiased for the population variance with replacement);
  // 20000 batches pin both to about 1%.
  CHECK(vhat / batches == doctest::Approx(empirical).epsilon(0.05));
}

TEST_CASE("the empirical-Fisher estimate is refused for batches that are not independent") {
  // Without replacement (or time-ordered) the batch errors of an epoch sum to zero, so subtracting one
  // batch's variance from the injected noise over-corrects (docs/samplers.md). Catches: the estimate
  // silently served for such batches, where SGHMC's sds came out 10-20 % low.
  Normals model;
  for (int i = 0; i < 40; ++i) model.add(0.1 * i);
  for (auto sampling : {models::Sampling::without_replacement, models::Sampling::time_ordered}) {
    const models::Minibatch<Normals> pot{model, 8, sampling, {}};
    random::Stream rng(2, 0);
    VectorXd g(1), var(1);
    CHECK_THROWS_WITH_AS(pot.gradient_and_variance(VectorXd::Constant(1, 0.5), g, var, rng),
                         doctest::Contains("only sampling with replacement"), Error);
  }
}
