// Seconds per 10⁴ SGHMC steps of Bayesian logistic regression (issues #4, #11), N ∈ {10⁵, 10⁶} examples,
// d = 50, minibatches of 100 drawn with and without replacement (models::Sampling), ABOBA, h = 10⁻³,
// C = 10, three ways:
//   Library    - sghmc::Sampler<Euclidean> on models::minibatch(models::LogisticRegression), as a user
//                calls it (the model's batched gradient, add_batch_gradient);
//   Hand       - the best plain Eigen loop with the same RNG: x += h/2 v; the batch indices from
//                models::batch_indices on the stream's next batch counter; the batch's columns
//                prefetched, then gathered into X_b (d × n); z = X_bᵀx, r = σ(z) − y (vectorised), g = x/σ² + (N/n) X_b r
//                (Welling & Teh 2011 Eq. 3 on the logistic likelihood); the noise from
//                Stream::normals; v = e(e v + sd ζ − h g); x += h/2 v;
//   PerExample - the library's previous path, kept to state the before/after in the same run: the same
//                model without add_batch_gradient, so Minibatch::gradient loops over the examples (a
//                dot product, a scalar exp and an axpy each).
// The library and the hand loop are different code and need not give the same bits (here they do:
// the same Eigen kernels in the same order; the per-example path differs by ~1e-15), so the setup
// checks that after 1,000 steps their states agree to a relative 1e-12 (counter `max_rel_diff`, max
// over x and v of ‖impl − hand‖∞ / ‖hand‖∞; Hand reports Library's; the run stops with an error above
// the tolerance). Each benchmark iteration is 10⁴ steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace {

using namespace sgmcmc;
using Eigen::VectorXd;

constexpr Eigen::Index d = 50;
constexpr std::size_t batch = 100;
constexpr std::uint64_t steps = 10000, check_steps = 1000;
constexpr double h = 1e-3, friction = 10.0, prior_sd = 1.0, tolerance = 1e-12;

std::shared_ptr<const data::Dataset<double>> dataset(std::size_t n) {
  static std::map<std::size_t, std::shared_ptr<const data::Dataset<double>>> cache;
  auto& p = cache[n];
  if (!p) p = std::make_shared<const data::Dataset<double>>(data::synthetic_logistic(n, d, 1).data);
  return p;
}

/// LogisticRegression without its batched gradient: Minibatch falls back to add_example_gradient.
struct PerExampleLogistic {
  models::LogisticRegression m;
  std::size_t size() const { return m.size(); }
  void add_prior_gradient(const VectorXd& x, VectorXd& g) const { m.add_prior_gradient(x, g); }
  void add_example_gradient(const VectorXd& x, std::size_t i, VectorXd& g, double s) const { m.add_example_gradient(x, i, g, s); }
};
static_assert(models::DataModel<PerExampleLogistic> && !models::BatchDataModel<PerExampleLogistic>);

template <class Model>
struct LibraryOf {
  sghmc::Sampler<Euclidean> sampler{{Euclidean(d), sghmc::Friction(friction), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  models::Minibatch<Model> pot;
  random::Stream rng{7, 0};
  sghmc::Sampler<Euclidean>::State s;
  std::uint64_t t = 0;
  LibraryOf(std::size_t n, models::Sampling sampling)
      : pot(models::minibatch(Model{models::LogisticRegression{dataset(n), prior_sd}}, batch, sampling)),
        s(sampler.init(VectorXd::Zero(d), rng)) {}
  void run(std::uint64_t k) {
    for (std::uint64_t i = 0; i < k; ++i) sampler.step(s, pot, rng, t++);
  }
  const VectorXd& x() const { return s.x; }
  const VectorXd& v() const { return s.v; }
};
using Library = LibraryOf<models::LogisticRegression>;
using PerExample = LibraryOf<PerExampleLogistic>;

struct Hand {
  std::shared_ptr<const data::Dataset<double>> data;
  models::Sampling sampling;
  random::Stream rng{7, 0};
  VectorXd x_ = VectorXd::Zero(d), v_{d}, g{d}, zeta{d}, yb{batch}, r{batch};
  Eigen::MatrixXd xb{d, batch};
  std::vector<std::size_t> idx;
  Hand(std::size_t n, models::Sampling s) : data(dataset(n)), sampling(s) { rng.normals(v_); }  // the sampler's init: v ~ N(0, I)
  void run(std::uint64_t k) {
    const double e = std::exp(-friction * h / 2), sd = splitting::kick_sd(friction, 0.0, h), hh = h / 2;
    const std::size_t N = data->size();
    const double scale = double(N) / double(batch), prec = 1.0 / (prior_sd * prior_sd);
    for (std::uint64_t i = 0; i < k; ++i) {
      x_ += hh * v_;
      models::batch_indices(rng.next_batch(), batch, N, sampling, rng.seed(), rng.stream_id(), idx);
      // Request every column's cache lines before the first copy: the gather waits on memory, not on
      // arithmetic, and overlapping its misses is the cheapest speed-up a plain loop can have.
      for (const std::size_t c : idx)
        for (Eigen::Index j = 0; j < d; j += 8) __builtin_prefetch(data->x.data() + static_cast<Eigen::Index>(c) * d + j);
      for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(batch); ++j) {
        const auto c = static_cast<Eigen::Index>(idx[static_cast<std::size_t>(j)]);
        xb.col(j) = data->x.col(c);
        yb[j] = data->y[c];
      }
      r.noalias() = xb.transpose() * x_;
      r.array() = (1.0 + (-r.array()).exp()).inverse() - yb.array();
      g.noalias() = prec * x_;
      g.noalias() += scale * (xb * r);
      rng.normals(zeta);
      v_ = (v_ * e + (sd * zeta - h * g)) * e;
      x_ += hh * v_;
    }
  }
  const VectorXd& x() const { return x_; }
  const VectorXd& v() const { return v_; }
};

double rel_diff(const VectorXd& a, const VectorXd& b) { return (a - b).lpNorm<Eigen::Infinity>() / b.lpNorm<Eigen::Infinity>(); }

/// max over x and v of ‖Impl − Hand‖∞ / ‖Hand‖∞ after check_steps steps, once per case.
template <class Impl>
double check(std::size_t n, models::Sampling sampling) {
  static std::map<std::pair<std::size_t, models::Sampling>, double> cache;
  const auto key = std::pair{n, sampling};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Impl impl(n, sampling);
  Hand hand(n, sampling);
  impl.run(check_steps), hand.run(check_steps);
  return cache[key] = std::max(rel_diff(impl.x(), hand.x()), rel_diff(impl.v(), hand.v()));
}

template <class Impl>
void run_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto sampling = state.range(1) ? models::Sampling::with_replacement : models::Sampling::without_replacement;
  const double diff = check<std::conditional_t<std::is_same_v<Impl, Hand>, Library, Impl>>(n, sampling);
  if (!(diff <= tolerance)) state.SkipWithError("the library and the hand loop disagree after 1,000 steps");
  Impl impl(n, sampling);
  for (auto _ : state) {
    impl.run(steps);
    benchmark::ClobberMemory();
  }
  state.counters["max_rel_diff"] = diff;
  state.counters["N"] = static_cast<double>(n);
}

void BM_LogisticLibrary(benchmark::State& state) { run_bench<Library>(state); }
void BM_LogisticHand(benchmark::State& state) { run_bench<Hand>(state); }
void BM_LogisticPerExample(benchmark::State& state) { run_bench<PerExample>(state); }

void cases(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "replace"})->ArgsProduct({{100000, 1000000}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(5);
}
BENCHMARK(BM_LogisticLibrary)->Apply(cases);
BENCHMARK(BM_LogisticHand)->Apply(cases);
BENCHMARK(BM_LogisticPerExample)->Apply(cases);

}  // namespace

BENCHMARK_MAIN();
