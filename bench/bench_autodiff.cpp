// The gradient of a minibatch, hand-written against automatic differentiation (issue #35 item 3):
// g = ∇(−log p(θ)) + (N/n) Σ_{i ∈ batch} ∇(−log p(x_i | θ)), one call per benchmark iteration, the batch
// cycling through 256 fixed batches of n = 100 drawn without replacement from N = 10⁴ examples (and 10⁵ for
// the GLM's two fastest paths, where the gather of the batch's columns waits on memory).
//
// Bayesian logistic regression, d = 50 (prior N(0, I)):
//   GlmHand            models::LogisticRegression: the library's hand-written batch path (gather, two
//                      matrix–vector products, a vectorised sigmoid);
//   GlmLinearPredictor autodiff::LinearPredictorModel: the user's ℓ(η) = yη − softplus(η), written once
//                      generic, differentiated by one Dual<1> per example, the products as above;
//   GlmForwardChunk<W> autodiff::ExampleModel: the user's ℓ_i(θ) written as a scalar loop over the d
//                      features (as the issue measured Stan Math and ADOL-C), forward mode in chunks of W;
//   GlmEigenFixed      the same generic ℓ_i(θ) on Eigen's AutoDiffScalar with a fixed-size 50-vector of
//                      derivatives (one pass);
//   GlmEigenDynamic    the same on AutoDiffScalar<VectorXd> (the dimension at run time: allocates).
// Two-layer net, 784–100–10 (models/bnn.hpp's shape; sigmoid units, softmax outputs, prior N(0, I)):
//   NetHand            models::BasicBnn<double>: the library's hand-written backprop;
//   NetAutodiff        autodiff::TwoLayerNet with the user's sigmoid and log-softmax written once generic.
// Before timing, each AD gradient is compared with the hand-written one on the first batch; the counter
// `max_rel_diff` is ‖g_AD − g_hand‖∞ / ‖g_hand‖∞ and a value above 1e-10 stops the case with an error.
// The ratios in docs/benchmarks.md are of medians from one run of this program.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>
#include <unsupported/Eigen/AutoDiff>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/autodiff/example_model.hpp>
#include <sgmcmc/models/autodiff/linear_predictor.hpp>
#include <sgmcmc/models/autodiff/two_layer_net.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace {

using namespace sgmcmc;
namespace ad = sgmcmc::models::autodiff;
using Eigen::VectorXd;

constexpr Eigen::Index d = 50;
constexpr std::size_t N = 10000, batch = 100, batches = 256;  // N: the compute-bound cases' data set
constexpr double tolerance = 1e-10;

std::shared_ptr<const data::Dataset<double>> logistic_data(std::size_t n_examples) {
  static std::map<std::size_t, std::shared_ptr<const data::Dataset<double>>> cache;
  auto& p = cache[n_examples];
  if (!p) p = std::make_shared<const data::Dataset<double>>(data::synthetic_logistic(n_examples, d, 1).data);
  return p;
}
const std::vector<std::vector<std::size_t>>& batch_list(std::size_t n_examples) {
  static std::map<std::size_t, std::vector<std::vector<std::size_t>>> cache;
  auto& list = cache[n_examples];
  if (list.empty())
    for (std::size_t b = 0; b < batches; ++b) {
      list.emplace_back();
      models::batch_indices(b, batch, n_examples, models::Sampling::without_replacement, 3, 0, list.back());
    }
  return list;
}
VectorXd theta_of(Eigen::Index dim, double sd) {
  random::Stream rng(5, 0);
  VectorXd th(dim);
  rng.normals(th);
  return sd * th;
}

// ---- the logistic model, written once --------------------------------------------------------------

/// ℓ(η) and the prior for autodiff::LinearPredictorModel.
struct LogisticOfEta {
  std::shared_ptr<const Eigen::VectorXd> y;
  template <class T> T log_likelihood(std::size_t i, const T& eta) const { return (*y)[static_cast<Eigen::Index>(i)] * eta - ad::softplus(eta); }
  template <class T> T log_prior(std::size_t, const T& b) const { return -0.5 * b * b; }
};

/// ℓ_i(θ) as a scalar loop over the features, generic over any scalar (our Dual, Eigen's AutoDiffScalar).
struct LogisticLoop {
  std::shared_ptr<const data::Dataset<double>> data;
  std::size_t size() const { return data->size(); }
  template <class T> T log_likelihood(std::size_t i, const ad::Vector<T>& th) const {
    using std::abs, std::exp, std::log;
    const auto col = static_cast<Eigen::Index>(i);
    T eta = th[0] * data->x(0, col);
    for (Eigen::Index k = 1; k < th.size(); ++k) eta += th[k] * data->x(k, col);
    const T relu = eta > 0.0 ? eta : T(0.0 * eta);  // max(η, 0), typed as T for AutoDiffScalar
    const T softplus = relu + log(1.0 + exp(-abs(eta)));
    return data->y[col] * eta - softplus;
  }
  template <class T> T log_prior(std::size_t, const T& b) const { return -0.5 * b * b; }
};

/// g = ∇U on batch b of `model` through the minibatch base's own path (prior + (N/n)·batch).
template <class M>
void minibatch_gradient(const models::Minibatch<M>& m, const VectorXd& th, const std::vector<std::size_t>& idx, VectorXd& g) {
  g.setZero(th.size());
  m.model.add_prior_gradient(th, g);
  m.add_batch(th, idx, g, m.batch_scale());
}

/// The generic ℓ_i on Eigen's AutoDiffScalar<Der>: g = ∇U, forward mode in one pass.
template <class Der>
void eigen_gradient(const LogisticLoop& l, const VectorXd& th, const std::vector<std::size_t>& idx, VectorXd& g, ad::Vector<Eigen::AutoDiffScalar<Der>>& seeded) {
  using A = Eigen::AutoDiffScalar<Der>;
  const auto dim = th.size();
  if (seeded.size() != dim) seeded.resize(dim);
  for (Eigen::Index k = 0; k < dim; ++k) seeded[k] = A(th[k], dim, k);
  g = th;  // the prior N(0, I): ∇(−log p) = θ
  const double scale = double(N) / double(batch);
  for (std::size_t i : idx) {
    const A r = l.log_likelihood(i, seeded);
    g -= scale * r.derivatives();
  }
}

double rel_diff(const VectorXd& a, const VectorXd& b) { return (a - b).lpNorm<Eigen::Infinity>() / b.lpNorm<Eigen::Infinity>(); }

// ---- logistic cases --------------------------------------------------------------------------------

models::Minibatch<models::LogisticRegression> hand_glm(std::size_t n_examples) {
  return models::minibatch(models::LogisticRegression{logistic_data(n_examples), 1.0}, batch, models::Sampling::without_replacement);
}
/// The case's data-set size: the benchmark's argument (every GLM case has one).
std::size_t examples_of(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

/// Checks `gradient` against the hand-written model `hand` at θ on the first batch (a benchmark of a
/// wrong gradient is skipped with an error), then times it over the batches in turn.
template <class Hand, class Batches, class F>
void time_against(benchmark::State& state, const Hand& hand, const VectorXd& th, const Batches& list, F&& gradient) {
  VectorXd g(th.size()), ref(th.size());
  minibatch_gradient(hand, th, list[0], ref);
  gradient(th, list[0], g);
  const double diff = rel_diff(g, ref);
  if (!(diff <= tolerance)) state.SkipWithError("the AD gradient differs from the hand-written one");
  std::size_t b = 0;
  for (auto _ : state) {
    gradient(th, list[b++ % batches], g);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
  state.counters["max_rel_diff"] = diff;
}

template <class F>
void run_glm(benchmark::State& state, F&& gradient) {
  time_against(state, hand_glm(examples_of(state)), theta_of(d, 0.3), batch_list(examples_of(state)), gradient);
}

void BM_GlmHand(benchmark::State& state) {
  const auto m = hand_glm(examples_of(state));
  run_glm(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { minibatch_gradient(m, th, idx, g); });
}
void BM_GlmLinearPredictor(benchmark::State& state) {
  const auto data = logistic_data(examples_of(state));
  auto y = std::make_shared<const VectorXd>(data->y.cast<double>());
  const auto m = models::minibatch(ad::linear_predictor_model(LogisticOfEta{y}, data->x), batch, models::Sampling::without_replacement);
  run_glm(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { minibatch_gradient(m, th, idx, g); });
}
template <int W>
void BM_GlmForwardChunk(benchmark::State& state) {
  const auto m = models::minibatch(ad::ExampleModel<LogisticLoop, W>{LogisticLoop{logistic_data(examples_of(state))}}, batch, models::Sampling::without_replacement);
  run_glm(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { minibatch_gradient(m, th, idx, g); });
}
void BM_GlmEigenFixed(benchmark::State& state) {
  const LogisticLoop l{logistic_data(examples_of(state))};
  ad::Vector<Eigen::AutoDiffScalar<Eigen::Matrix<double, d, 1>>> seeded;
  run_glm(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { eigen_gradient(l, th, idx, g, seeded); });
}
void BM_GlmEigenDynamic(benchmark::State& state) {
  const LogisticLoop l{logistic_data(examples_of(state))};
  ad::Vector<Eigen::AutoDiffScalar<VectorXd>> seeded;
  run_glm(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { eigen_gradient(l, th, idx, g, seeded); });
}

// ---- the two-layer net -----------------------------------------------------------------------------

constexpr Eigen::Index net_in = 784, net_hidden = 100;
constexpr int net_classes = 10;
constexpr std::size_t net_N = 10000;

/// Inputs and labels of the net: features N(0, 1), labels uniform over the classes (the gradient's cost
/// does not depend on what the data mean).
std::shared_ptr<const data::Dataset<float>> net_data() {
  static const auto p = [] {
    auto s = std::make_shared<data::Dataset<float>>();
    random::Stream rng(9, 0);
    Eigen::MatrixXd x(net_in, static_cast<Eigen::Index>(net_N));
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      VectorXd col(net_in);
      rng.normals(col);
      x.col(j) = col;
    }
    s->x = x.cast<float>();
    s->y.resize(static_cast<Eigen::Index>(net_N));
    for (Eigen::Index j = 0; j < s->y.size(); ++j) s->y[j] = static_cast<int>(rng.below(net_classes));
    return std::shared_ptr<const data::Dataset<float>>(s);
  }();
  return p;
}

/// Sigmoid units, softmax outputs, N(0, 1) weights: models/bnn.hpp's net at precisions 1, written once.
struct SoftmaxNet {
  static constexpr int outputs = net_classes;
  std::shared_ptr<const Eigen::VectorXi> y;
  template <class T> T activation(const T& a) const {
    using std::exp;
    return 1.0 / (1.0 + exp(-a));
  }
  template <class T> T log_likelihood(std::size_t i, const std::array<T, outputs>& o) const {
    using std::exp, std::log;
    double m = ad::value_of(o[0]);
    for (const T& ok : o) m = std::max(m, ad::value_of(ok));
    T sum = exp(o[0] - m);
    for (int k = 1; k < outputs; ++k) sum += exp(o[static_cast<std::size_t>(k)] - m);
    return o[static_cast<std::size_t>((*y)[static_cast<Eigen::Index>(i)])] - m - log(sum);
  }
  template <class T> T log_prior(std::size_t, const T& w) const { return -0.5 * w * w; }
};

models::Minibatch<models::BasicBnn<double>> hand_net() {
  models::BasicBnn<double> net;
  net.data = net_data();
  net.hidden = net_hidden;
  net.classes = net_classes;
  return models::minibatch(std::move(net), batch, models::Sampling::without_replacement);
}

template <class F>
void run_net(benchmark::State& state, F&& gradient) {
  const auto hand = hand_net();
  time_against(state, hand, theta_of(hand.model.dim(), 0.05), batch_list(net_N), gradient);
}

void BM_NetHand(benchmark::State& state) {
  const auto m = hand_net();
  run_net(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { minibatch_gradient(m, th, idx, g); });
}
void BM_NetAutodiff(benchmark::State& state) {
  const auto data = net_data();
  auto y = std::make_shared<const Eigen::VectorXi>(data->y);
  const auto m = models::minibatch(ad::two_layer_net(SoftmaxNet{y}, data->x.cast<double>(), net_hidden), batch,
                                   models::Sampling::without_replacement);
  run_net(state, [&](const VectorXd& th, const auto& idx, VectorXd& g) { minibatch_gradient(m, th, idx, g); });
}

// N = 10⁴ (4 MB: the batch's columns in cache) and 10⁵ (40 MB: the gather waits on memory).
BENCHMARK(BM_GlmHand)->Arg(10000)->Arg(100000);
BENCHMARK(BM_GlmLinearPredictor)->Arg(10000)->Arg(100000);
BENCHMARK(BM_GlmForwardChunk<4>)->Arg(N);
BENCHMARK(BM_GlmForwardChunk<8>)->Arg(N);
BENCHMARK(BM_GlmForwardChunk<16>)->Arg(N);
BENCHMARK(BM_GlmForwardChunk<32>)->Arg(N);
BENCHMARK(BM_GlmEigenFixed)->Arg(N);
BENCHMARK(BM_GlmEigenDynamic)->Arg(N);
BENCHMARK(BM_NetHand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NetAutodiff)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
