// Automatic differentiation for a user's model (models/autodiff/): the concepts accept what a user
// writes and reject near misses; the gradients equal the hand-written ones (models/logistic.hpp,
// models/bnn.hpp) to rounding and central finite differences to their truncation error; the per-example,
// batch and full-data paths agree; every gradient estimator runs on the models.
//
// Tolerances. Two exact computations of the same sum in different orders differ by a few ulps per term:
// relative 1e-12 of the gradient's norm (at most 1.4e-15 seen here). A central difference
// with step h has truncation error h²·|f‴|/6 and rounding error ε·|f|/h; with h = 1e-5 and |f|, |f‴| of
// order N (a sum over N ≤ 200 examples of order-one terms) both are below 1e-6·N, so the checks allow a
// relative 1e-6 of the gradient's norm (4e-10 seen; a wrong derivative, a missing factor or a dropped
// term is off by order one).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/autodiff/example_model.hpp>
#include <sgmcmc/models/autodiff/linear_predictor.hpp>
#include <sgmcmc/models/autodiff/two_layer_net.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/random/stream.hpp>

using namespace sgmcmc;
namespace ad = sgmcmc::models::autodiff;
using Eigen::VectorXd;

namespace {

// ---- what a user writes -------------------------------------------------------------------------------

/// Logistic regression as a likelihood of η with a N(0, σ²) prior per coefficient.
struct Logistic {
  std::shared_ptr<const VectorXd> y;
  double prior_sd = 1.0;
  template <class T> T log_likelihood(std::size_t i, const T& eta) const { return (*y)[static_cast<Eigen::Index>(i)] * eta - ad::softplus(eta); }
  template <class T> T log_prior(std::size_t, const T& b) const { return -0.5 * b * b / (prior_sd * prior_sd); }
};

/// A zero-inflated Poisson: y = 0 with probability π = σ(φ), else Poisson(e^η); one global parameter φ.
struct ZeroInflatedPoisson {
  static constexpr int globals = 1;
  std::shared_ptr<const VectorXd> y;
  template <class T> T log_likelihood(std::size_t i, const T& eta, const std::array<T, 1>& phi) const {
    using std::exp, std::lgamma;
    const double yi = (*y)[static_cast<Eigen::Index>(i)];
    const T log_pi = ad::log_sigmoid(phi[0]), log_not_pi = ad::log_sigmoid(-phi[0]);
    if (yi == 0) return ad::log_sum_exp(log_pi, log_not_pi - exp(eta));
    return log_not_pi + yi * eta - exp(eta) - lgamma(yi + 1);
  }
  template <class T> T log_prior(std::size_t k, const T& t) const { return k == 3 ? -0.5 * t * t : -0.125 * t * t; }
};

/// Logistic regression as a function of all of θ, with a prior whose coordinates share a scale:
/// θ_0 is the log prior sd of θ_1..θ_{d−1} (a VectorPrior), θ_0 ~ N(0, 1).
struct LogisticOfTheta {
  std::shared_ptr<const data::Dataset<double>> data;
  std::size_t size() const { return data->size(); }
  template <class T> T log_likelihood(std::size_t i, const ad::Vector<T>& th) const {
    const auto col = static_cast<Eigen::Index>(i);
    T eta = th[1] * data->x(0, col);
    for (Eigen::Index k = 1; k < data->dim(); ++k) eta += th[k + 1] * data->x(k, col);
    return data->y[col] * eta - ad::softplus(eta);
  }
  template <class T> T log_prior(const ad::Vector<T>& th) const {
    using std::exp;
    const T precision = exp(-2.0 * th[0]);
    T lp = -0.5 * th[0] * th[0];
    for (Eigen::Index k = 1; k < th.size(); ++k) lp += -0.5 * precision * th[k] * th[k] - th[0];
    return lp;
  }
};

/// models/bnn.hpp's net (sigmoid units, softmax outputs, N(0, 1) weights) written once.
template <int K>
struct SoftmaxNet {
  static constexpr int outputs = K;
  std::shared_ptr<const Eigen::VectorXi> y;
  template <class T> T activation(const T& a) const {
    using std::exp;
    return 1.0 / (1.0 + exp(-a));
  }
  template <class T> T log_likelihood(std::size_t i, const std::array<T, K>& o) const {
    T lse = o[0];
    for (std::size_t k = 1; k < K; ++k) lse = ad::log_sum_exp(lse, o[k]);
    return o[static_cast<std::size_t>((*y)[static_cast<Eigen::Index>(i)])] - lse;
  }
  template <class T> T log_prior(std::size_t, const T& w) const { return -0.5 * w * w; }
};

// ---- near misses: each lacks one thing ------------------------------------------------------------------
struct OnlyDouble {  // the likelihood is not generic: no derivative can be taken
  double log_likelihood(std::size_t, double eta) const { return -eta * eta; }
  template <class T> T log_prior(std::size_t, const T& t) const { return -t * t; }
};
struct NoPrior {
  template <class T> T log_likelihood(std::size_t, const T& eta) const { return -eta * eta; }
};
struct GlobalsWithoutPhi {  // declares a global parameter but takes none
  static constexpr int globals = 1;
  template <class T> T log_likelihood(std::size_t, const T& eta) const { return -eta * eta; }
  template <class T> T log_prior(std::size_t, const T& t) const { return -t * t; }
};
struct PriorOfDoubleVector {  // a vector prior that only takes doubles
  double log_prior(const ad::Vector<double>& th) const { return -th.squaredNorm(); }
};
struct NetWithoutOutputs {
  template <class T> T activation(const T& a) const { return a; }
  template <class T> T log_likelihood(std::size_t, const std::array<T, 2>& o) const { return o[0]; }
  template <class T> T log_prior(std::size_t, const T& t) const { return -t * t; }
};
struct ExampleWithoutSize {
  template <class T> T log_likelihood(std::size_t, const ad::Vector<T>& th) const { return th[0]; }
  template <class T> T log_prior(std::size_t, const T& t) const { return -t * t; }
};

using LogisticModel = ad::LinearPredictorModel<Logistic>;
using ZipModel = ad::LinearPredictorModel<ZeroInflatedPoisson>;
using ThetaModel = ad::ExampleModel<LogisticOfTheta, 4>;  // width 4: d = 11 takes three passes, the last partial
using NetModel = ad::TwoLayerNet<SoftmaxNet<3>>;

// The user's types: accepted.
static_assert(ad::LinearPredictorSpec<Logistic> && ad::LinearPredictorSpec<ZeroInflatedPoisson>);
static_assert(ad::CoordinatePrior<Logistic> && !ad::VectorPrior<Logistic>);
static_assert(ad::ExampleModelSpec<LogisticOfTheta> && ad::VectorPrior<LogisticOfTheta> && !ad::CoordinatePrior<LogisticOfTheta>);
static_assert(ad::TwoLayerNetSpec<SoftmaxNet<3>>);
// Near misses: rejected.
static_assert(!ad::LikelihoodOfLinearPredictor<OnlyDouble> && !ad::LinearPredictorSpec<OnlyDouble>);
static_assert(ad::LikelihoodOfLinearPredictor<NoPrior> && !ad::LinearPredictorSpec<NoPrior>);
static_assert(!ad::LikelihoodOfLinearPredictor<GlobalsWithoutPhi>);
static_assert(!ad::VectorPrior<PriorOfDoubleVector> && !ad::LogPrior<PriorOfDoubleVector>);
static_assert(!ad::LikelihoodOfNetOutputs<NetWithoutOutputs>);
static_assert(!ad::LikelihoodOfParameters<ExampleWithoutSize>);
static_assert(!ad::LikelihoodOfParameters<Logistic> && !ad::LikelihoodOfLinearPredictor<LogisticOfTheta>);
// The hooks each model offers the minibatch base and the estimators.
static_assert(models::BatchGeneralisedLinearModel<LogisticModel> && models::RangeGeneralisedLinearModel<LogisticModel> &&
              models::FullDataModel<LogisticModel> && models::PointwiseLikelihoodModel<LogisticModel>);
static_assert(models::BatchDataModel<ZipModel> && models::FullDataModel<ZipModel> && models::PointwiseLikelihoodModel<ZipModel> &&
              !models::GeneralisedLinearModel<ZipModel>);
static_assert(models::PointwiseLikelihoodModel<ThetaModel> && !models::BatchDataModel<ThetaModel>);
static_assert(models::BatchDataModel<NetModel> && models::PointwiseLikelihoodModel<NetModel>);
static_assert(models::Saga<LogisticModel>::scalar_table && models::ControlVariate<LogisticModel>::scalar_centre);
static_assert(!models::Saga<ZipModel>::scalar_table);
static_assert(PotentialWithValue<models::Minibatch<ZipModel>, VectorXd> && PotentialWithValue<models::ControlVariate<ThetaModel>, VectorXd>);

// ---- data ---------------------------------------------------------------------------------------------

std::shared_ptr<const data::Dataset<double>> logistic_data(std::size_t N, Eigen::Index d) {
  return std::make_shared<const data::Dataset<double>>(data::synthetic_logistic(N, d, 11).data);
}
LogisticModel logistic_model(const std::shared_ptr<const data::Dataset<double>>& data, double prior_sd) {
  return ad::linear_predictor_model(Logistic{std::make_shared<const VectorXd>(data->y.cast<double>()), prior_sd}, data->x);
}

/// N examples of a zero-inflated Poisson with 3 predictors (an intercept and two N(0, 1)), π = 0.3.
ZipModel zip_model(std::size_t N) {
  random::Stream rng(21, 0);
  Eigen::MatrixXd x(3, static_cast<Eigen::Index>(N));
  VectorXd y(static_cast<Eigen::Index>(N));
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    x(0, i) = 1, x(1, i) = rng.normal(), x(2, i) = rng.normal();
    const double lambda = std::exp(0.5 + 0.4 * x(1, i) - 0.3 * x(2, i));
    double count = 0;  // Poisson by counting unit-rate arrivals before λ
    for (double t = -std::log(rng.uniform()); t < lambda; t -= std::log(rng.uniform())) count += 1;
    y[i] = rng.uniform() < 0.3 ? 0.0 : count;
  }
  return ad::linear_predictor_model(ZeroInflatedPoisson{std::make_shared<const VectorXd>(std::move(y))}, std::move(x));
}

VectorXd point(Eigen::Index d, std::uint64_t seed, double sd) {
  random::Stream rng(seed, 0);
  VectorXd th(d);
  rng.normals(th);
  return sd * th;
}

/// The central-difference gradient of U = prior_value + Σ example_value.
template <class M>
VectorXd finite_difference(const M& m, const VectorXd& th, double h = 1e-5) {
  const auto u = [&](const VectorXd& t) {
    double s = m.prior_value(t);
    for (std::size_t i = 0; i < m.size(); ++i) s += m.example_value(t, i);
    return s;
  };
  VectorXd g(th.size());
  for (Eigen::Index k = 0; k < th.size(); ++k) {
    VectorXd a = th, b = th;
    a[k] += h, b[k] -= h;
    g[k] = (u(a) - u(b)) / (2 * h);
  }
  return g;
}

/// ∇U through the model's per-example hook, one example at a time (the reference for the batch paths).
template <class M>
VectorXd per_example_gradient(const M& m, const VectorXd& th, const std::vector<std::size_t>& idx, double scale) {
  VectorXd g = VectorXd::Zero(th.size());
  m.add_prior_gradient(th, g);
  for (std::size_t i : idx) m.add_example_gradient(th, i, g, scale);
  return g;
}
std::vector<std::size_t> all_examples(std::size_t N) {
  std::vector<std::size_t> idx(N);
  for (std::size_t i = 0; i < N; ++i) idx[i] = i;
  return idx;
}

double rel(const VectorXd& a, const VectorXd& b) { return (a - b).norm() / b.norm(); }

}  // namespace

TEST_CASE("dual numbers: each function's derivative is its central difference") {
  // f uses every operation and function the header defines; its derivative in two directions against
  // central differences (h = 1e-6: truncation and rounding both below 1e-9 for these order-one values).
  // Catches a wrong derivative rule (a sign, a missing chain factor, a swapped branch of softplus).
  const auto f = [](const auto& x, const auto& y) {
    using std::exp, std::log, std::log1p, std::expm1, std::sqrt, std::pow, std::sin, std::cos, std::tanh, std::abs, std::lgamma;
    return exp(x) * y - log(y) / x + log1p(x * y) + expm1(-y) + sqrt(x + 2.0) - pow(y, 1.5) + sin(x) * cos(y) + tanh(x - y) +
           abs(x - 1.0) + lgamma(y + 0.5) + 2.0 / y - (3.0 - x) + ad::softplus(3.0 * x - 2.0) + ad::softplus(-5.0 * y) +
           ad::log_sum_exp(x, 2.0 * y) + ad::log_sigmoid(y - x);
  };
  for (const auto& [x, y] : {std::pair{0.7, 1.3}, std::pair{1.9, 0.4}}) {
    const auto r = f(ad::Dual<2>::variable(x, 0), ad::Dual<2>::variable(y, 1));
    const double h = 1e-6;
    CHECK(r.v == doctest::Approx(f(x, y)).epsilon(1e-14));
    CHECK(r.d[0] == doctest::Approx((f(x + h, y) - f(x - h, y)) / (2 * h)).epsilon(1e-8));
    CHECK(r.d[1] == doctest::Approx((f(x, y + h) - f(x, y - h)) / (2 * h)).epsilon(1e-8));
  }
}

TEST_CASE("linear predictor: logistic regression equals the hand-written model on every path") {
  // The AD model and models::LogisticRegression compute the same sums in different orders (a dual's
  // σ(η) is e/(1 + e) or 1/(1 + e), the hand's 1/(1 + e^{−η})): equal to relative 1e-12. Catches a wrong
  // sign of ψ, a missing scale, a batch path that drops or double-counts an example, a block pass that
  // skips the last partial block (N = 2500: blocks of 1024, 1024, 452).
  const std::size_t N = 2500;
  const auto data = logistic_data(N, 6);
  const LogisticModel m = logistic_model(data, 2.0);
  const models::LogisticRegression hand{data, 2.0};
  const VectorXd th = point(6, 1, 0.5);
  const std::vector<std::size_t> idx{5, 17, 17, 2499, 0, 1024, 3};  // a repeat counts twice

  VectorXd a = VectorXd::Zero(6), b = VectorXd::Zero(6);
  m.add_batch_gradient(th, idx, a, 3.5), hand.add_batch_gradient(th, idx, b, 3.5);
  CHECK(rel(a, b) < 1e-12);
  CHECK(rel(per_example_gradient(m, th, idx, 3.5), per_example_gradient(hand, th, idx, 3.5)) < 1e-12);
  a.setZero(), b.setZero();
  m.add_prior_gradient(th, a), hand.add_prior_gradient(th, b);
  CHECK(rel(a, b) < 1e-15);
  CHECK(m.prior_value(th) == doctest::Approx(hand.prior_value(th)).epsilon(1e-15));

  const auto full_m = models::minibatch(m, 10, models::Sampling::with_replacement);
  const auto full_h = models::minibatch(hand, 10, models::Sampling::with_replacement);
  full_m.exact_gradient(th, a), full_h.exact_gradient(th, b);
  CHECK(rel(a, b) < 1e-12);
  CHECK(full_m.value(th) == doctest::Approx(full_h.value(th)).epsilon(1e-12));
  CHECK(rel(a, per_example_gradient(m, th, all_examples(N), 1.0)) < 1e-12);

  // The GLM hooks the estimators use.
  for (std::size_t i : idx) CHECK(m.example_coefficient(th, i) == doctest::Approx(hand.example_coefficient(th, i)).epsilon(1e-12));
  VectorXd psi(452), psi_hand(452), z(452);
  m.range_coefficients(th, 2048, psi), hand.range_coefficients(th, 2048, psi_hand);
  CHECK(rel(psi, psi_hand) < 1e-12);
  CHECK(m.range_value(th, 2048, z) == doctest::Approx(hand.range_value(th, 2048, psi_hand)).epsilon(1e-12));
  CHECK(rel(z, psi) < 1e-15);
  VectorXd c(7), c_hand(7);
  c << 0.1, -0.2, 0.3, 0.0, 0.5, -0.6, 0.7;
  c_hand = c;
  a.setZero(), b.setZero();
  m.add_batch_gradient_relative(th, idx, c, a, 2.0), hand.add_batch_gradient_relative(th, idx, c_hand, b, 2.0);
  CHECK(rel(a, b) < 1e-12);
  CHECK(rel(c, c_hand) < 1e-12);
  CHECK(m.example_log_likelihood(th, 17) == doctest::Approx(hand.example_log_likelihood(th, 17)).epsilon(1e-14));
}

TEST_CASE("linear predictor with a global parameter: the zero-inflated Poisson against finite differences") {
  // ∇U by the model's three paths against central differences of its own U (no hand-written model
  // exists). Catches a wrong ∂/∂φ (the global's seed direction, its sign or scale), a batch path that
  // mixes up the φ-block and β, and a full-data pass that differs from the per-example sum.
  const std::size_t N = 200;
  const ZipModel m = zip_model(N);
  const VectorXd th = (VectorXd(4) << 0.4, 0.3, -0.2, -0.5).finished();  // β, φ
  const auto idx = all_examples(N);
  const VectorXd fd = finite_difference(m, th);
  const VectorXd per = per_example_gradient(m, th, idx, 1.0);
  CHECK(rel(per, fd) < 1e-6);
  VectorXd batch = VectorXd::Zero(4), full = VectorXd::Zero(4);
  m.add_prior_gradient(th, batch), m.add_batch_gradient(th, idx, batch, 1.0);
  CHECK(rel(batch, per) < 1e-12);
  m.add_prior_gradient(th, full), m.add_likelihood_gradient(th, full);
  CHECK(rel(full, per) < 1e-12);
  double u = 0;
  for (std::size_t i = 0; i < N; ++i) u += m.example_value(th, i);
  CHECK(m.likelihood_value(th) == doctest::Approx(u).epsilon(1e-13));
}

TEST_CASE("per-example forward mode in chunks: equals the hand-written logistic gradient; a shared-scale prior against finite differences") {
  // θ = (log prior sd, β) with d = 1 + 10 = 11 coordinates in chunks of 4: three passes, the last one
  // partial. The likelihood part must equal LogisticRegression's (relative 1e-12): catches a chunk seeded
  // at the wrong offset, a tangent not cleared between passes, a partial last chunk dropped. The prior is
  // a VectorPrior (forward mode over the whole vector): against central differences.
  const std::size_t N = 150;
  const auto data = logistic_data(N, 10);
  const ThetaModel m{LogisticOfTheta{data}};
  const models::LogisticRegression hand{data, 1.0};
  VectorXd th = point(11, 3, 0.4);
  const auto idx = all_examples(N);
  VectorXd lik = VectorXd::Zero(11), lik_hand = VectorXd::Zero(10);
  for (std::size_t i : idx) m.add_example_gradient(th, i, lik, 2.0), hand.add_example_gradient(th.tail(10), i, lik_hand, 2.0);
  CHECK(lik[0] == 0.0);
  CHECK(rel(lik.tail(10), lik_hand) < 1e-12);
  CHECK(rel(per_example_gradient(m, th, idx, 1.0), finite_difference(m, th)) < 1e-6);
  CHECK(m.example_log_likelihood(th, 7) == doctest::Approx(hand.example_log_likelihood(th.tail(10), 7)).epsilon(1e-14));
}

TEST_CASE("two-layer net: equals models::BasicBnn's hand-written backprop; per-example and batch paths agree") {
  // The same net (sigmoid units, softmax over K = 3, N(0, 1) weights) on the same inputs: the AD
  // gradient equals BasicBnn<double>'s to relative 1e-12 (the products run in other orders). Catches a
  // transposed weight block, a wrong activation slope, an output derivative of the wrong sign.
  const Eigen::Index d = 5, H = 4;
  const std::size_t N = 40;
  random::Stream rng(8, 0);
  auto ds = std::make_shared<data::Dataset<float>>();
  ds->x.resize(d, static_cast<Eigen::Index>(N));
  ds->y.resize(static_cast<Eigen::Index>(N));
  for (Eigen::Index i = 0; i < ds->x.cols(); ++i) {
    for (Eigen::Index k = 0; k < d; ++k) ds->x(k, i) = static_cast<float>(rng.normal());
    ds->y[i] = static_cast<int>(rng.below(3));
  }
  models::BasicBnn<double> hand;
  hand.data = ds, hand.hidden = H, hand.classes = 3;
  const NetModel net = ad::two_layer_net(SoftmaxNet<3>{std::make_shared<const Eigen::VectorXi>(ds->y)}, ds->x.cast<double>(), H);
  REQUIRE(net.dim() == hand.dim());
  const VectorXd th = point(net.dim(), 4, 0.7);
  const std::vector<std::size_t> idx{3, 9, 9, 39, 0, 21};
  VectorXd a = VectorXd::Zero(net.dim()), b = VectorXd::Zero(net.dim());
  net.add_prior_gradient(th, a), net.add_batch_gradient(th, idx, a, 1.5);
  hand.add_prior_gradient(th, b), hand.add_batch_gradient(th, idx, b, 1.5);
  CHECK(rel(a, b) < 1e-12);
  CHECK(rel(per_example_gradient(net, th, idx, 1.5), a) < 1e-12);
  CHECK(net.example_value(th, 9) == doctest::Approx(hand.example_value(th, 9)).epsilon(1e-12));
  CHECK(net.prior_value(th) == doctest::Approx(hand.prior_value(th)).epsilon(1e-14));
}

TEST_CASE_TEMPLATE("every gradient estimator runs on an AD model and is exact where it must be", M, LogisticModel, ZipModel) {
  // The control variate at its centre and SAGA at the point where it fills its table both give the
  // full-data gradient (to rounding: the batch terms cancel); SVRG does at its first point; the plain
  // minibatch gradient averages to it (a loose 5-standard-error check over 400 batches, seed fixed).
  // Catches a hook the estimators call that disagrees with the others (the GLM's ψ against its
  // per-example gradient, SAGA's scalar table for P = 0, the d-vector table for P > 0).
  const M m = [] {
    if constexpr (std::is_same_v<M, LogisticModel>) return logistic_model(logistic_data(300, 4), 1.0);
    else return zip_model(300);
  }();
  const VectorXd th = std::is_same_v<M, LogisticModel> ? point(4, 6, 0.5) : (VectorXd(4) << 0.4, 0.3, -0.2, -0.5).finished();
  const auto base = models::minibatch(m, 20, models::Sampling::without_replacement);
  VectorXd exact(4), g(4);
  base.exact_gradient(th, exact);
  random::Stream rng(2, 0);

  const auto cv = models::ControlVariate<M>::at(base, th);
  models::Svrg<M> svrg(base);
  const models::Saga<M> saga(models::minibatch(m, 20, models::Sampling::with_replacement));  // saga's only order
  for (int b = 0; b < 5; ++b) {
    cv.gradient(th, g, rng);
    CHECK(rel(g, exact) < 1e-12);
    svrg.gradient(th, g, rng);
    CHECK(rel(g, exact) < 1e-12);
    saga.gradient(th, g, rng);
    CHECK(rel(g, exact) < 1e-12);
  }
  VectorXd sum = VectorXd::Zero(4), sum2 = VectorXd::Zero(4);
  const int batches = 400;
  for (int b = 0; b < batches; ++b) {
    base.gradient(th, g, rng);
    sum += g, sum2 += g.cwiseProduct(g);
  }
  const VectorXd mean = sum / batches, se = ((sum2 / batches - mean.cwiseProduct(mean)) / (batches - 1.0)).cwiseSqrt();
  for (Eigen::Index k = 0; k < 4; ++k) CHECK(std::abs(mean[k] - exact[k]) <= 5 * se[k] + 1e-9);
}
