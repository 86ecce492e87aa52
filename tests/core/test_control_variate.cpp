// The control-variate gradient (models/control_variate.hpp; Baker, Fearnhead, Fox & Nemeth 2019) on
// Bayesian logistic regression (the batch-product path) and on a model with only per-example gradients.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/modules/random/stream.hpp>

#include "../support/normal_means.hpp"

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

using Normals = testing::NormalMeans;  // per-example gradients only (no add_batch_gradient)

models::LogisticRegression logistic(std::size_t N) {
  auto syn = data::synthetic_logistic(N, 4, 11);
  return {std::make_shared<const data::Dataset<double>>(std::move(syn.data)), 1.0};
}

struct Moments {
  VectorXd mean, se;
};
template <class P>
Moments moments(const P& p, const VectorXd& x, int batches, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  VectorXd g(x.size()), sum = VectorXd::Zero(x.size()), sum2 = VectorXd::Zero(x.size());
  for (int b = 0; b < batches; ++b) {
    p.gradient(x, g, rng);
    sum += g, sum2 += g.cwiseProduct(g);
  }
  const VectorXd mean = sum / batches;
  const VectorXd var = (sum2 / batches - mean.cwiseProduct(mean)) * batches / (batches - 1.0);
  return {mean, (var / batches).cwiseMax(0.0).cwiseSqrt()};
}

}  // namespace

static_assert(Potential<models::ControlVariate<models::LogisticRegression>, VectorXd>);
static_assert(PotentialWithValue<models::ControlVariate<models::LogisticRegression>, VectorXd>);
static_assert(Potential<models::ControlVariate<Normals>, VectorXd>);
// SVRG's centre moves with the chain through the driver's hook; a control variate's does not.
static_assert(PotentialWithAfterStep<models::Svrg<models::LogisticRegression>, random::Stream>);
static_assert(!PotentialWithAfterStep<models::ControlVariate<models::LogisticRegression>, random::Stream>);
static_assert(PotentialWithValue<models::Svrg<models::LogisticRegression>, VectorXd>);

TEST_CASE("control variates: exact at the centre, unbiased away from it, and far less noisy near it") {
  const std::size_t N = 1000, n = 20;
  const models::LogisticRegression model = logistic(N);
  VectorXd centre(4);
  centre << 0.3, -0.5, 0.8, 0.1;
  for (auto sampling : {models::Sampling::without_replacement, models::Sampling::with_replacement}) {
    CAPTURE(static_cast<int>(sampling));
    const auto base = models::minibatch(model, n, sampling);
    const auto cv = models::ControlVariate<models::LogisticRegression>::at(base, centre);

    // At θ = θ̂ every batch's two terms cancel: the gradient is the full one, to rounding. Catches a
    // centre gradient that is stale, misses examples, or counts the prior twice.
    VectorXd exact(4), g(4);
    cv.exact_gradient(centre, exact);
    random::Stream rng(3, 0);
    for (int b = 0; b < 60; ++b) {
      cv.gradient(centre, g, rng);
      CHECK((g - exact).norm() <= 1e-10 * exact.norm());
    }

    // Away from θ̂ the average over many batches is ∇U(θ) within 4 standard errors per coordinate.
    // Catches a missing N/n on the difference (the mean would be off by (1 - n/N)·(∇L(θ) - ∇L(θ̂)),
    // checked below to exceed the tolerance, so the test has the power to see it) or a sign slip.
    VectorXd x = centre;
    x << 0.9, 0.2, 0.1, -0.4;
    cv.exact_gradient(x, exact);
    const Moments m = moments(cv, x, 20000, 5);
    VectorXd lik_x = VectorXd::Zero(4), lik_c = VectorXd::Zero(4);
    for (std::size_t i = 0; i < N; ++i) model.add_example_gradient(x, i, lik_x, 1.0), model.add_example_gradient(centre, i, lik_c, 1.0);
    const VectorXd missing_scale_bias = (1.0 - double(n) / double(N)) * (lik_x - lik_c).cwiseAbs();
    for (int k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(std::abs(m.mean[k] - exact[k]) <= 4 * m.se[k]);
    }
    CHECK((missing_scale_bias.array() > 4 * m.se.array()).any());

    // Near θ̂ the control variate's noise is a small fraction of the plain minibatch gradient's: its
    // variance grows like ‖θ - θ̂‖² (here 0.01 away, against the plain gradient's O(1) variance).
    const VectorXd near = centre + VectorXd::Constant(4, 0.01);
    const Moments plain = moments(base, near, 4000, 7), controlled = moments(cv, near, 4000, 7);
    CHECK((controlled.se.array() < 0.1 * plain.se.array()).all());
  }
}

namespace {
// Logistic regression with only the batched gradient: the control variate's two-gather path.
struct BatchOnlyLogistic {
  models::LogisticRegression m;
  std::size_t size() const { return m.size(); }
  void add_prior_gradient(const VectorXd& x, VectorXd& g) const { m.add_prior_gradient(x, g); }
  void add_example_gradient(const VectorXd& x, std::size_t i, VectorXd& g, double s) const { m.add_example_gradient(x, i, g, s); }
  void add_batch_gradient(const VectorXd& x, const std::vector<std::size_t>& idx, VectorXd& g, double s) const {
    m.add_batch_gradient(x, idx, g, s);
  }
};
}  // namespace
static_assert(models::BatchGeneralisedLinearModel<models::LogisticRegression>);
static_assert(models::RangeGeneralisedLinearModel<models::LogisticRegression>);
static_assert(models::BatchDataModel<BatchOnlyLogistic> && !models::GeneralisedLinearModel<BatchOnlyLogistic>);
static_assert(!models::BatchGeneralisedLinearModel<BatchOnlyLogistic> && !models::RangeGeneralisedLinearModel<BatchOnlyLogistic>);
static_assert(!models::BatchGeneralisedLinearModel<Normals> && !models::RangeGeneralisedLinearModel<Normals>);

TEST_CASE("control variates: the scalar centre (one gather a step) gives the two-gather path's gradients") {
  // A generalised linear model keeps ψ_i(θ̂) per example and corrects each batch with one gathered
  // product; a model with only the batched gradient evaluates ∇u_i at θ and θ̂ separately. Same batches
  // (same seed), same numbers to rounding. Catches a ψ table indexed by batch position instead of
  // example, a stale table after recentre, or the correction's sign.
  const std::size_t N = 3000, n = 50;
  const models::LogisticRegression model = logistic(N);
  for (auto sampling : {models::Sampling::without_replacement, models::Sampling::with_replacement}) {
    CAPTURE(static_cast<int>(sampling));
    VectorXd centre(4), x(4);
    centre << 0.3, -0.5, 0.8, 0.1;
    x << 0.9, 0.2, 0.1, -0.4;
    auto scalar = models::ControlVariate<models::LogisticRegression>::at(models::minibatch(model, n, sampling), centre);
    auto vector = models::ControlVariate<BatchOnlyLogistic>::at(models::Minibatch<BatchOnlyLogistic>{{model}, n, sampling, {}}, centre);
    static_assert(decltype(scalar)::scalar_centre && !decltype(vector)::scalar_centre);
    REQUIRE(scalar.centre_coefficients.size() == static_cast<Eigen::Index>(N));
    for (int pass = 0; pass < 2; ++pass) {
      random::Stream a(21, 2), b(21, 2);
      VectorXd ga(4), gb(4);
      for (int k = 0; k < 200; ++k) {
        scalar.gradient(x, ga, a);
        vector.gradient(x, gb, b);
        REQUIRE((ga - gb).norm() <= 1e-11 * (1 + gb.norm()));
      }
      scalar.recentre(x), vector.recentre(x);  // SVRG's refresh: the table must follow the centre
      x << -0.2, 0.4, 0.3, 0.6;
    }
  }
}

TEST_CASE("control variates: the per-example path matches the batch-product path's contract") {
  // A model without add_batch_gradient goes through the per-example loop; exact at the centre and
  // unbiased away from it (catches the loop taking the wrong scale or the centre's sign).
  Normals model{.y = {}, .prior_sd = 10.0};
  random::Stream data_rng(9, 0);
  for (int i = 0; i < 200; ++i) {
    VectorXd y(2);
    data_rng.normals(y);
    model.y.push_back(y + VectorXd::Constant(2, 1.5));
  }
  const auto base = models::Minibatch<Normals>{model, 10, models::Sampling::without_replacement, {}};
  const VectorXd centre = VectorXd::Constant(2, 1.4);
  const auto cv = models::ControlVariate<Normals>::at(base, centre);
  VectorXd exact(2), g(2);
  cv.exact_gradient(centre, exact);
  random::Stream rng(4, 0);
  cv.gradient(centre, g, rng);
  CHECK((g - exact).norm() <= 1e-10 * (1 + exact.norm()));
  // For this model ∇u_i(θ) − ∇u_i(θ̂) = θ − θ̂ for every i: the difference term is exact on every batch,
  // so the gradient is ∇U(θ) exactly whatever the batch.
  const VectorXd x = VectorXd::Constant(2, 0.2);
  cv.exact_gradient(x, exact);
  for (int b = 0; b < 30; ++b) {
    cv.gradient(x, g, rng);
    CHECK((g - exact).norm() <= 1e-10 * (1 + exact.norm()));
  }
}

TEST_CASE("the posterior mode by L-BFGS: the closed form on a conjugate model, a stationary point on logistic") {
  // Catches: the objective's gradient with the wrong sign or scale (L-BFGS's line search fails or stops
  // elsewhere), the mode of the likelihood alone (the prior dropped), a result returned unconverged.
  Normals model{.y = {}, .prior_sd = 10.0};
  random::Stream data_rng(9, 0);
  VectorXd sum = VectorXd::Zero(3);
  for (int i = 0; i < 300; ++i) {
    VectorXd y(3);
    data_rng.normals(y);
    model.y.push_back(y + VectorXd::LinSpaced(3, -1, 2));
    sum += model.y.back();
  }
  const auto pot = models::Minibatch<Normals>{model, 10, models::Sampling::without_replacement, {}};
  const optimize::Mode m = optimize::find_mode(pot, VectorXd::Zero(3));
  const VectorXd closed_form = sum / (300.0 + 1.0 / 100.0);  // (N + 1/τ²)⁻¹ Σ y_i
  CHECK((m.x - closed_form).norm() <= 1e-7);
  CHECK(m.evaluations > 0);
  VectorXd g0(3), gm(3);  // find_mode's promise: ‖∇U(θ̂)‖ ≤ slack · tolerance · max(1, ‖∇U(x0)‖)
  pot.exact_gradient(VectorXd::Zero(3), g0);
  pot.exact_gradient(m.x, gm);
  const optimize::ModeOptions defaults;
  CHECK(gm.norm() == doctest::Approx(m.gradient_norm));
  CHECK(m.gradient_norm <= defaults.slack * defaults.tolerance * std::max(1.0, g0.norm()));

  const models::LogisticRegression lr = logistic(2000);
  const auto lpot = models::minibatch(lr, 50, models::Sampling::without_replacement);
  const optimize::Mode lm = optimize::find_mode(lpot, VectorXd::Zero(4));
  VectorXd g(4);
  lpot.exact_gradient(lm.x, g);
  CHECK(g.norm() <= 1e-6);
  random::Stream rng(1, 0);
  for (int k = 0; k < 20; ++k) {  // U is convex: every nearby point is higher
    VectorXd d(4);
    rng.normals(d);
    CHECK(lpot.value(lm.x + 1e-3 * d) > lm.value);
  }

  // A potential with no minimum (U = -θ on the line, here: a prior gradient of the wrong sign) is an error.
  struct Unbounded {
    std::size_t size() const { return 1; }
    void add_prior_gradient(const VectorXd&, VectorXd& g) const { g.array() -= 1.0; }
    void add_example_gradient(const VectorXd&, std::size_t, VectorXd&, double) const {}
    double prior_value(const VectorXd& x) const { return -x.sum(); }
    double example_value(const VectorXd&, std::size_t) const { return 0; }
  };
  const auto bad = models::Minibatch<Unbounded>{{}, 1, models::Sampling::without_replacement, {}};
  CHECK_THROWS_WITH_AS(optimize::find_mode(bad, VectorXd::Zero(1), {.tolerance = 1e-8, .max_iterations = 50}),
                       doctest::Contains("finding the posterior mode (L-BFGS)"), Error);
}

TEST_CASE("SVRG: the centre is the first point, moves every m steps, and the gradient stays unbiased") {
  // Catches: a centre never refreshed (after a refresh at x the gradient there must be exact again),
  // a refresh on the wrong steps, a gradient biased by the moving centre.
  const models::LogisticRegression model = logistic(600);
  const auto base = models::minibatch(model, 30, models::Sampling::without_replacement);
  models::Svrg<models::LogisticRegression> svrg(base, 0);
  CHECK(svrg.period() == 20);  // an epoch: N/n
  VectorXd x = VectorXd::Constant(4, 0.2), g(4), exact(4);
  random::Stream rng(3, 0);
  svrg.gradient(x, g, rng);  // the first point becomes the centre: exact there
  svrg.exact_gradient(x, exact);
  CHECK((g - exact).norm() <= 1e-10 * exact.norm());
  CHECK(svrg.cv.centre == x);

  const VectorXd y = VectorXd::Constant(4, -0.3);
  for (std::uint64_t t = 1; t < 20; ++t) svrg.after_step(y, t, rng);
  CHECK(svrg.cv.centre == x);  // not before step m
  svrg.after_step(y, 20, rng);
  CHECK(svrg.cv.centre == y);
  svrg.gradient(y, g, rng);
  svrg.exact_gradient(y, exact);
  CHECK((g - exact).norm() <= 1e-10 * exact.norm());

  // Away from its centre, unbiased within 4 standard errors (as the control variate it is).
  const VectorXd z = VectorXd::Constant(4, 0.5);
  svrg.exact_gradient(z, exact);
  const Moments m = moments(svrg, z, 20000, 11);
  for (int k = 0; k < 4; ++k) CHECK(std::abs(m.mean[k] - exact[k]) <= 4 * m.se[k]);
}

namespace {

/// Logistic regression without the scalar hooks: SAGA keeps its d-vectors (the generic table).
struct PlainLogistic {
  models::LogisticRegression m;
  std::size_t size() const { return m.size(); }
  void add_prior_gradient(const VectorXd& x, VectorXd& g) const { m.add_prior_gradient(x, g); }
  void add_example_gradient(const VectorXd& x, std::size_t i, VectorXd& g, double s) const { m.add_example_gradient(x, i, g, s); }
};
static_assert(models::GeneralisedLinearModel<models::LogisticRegression> && !models::GeneralisedLinearModel<PlainLogistic>);
static_assert(models::Saga<models::LogisticRegression>::scalar_table && !models::Saga<PlainLogistic>::scalar_table);
static_assert(Potential<models::Saga<models::LogisticRegression>, VectorXd>);
static_assert(!PotentialWithAfterStep<models::Saga<models::LogisticRegression>, random::Stream>);  // its table moves inside gradient

/// Σ_i of SAGA's table, recomputed: A must stay the sum of the entries.
template <class M>
VectorXd table_sum(const models::Saga<M>& s, const M& model, Eigen::Index d) {
  VectorXd a = VectorXd::Zero(d);
  if constexpr (models::Saga<M>::scalar_table) {
    for (Eigen::Index i = 0; i < s.table.rows(); ++i) model.add_example_features(static_cast<std::size_t>(i), a, s.table(i, 0));
  } else {
    a = s.table.rowwise().sum();
  }
  return a;
}

}  // namespace

TEST_CASE("SAGA: exact where the table is fresh, unbiased with a stale table, and its sum kept") {
  const models::LogisticRegression model = logistic(600);
  const std::size_t n = 30;
  const auto sampling = models::Sampling::with_replacement;  // saga's only order (models/saga.hpp)
  models::Saga<models::LogisticRegression> saga(models::minibatch(model, n, sampling));
  VectorXd x = VectorXd::Constant(4, 0.2), g(4), exact(4);
  random::Stream rng(3, 0);
  // The first gradient fills the table at x: every entry fresh, so the estimate is the full gradient.
  // Catches a table filled somewhere else or an A that misses examples.
  saga.gradient(x, g, rng);
  saga.exact_gradient(x, exact);
  CHECK((g - exact).norm() <= 1e-10 * exact.norm());
  // Steps at moving points leave entries from many points; A stays their sum (catches an update that
  // forgets A, or that adds a repeated example of a with-replacement batch twice).
  random::Stream walk(8, 0);
  for (int t = 0; t < 25; ++t) {
    VectorXd step(4);
    walk.normals(step);
    x += 0.1 * step;
    saga.gradient(x, g, rng);
  }
  CHECK((saga.sum - table_sum(saga, model, 4)).norm() <= 1e-10 * (1 + saga.sum.norm()));

  // Unbiased at z for this stale table: the average over many independent batches (each from a copy
  // of the same table) is ∇U(z) within 4 standard errors. Catches a missing N/n on the difference,
  // which would be off by (1 − n/N)(∇L(z) − A) — checked to exceed the tolerance, so the test can see it.
  const VectorXd z = VectorXd::Constant(4, 0.5);
  saga.exact_gradient(z, exact);
  const int batches = 20000;
  VectorXd sum = VectorXd::Zero(4), sum2 = VectorXd::Zero(4);
  for (int b = 0; b < batches; ++b) {
    auto copy = saga;
    random::Stream r(1000 + static_cast<std::uint64_t>(b), 0);
    copy.gradient(z, g, r);
    sum += g, sum2 += g.cwiseProduct(g);
  }
  const VectorXd mean = sum / batches;
  const VectorXd se = ((sum2 / batches - mean.cwiseProduct(mean)) / (batches - 1.0)).cwiseMax(0.0).cwiseSqrt();
  VectorXd lik_z = VectorXd::Zero(4);
  for (std::size_t i = 0; i < 600; ++i) model.add_example_gradient(z, i, lik_z, 1.0);
  const VectorXd missing_scale_bias = (1.0 - double(n) / 600.0) * (lik_z - saga.sum).cwiseAbs();
  for (int k = 0; k < 4; ++k) {
    CAPTURE(k);
    CHECK(std::abs(mean[k] - exact[k]) <= 4 * se[k]);
  }
  CHECK((missing_scale_bias.array() > 4 * se.array()).any());
}

TEST_CASE("SAGA: batches drawn otherwise than with replacement are refused") {
  // Without replacement a batch walks a permutation: it holds the examples whose table entries are the
  // oldest, not examples independent of the table, and the estimate is biased (the chain runs cold:
  // tests/data/logistic_stat.cpp, docs/config.md); time-ordered batches are no better. Catches a
  // constructor that lets either through.
  const models::LogisticRegression model = logistic(60);
  for (auto sampling : {models::Sampling::without_replacement, models::Sampling::time_ordered}) {
    CAPTURE(static_cast<int>(sampling));
    CHECK_THROWS_WITH_AS(models::Saga<models::LogisticRegression>(models::minibatch(model, 10, sampling)),
                         doctest::Contains("saga: batches must be drawn with replacement"), Error);
  }
  CHECK_NOTHROW(models::Saga<models::LogisticRegression>(models::minibatch(model, 10, models::Sampling::with_replacement)));
}

TEST_CASE("SAGA: one number per example for a generalised linear model, the same gradients as the d-vector table") {
  // The scalar table is the fast path for models that offer it; the generic d-vector table is the plain
  // one. Same batches, same points: the same gradients up to rounding (the sums associate differently:
  // (ψ − a)·x against ψx − ax). Catches a scalar path that scales, signs or updates an entry otherwise.
  const models::LogisticRegression model = logistic(300);
  const auto sampling = models::Sampling::with_replacement;  // saga's only order (models/saga.hpp)
  models::Saga<models::LogisticRegression> scalar(models::minibatch(model, 20, sampling));
  models::Saga<PlainLogistic> dense(models::Minibatch<PlainLogistic>{PlainLogistic{model}, 20, sampling, {}});
  random::Stream a(5, 2), b(5, 2), walk(6, 0);
  VectorXd x = VectorXd::Zero(4), ga(4), gb(4), step(4);
  double worst = 0;
  for (int t = 0; t < 200; ++t) {
    scalar.gradient(x, ga, a);
    dense.gradient(x, gb, b);
    worst = std::max(worst, (ga - gb).norm() / (1 + gb.norm()));
    walk.normals(step);
    x += 0.05 * step;
  }
  CHECK(worst <= 1e-12);
  CHECK(scalar.table.size() == 300);
  CHECK(dense.table.size() == 300 * 4);
}
