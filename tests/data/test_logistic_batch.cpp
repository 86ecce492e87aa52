// Logistic regression's batched minibatch gradient (models::LogisticRegression::add_batch_gradient,
// the path models::Minibatch::gradient takes) against the per-example sum it replaces.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/data/dataset.hpp>
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

static_assert(PotentialWithValueAndGradient<models::Minibatch<models::LogisticRegression>>);

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
    const auto pot = models::minibatch(model, 15, sampling);
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

TEST_CASE("logistic regression: the full-data passes over blocks equal the per-example sums") {
  // Minibatch::exact_gradient and value take the block path (RangeGeneralisedLinearModel: ψ over 1024
  // examples at a time, two matrix–vector products) — the mode search's, HMC's and the control
  // variate's centre passes. Against the per-example loop they replace, on N = 2500 (two full blocks and
  // a partial one) with the ±800 and +40 margins. Catches: a block's offset into the data or labels, the
  // partial last block dropped or overrun, softplus overflowing at z = ±800 (inf or NaN), a lost sign of y.
  const auto [model, theta] = problem(2500, 7, 8);
  const auto base = models::minibatch(model, 10, models::Sampling::without_replacement);
  VectorXd g(7), want = VectorXd::Zero(7);
  model.add_prior_gradient(theta, want);
  double u = model.prior_value(theta);
  for (std::size_t i = 0; i < model.size(); ++i) model.add_example_gradient(theta, i, want, 1.0), u += model.example_value(theta, i);
  base.exact_gradient(theta, g);
  CHECK((g - want).norm() <= 1e-12 * want.norm());
  const double got = base.value(theta);
  REQUIRE(std::isfinite(got));
  CHECK(std::abs(got - u) <= 1e-12 * std::abs(u));
  // The mode search's one-pass evaluation: the same U and ∇U (catches ψ left stale in the value's
  // scratch, or the prior counted in one of the two and not the other).
  VectorXd g1(7);
  const double u1 = base.value_and_gradient(theta, g1);
  CHECK(std::abs(u1 - u) <= 1e-12 * std::abs(u));
  CHECK((g1 - want).norm() <= 1e-12 * want.norm());
  // The coefficients themselves, one block at an offset.
  VectorXd psi(300);
  model.range_coefficients(theta, 1000, psi);
  for (Eigen::Index k = 0; k < psi.size(); ++k) CHECK(std::abs(psi[k] - model.example_coefficient(theta, 1000 + static_cast<std::size_t>(k))) <= 1e-15);
}

TEST_CASE("logistic regression: add_batch_gradient_relative subtracts each example's reference coefficient") {
  // g += scale · Σ_k (ψ_{i_k}(θ) − c_k) x_{i_k}, against the per-example form, and c_k ← ψ_{i_k}(θ).
  // Catches c indexed by example instead of batch position, the reference's sign, scale applied to one
  // term only, stale entries handed back to SAGA.
  const auto [model, theta] = problem(40, 7, 4);
  const std::vector<std::size_t> idx = {0, 1, 2, 9, 9, 33, 17};
  random::Stream rng(6, 0);
  VectorXd c(static_cast<Eigen::Index>(idx.size())), g0(7);
  rng.normals(c), rng.normals(g0);
  VectorXd want = g0, g = g0;
  for (std::size_t k = 0; k < idx.size(); ++k)
    model.add_example_features(idx[k], want, 2.5 * (model.example_coefficient(theta, idx[k]) - c[static_cast<Eigen::Index>(k)]));
  model.add_batch_gradient_relative(theta, idx, c, g, 2.5);
  CHECK((g - want).norm() <= 1e-12 * (1 + want.norm()));
  // c now holds the fresh coefficients (SAGA's new table entries).
  for (std::size_t k = 0; k < idx.size(); ++k) CHECK(std::abs(c[static_cast<Eigen::Index>(k)] - model.example_coefficient(theta, idx[k])) <= 1e-15);
}
