// Logistic regression's batched minibatch gradient (models::LogisticRegression::add_batch_gradient,
// the path models::Minibatch::gradient takes) against the per-example sum it replaces.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include <sgmcmc/models/data/dataset.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

// N random examples in d dimensions and a θ with margins θᵀx_i of order 10; examples 0 and 1 are then
// moved to the margins +800 and −800 exactly along θ (there e^{−z} or e^{z} overflows to inf), example 2
// to +40 (σ rounds to 1). Labels 0/1 at random.
struct Problem {
  models::LogisticRegression model;
  VectorXd theta;
};
Problem problem(std::size_t N, Eigen::Index d, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  data::Dataset<double> ds;
  ds.x.resize(d, static_cast<Eigen::Index>(N));
  VectorXd col(d);
  for (Eigen::Index i = 0; i < ds.x.cols(); ++i) {
    rng.normals(col);
    ds.x.col(i) = col;
  }
  ds.y.resize(static_cast<Eigen::Index>(N));
  for (Eigen::Index i = 0; i < ds.y.size(); ++i) ds.y[i] = rng.uniform() < 0.5 ? 1 : 0;
  VectorXd theta(d);
  rng.normals(theta);
  theta *= 10.0 / std::sqrt(static_cast<double>(d));
  const VectorXd along = theta / theta.squaredNorm();
  ds.x.col(0) = 800.0 * along;
  ds.x.col(1) = -800.0 * along;
  ds.x.col(2) = 40.0 * along;
  ds.source = "test_logistic_batch";
  ds.validate();
  return {models::LogisticRegression{std::make_shared<const data::Dataset<double>>(std::move(ds)), 1.0}, theta};
}

// g0 + scale · Σ_{i ∈ idx} ∇ℓ_i by the per-example path, the reference.
VectorXd per_example(const models::LogisticRegression& m, const VectorXd& theta, const std::vector<std::size_t>& idx,
                     const VectorXd& g0, double scale) {
  VectorXd g = g0;
  for (std::size_t i : idx) m.add_example_gradient(theta, i, g, scale);
  return g;
}

}  // namespace

TEST_CASE("logistic regression: add_batch_gradient equals the per-example sum") {
  // Catches: a missing or doubled scale (scale = 3.7, not 1), a wrong sign of y (σ + y or y − σ), a
  // transposed product (X_b r vs X_bᵀ..., caught by the square batch n = d, where the shapes still
  // fit), gathering the wrong columns or labels, a repeated index counted once, g overwritten instead
  // of added to, a sigmoid written e^z / (1 + e^z) (inf / inf = NaN at z = 800), and scratch left over
  // from a larger batch.
  const auto [model, theta] = problem(40, 7, 3);
  const double scale = 3.7;
  random::Stream rng(5, 0);
  VectorXd g0(7);
  rng.normals(g0);
  const std::vector<std::vector<std::size_t>> batches = {
      {0, 1, 2, 5, 9, 11, 17, 23, 30, 31, 38, 39, 4},   // n = 13 > d, with both ±800 margins and +40
      {3, 1, 20, 8, 0, 36, 12},                          // n = 7 = d: a transposed product would still fit
      {6, 6, 1, 6, 14, 1, 27, 27, 0, 33, 6},             // repeated indices, as with-replacement batches have
      {25},                                              // n = 1
  };
  std::vector<VectorXd> first;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass reuses scratch sized by the earlier batches
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const VectorXd ref = per_example(model, theta, batches[b], g0, scale);
      VectorXd g = g0;
      model.add_batch_gradient(theta, batches[b], g, scale);
      CAPTURE(b);
      REQUIRE(g.allFinite());
      CHECK((g - ref).norm() <= 1e-12 * (ref - g0).norm());
      if (pass == 0) first.push_back(g);
      else CHECK(g == first[b]);  // deterministic: the same bits every time
    }
  }
}

TEST_CASE("logistic regression: Minibatch::gradient takes the batched path and stays the Eq. 3 estimate") {
  // Catches: the hook not picked up or picked up with the wrong scale N/n, the prior counted in the
  // batch term, with-replacement batches losing their repeats.
  static_assert(models::BatchDataModel<models::LogisticRegression>);
  const auto [model, theta] = problem(20, 5, 8);
  for (auto sampling : {models::Sampling::with_replacement, models::Sampling::without_replacement}) {
    const auto pot = data::minibatch(model, 15, sampling);
    random::Stream rng(13, 2);
    VectorXd g(5);
    for (std::uint64_t b = 0; b < 4; ++b) {
      pot.gradient(theta, g, rng);
      std::vector<std::size_t> idx;
      models::batch_indices(b, 15, 20, sampling, 13, 2, idx);
      if (sampling == models::Sampling::with_replacement && b == 0)  // 15 of 20 with replacement: repeats
        REQUIRE(std::set<std::size_t>(idx.begin(), idx.end()).size() < idx.size());
      VectorXd prior = VectorXd::Zero(5);
      model.add_prior_gradient(theta, prior);
      const VectorXd ref = per_example(model, theta, idx, prior, 20.0 / 15.0);
      CHECK((g - ref).norm() <= 1e-12 * ref.norm());
    }
  }
}
