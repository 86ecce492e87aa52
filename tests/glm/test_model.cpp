// The glm model (models/glm/model.hpp) under models::Minibatch: every family's exact gradient against
// central differences of its value, the batch path against the per-example one, the reported
// (constrained) parameters and names, and the errors of make_glm.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/minibatch.hpp>

#include "finite_difference.hpp"

namespace sgmcmc::test_glm {
namespace {

using namespace sgmcmc::models::glm;

/// N examples of K predictors (means 1.5 and −0.7, so that centring moves them) with responses drawn
/// from `family`'s kind: a fixed seed, the same data on every run.
GlmData small_data(std::string_view family, Eigen::Index N = 9, Eigen::Index K = 2, unsigned seed = 11) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::uniform_int_distribution<int> counts(0, 6);
  GlmData d;
  d.x.resize(K, N);
  for (Eigen::Index i = 0; i < N; ++i)
    for (Eigen::Index k = 0; k < K; ++k) d.x(k, i) = (k == 0 ? 1.5 : -0.7) + 0.8 * z(rng);
  d.y.resize(N);
  if (family == "binomial") d.trials.resize(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    if (family == "bernoulli") d.y[i] = i % 3 == 0 ? 1 : 0;
    else if (family == "binomial") d.trials[i] = 6, d.y[i] = counts(rng);
    else if (family == "poisson" || family == "negative_binomial") d.y[i] = counts(rng);
    else if (family == "gamma") d.y[i] = std::exp(0.5 * z(rng));
    else d.y[i] = 0.5 + z(rng);
  }
  for (Eigen::Index k = 0; k < K; ++k) d.predictors.push_back("x" + std::to_string(k + 1));
  return d;
}

/// A point inside every pair's support: for the identity and inverse mean links of the positive
/// families, η = α_c + bᵀ(x − x̄) must stay positive: a large intercept and small slopes.
Eigen::VectorXd test_point(const Glm& m) {
  Eigen::VectorXd t(m.dim());
  const std::string_view link = link_name(m.family), fam = family_name(m.family);
  const bool positive = (link == "identity" || link == "inverse") && fam != "gaussian" && fam != "student";
  t[0] = positive ? 2.5 : 0.3;
  for (Eigen::Index k = 0; k < m.predictors(); ++k) t[1 + k] = (positive ? 0.1 : 0.4) * (k % 2 == 0 ? 1 : -1);
  for (Eigen::Index a = 0; a < m.aux_size(); ++a) t[m.aux_offset() + a] = a == 0 ? -0.3 : 1.2;
  return t;
}

GlmPriors some_priors(const AnyFamily& f) {
  GlmPriors p;
  p.intercept = parse_prior("student_t(3, 0, 2.5)");
  p.b = {parse_prior("normal(0, 2)"), parse_prior("laplace(0.1, 1)")};
  if (aux_size(f) >= 1) p.aux.push_back(parse_prior("cauchy(0, 2.5)"));
  if (aux_size(f) >= 2) p.aux.push_back(parse_prior("gamma(2, 0.1)"));
  return p;
}

/// A (family, link) pair by brms's names. Members, not a structured binding: clang 14 cannot capture a
/// binding (doctest's CAPTURE is a lambda).
struct FamilyLink {
  const char* fam;
  const char* link;
};

const std::vector<FamilyLink> pairs = {
    {"bernoulli", "logit"}, {"bernoulli", "probit"}, {"bernoulli", "cloglog"}, {"binomial", "logit"}, {"binomial", "probit"},
    {"binomial", "cloglog"}, {"poisson", "log"}, {"poisson", "identity"}, {"poisson", "sqrt"}, {"negative_binomial", "log"},
    {"gaussian", "identity"}, {"gaussian", "log"}, {"student", "identity"}, {"gamma", "inverse"}, {"gamma", "log"}};

}  // namespace

// Would catch: the centred design's chain rule (the intercept's and slopes' gradient), the batch
// scale, the priors' or the Jacobians' sign, a family's gradient wired to the wrong block of θ.
TEST_CASE("glm model: the exact gradient matches central differences of U, for every family and link") {
  for (const FamilyLink& p : pairs) {
    CAPTURE(p.fam);
    CAPTURE(p.link);
    const AnyFamily f = make_family(p.fam, p.link);
    const auto potential = models::minibatch(make_glm(small_data(p.fam), f, some_priors(f)), 3, models::Sampling::with_replacement);
    const Eigen::VectorXd t = test_point(potential.model);
    check_gradient_by_differences(potential, t);
  }
}

// Would catch: the gathered batch path disagreeing with the per-example hooks (a column gathered
// from the wrong example, the aux sum scaled twice, a repeated index counted once), and the full-data
// pass disagreeing with the sum of the pointwise log-likelihoods (LOO would see another model).
// Tolerance: the same sums in another order, 1e-12 relative to the sum of absolute terms.
TEST_CASE("glm model: batch, per-example and full-data paths agree") {
  for (const FamilyLink& p : pairs) {
    CAPTURE(p.fam);
    CAPTURE(p.link);
    const AnyFamily f = make_family(p.fam, p.link);
    const Glm m = make_glm(small_data(p.fam), f, some_priors(f));
    const Eigen::VectorXd t = test_point(m);
    const std::vector<std::size_t> idx = {4, 0, 4, 8, 2};
    Eigen::VectorXd batch = Eigen::VectorXd::Zero(m.dim()), each = Eigen::VectorXd::Zero(m.dim()), size = Eigen::VectorXd::Zero(m.dim());
    m.add_batch_gradient(t, idx, batch, 1.7);
    for (std::size_t i : idx) {
      m.add_example_gradient(t, i, each, 1.7);
      Eigen::VectorXd one = Eigen::VectorXd::Zero(m.dim());
      m.add_example_gradient(t, i, one, 1.7);
      size += one.cwiseAbs();
    }
    CHECK(((batch - each).array().abs() <= 1e-12 * (1 + size.array())).all());
    Eigen::VectorXd full = Eigen::VectorXd::Zero(m.dim()), sum = Eigen::VectorXd::Zero(m.dim());
    m.add_likelihood_gradient(t, full);
    double pointwise = 0, absolute = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      m.add_example_gradient(t, i, sum, 1.0);
      pointwise += m.example_log_likelihood(t, i);
      absolute += std::abs(m.example_log_likelihood(t, i));
    }
    CHECK(((full - sum).array().abs() <= 1e-12 * (1 + full.array().abs() + sum.array().abs())).all());
    CHECK(std::abs(m.likelihood_value(t) + pointwise) <= 1e-12 * (1 + absolute));
    Eigen::VectorXd each_ll(static_cast<Eigen::Index>(m.size()));
    m.pointwise_log_likelihood(t, each_ll);
    for (std::size_t i = 0; i < m.size(); ++i) {
      const double li = m.example_log_likelihood(t, i);
      CHECK(std::abs(each_ll[static_cast<Eigen::Index>(i)] - li) <= 1e-13 * (1 + std::abs(li)));
    }
  }
}

// Would catch: b_Intercept reported on the centred design (off by bᵀx̄), the auxiliaries reported on
// the log scale, names out of brms's order.
TEST_CASE("glm model: reported parameters, their inverse, and brms's names") {
  const Glm m = make_glm(small_data("student"), make_family("student"), {});
  const Eigen::VectorXd t = test_point(m);
  const Eigen::VectorXd r = m.reported(t);
  CHECK(r[0] == doctest::Approx(t[0] - t[1] * m.design->means[0] - t[2] * m.design->means[1]).epsilon(1e-15));
  CHECK(r[1] == t[1]);
  CHECK(r[3] == doctest::Approx(std::exp(t[3])).epsilon(1e-15));
  CHECK(r[4] == doctest::Approx(std::exp(t[4])).epsilon(1e-15));
  CHECK((m.sampled(r) - t).cwiseAbs().maxCoeff() < 1e-14);
  CHECK(m.names() == std::vector<std::string>{"b_Intercept", "b_x1", "b_x2", "sigma", "nu"});
  CHECK(std::abs(m.design->means[0] - small_data("student").x.row(0).mean()) < 1e-15);
  CHECK(std::abs(m.design->x.row(0).mean()) < 1e-15);
  const Glm no_intercept = make_glm(small_data("poisson"), make_family("poisson"), {}, false);
  CHECK(no_intercept.dim() == 2);
  CHECK(no_intercept.names() == std::vector<std::string>{"b_x1", "b_x2"});
  CHECK(no_intercept.design->means.isZero());  // brms centres only a model with an intercept
}

namespace {
std::string model_error(auto&& make) {
  try {
    make();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Would catch: a model built on data its family cannot have, or a prior whose support excludes most of
// its parameter's line (the sampler would meet −∞ on half the space).
TEST_CASE("glm model: make_glm refuses what the model cannot be") {
  GlmData bad = small_data("bernoulli");
  bad.y[3] = 2;
  CHECK(model_error([&] { make_glm(bad, make_family("bernoulli")); }) == "glm: example 4: response 2 (trials 1) is not 0 or 1");
  CHECK(model_error([&] { make_glm(small_data("binomial"), make_family("poisson")); }) ==
        "glm: trials are for the binomial family only (family is poisson)");
  GlmData no_trials = small_data("binomial");
  no_trials.trials.resize(0);
  CHECK(model_error([&] { make_glm(no_trials, make_family("binomial")); }) == "glm: binomial needs trials for each of the 9 examples, got 0");
  GlmPriors p;
  p.b = {parse_prior("normal(0, 1)"), parse_prior("exponential(1)")};
  CHECK(model_error([&] { make_glm(small_data("gaussian"), make_family("gaussian"), p); }) ==
        "glm: prior exponential(1) on b_x2: its support is (0, inf) and a coefficient is unbounded");
  GlmPriors q;
  q.aux = {Flat{}, Flat{}};
  CHECK(model_error([&] { make_glm(small_data("gaussian"), make_family("gaussian"), q); }) ==
        "glm: 2 priors for the 1 auxiliary parameters of family gaussian");
  GlmData gamma = small_data("gamma");
  gamma.y[0] = 0;
  CHECK(model_error([&] { make_glm(gamma, make_family("gamma")); }) == "glm: example 1: response 0 (trials 1) is not a positive number");
}

}  // namespace sgmcmc::test_glm

namespace sgmcmc::test_glm {

// Would catch: a model without an intercept that still reads θ[0] as one (the slopes and the
// auxiliaries shifted by one), or centres its design.
TEST_CASE("glm model: without an intercept the gradient still matches central differences of U") {
  for (const FamilyLink& p : std::vector<FamilyLink>{{"gaussian", "log"}, {"bernoulli", "probit"},
                                                                                   {"student", "identity"}, {"negative_binomial", "log"}}) {
    CAPTURE(p.fam);
    const AnyFamily f = make_family(p.fam, p.link);
    GlmPriors priors = some_priors(f);
    const auto potential = models::minibatch(make_glm(small_data(p.fam), f, priors, false), 3, models::Sampling::with_replacement);
    REQUIRE(potential.model.dim() == 2 + static_cast<Eigen::Index>(aux_size(f)));
    CHECK(potential.model.design->means.isZero());
    Eigen::VectorXd t(potential.model.dim());
    t.head(2) << 0.3, -0.2;
    for (Eigen::Index a = 2; a < t.size(); ++a) t[a] = 0.2 * static_cast<double>(a);
    check_gradient_by_differences(potential, t);
  }
}

}  // namespace sgmcmc::test_glm

namespace sgmcmc::test_glm {

using namespace sgmcmc::models::glm;

// Would catch: a link's g not the inverse of its mean (the start's intercept off the data's mean), or
// probit's Newton iteration stopping early.
TEST_CASE("glm links: link(mean(eta)) is eta") {
  for (double eta : {-2.5, -0.3, 0.0, 0.7, 3.0}) {
    CAPTURE(eta);
    CHECK(Identity::link(Identity::mean(eta)) == doctest::Approx(eta).epsilon(1e-14));
    CHECK(Log::link(Log::mean(eta)) == doctest::Approx(eta).epsilon(1e-14));
    CHECK(Logit::link(Logit::mean(eta)) == doctest::Approx(eta).epsilon(1e-12));
    CHECK(Probit::link(Probit::mean(eta)) == doctest::Approx(eta).epsilon(1e-10));
    // At η = 3 cloglog's μ is 1 − 2·10⁻⁹: its double holds η to about 10⁻⁷ only (the representation,
    // not the link), so the round trip is checked where μ keeps η's digits.
    if (eta <= 1) CHECK(Cloglog::link(Cloglog::mean(eta)) == doctest::Approx(eta).epsilon(1e-10));
  }
  for (double eta : {0.2, 1.0, 4.0}) {  // sqrt and inverse: η > 0
    CHECK(Sqrt::link(Sqrt::mean(eta)) == doctest::Approx(eta).epsilon(1e-14));
    CHECK(Inverse::link(Inverse::mean(eta)) == doctest::Approx(eta).epsilon(1e-14));
  }
}

// Would catch: a start outside a pair's support (a non-finite U where the mode search begins), an
// intercept that is not g(ȳ), a σ that is not the sd of y, and a start the sampled point of which the
// model's own U cannot evaluate.
TEST_CASE("glm model: the start is the constant model's fit, inside every pair's support") {
  for (const FamilyLink& p : pairs) {
    CAPTURE(p.fam);
    CAPTURE(p.link);
    const AnyFamily f = make_family(p.fam, p.link);
    const Glm m = make_glm(small_data(p.fam, 40), f, some_priors(f));
    const Eigen::VectorXd s = m.start();
    REQUIRE(s.size() == m.dim());
    CHECK(s.allFinite());
    CHECK(s.segment(1, m.predictors()).isZero());
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m.dim());
    m.add_likelihood_gradient(s, g);
    CHECK(std::isfinite(m.likelihood_value(s)));
    CHECK(g.allFinite());
  }
  const GlmData d = small_data("gaussian", 40);
  const Glm g = make_glm(d, make_family("gaussian"), {});
  const double mean = d.y.mean(), sd = std::sqrt((d.y.array() - mean).square().sum() / 39);
  CHECK(g.start()[0] == doctest::Approx(mean).epsilon(1e-14));
  CHECK(std::exp(g.start()[3]) == doctest::Approx(sd).epsilon(1e-14));
  const Glm p = make_glm(small_data("poisson", 40), make_family("poisson"), {});
  CHECK(std::exp(p.start()[0]) == doctest::Approx(std::max(0.1, small_data("poisson", 40).y.mean())).epsilon(1e-14));
}

// Would catch: a shard centred by its own rows' means, a part's start computed from its rows alone,
// rows lost or repeated between the parts: the parts' likelihood sums must add up to the whole's.
TEST_CASE("glm model: rows_of's parts add up to the whole model, with its centring and start") {
  const AnyFamily f = make_family("student");
  const Glm whole = make_glm(small_data("student", 30), f, some_priors(f));
  const Glm a = rows_of(whole, 0, 13), b = rows_of(whole, 13, 17);
  CHECK(a.size() == 13);
  CHECK(b.size() == 17);
  CHECK(a.design->means == whole.design->means);
  CHECK(a.start() == whole.start());
  CHECK(b.start() == whole.start());
  const Eigen::VectorXd t = test_point(whole);
  Eigen::VectorXd gw = Eigen::VectorXd::Zero(whole.dim()), ga = gw, gb = gw;
  whole.add_likelihood_gradient(t, gw);
  a.add_likelihood_gradient(t, ga);
  b.add_likelihood_gradient(t, gb);
  CHECK(((ga + gb - gw).array().abs() <= 1e-12 * (1 + gw.array().abs())).all());
  CHECK(a.likelihood_value(t) + b.likelihood_value(t) == doctest::Approx(whole.likelihood_value(t)).epsilon(1e-13));
  CHECK_THROWS_AS(rows_of(whole, 20, 11), Error);
}

// Would catch: a non-positive σ reaching log() (a NaN start), and an error that does not say which.
TEST_CASE("glm model: sampled() refuses a reported point outside the domain, naming the parameter") {
  const Glm m = make_glm(small_data("student"), make_family("student"), {});
  Eigen::VectorXd r = m.reported(test_point(m));
  r[3] = -1;
  CHECK_THROWS_WITH_AS(m.sampled(r), "sigma (coordinate 3) is -1: expected a positive number", Error);
  r[3] = 1, r[4] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(m.sampled(r), "nu (coordinate 4) is inf: expected a positive number", Error);
}

}  // namespace sgmcmc::test_glm
