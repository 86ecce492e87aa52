// Seconds per 10⁴ SGHMC steps of Bayesian logistic regression (issue #4), N ∈ {10⁵, 10⁶} examples,
// d = 50, minibatches of 100 drawn without replacement, ABOBA, h = 10⁻³, C = 10, two ways:
//   Library - sghmc::Sampler<Euclidean> on data::minibatch(models::LogisticRegression), as a user
//             calls it;
//   Hand    - the same mathematics as one hand-written Eigen loop with the same RNG: x += h/2 v; the
//             batch indices from models::batch_indices on the stream's next batch counter;
//             g = x/σ² + (N/n) Σ_i (σ(xᵀa_i) − y_i) a_i (Welling & Teh 2011 Eq. 3 on the logistic
//             likelihood); the noise from Stream::normals; v = e(e v + sd ζ − h g); x += h/2 v.
// Both do the same floating-point operations in the same order: the setup checks the final states
// agree to the bit after 1,000 steps (counter `same_bits` = 1). Each benchmark iteration is 10⁴ steps.
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/data/dataset.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace {

using namespace sgmcmc;
using Eigen::VectorXd;

constexpr Eigen::Index d = 50;
constexpr std::size_t batch = 100;
constexpr std::uint64_t steps = 10000;
constexpr double h = 1e-3, friction = 10.0, prior_sd = 1.0;

std::shared_ptr<const data::Dataset<double>> dataset(std::size_t n) {
  static std::map<std::size_t, std::shared_ptr<const data::Dataset<double>>> cache;
  auto& p = cache[n];
  if (!p) p = std::make_shared<const data::Dataset<double>>(data::synthetic_logistic(n, d, 1).data);
  return p;
}

struct Library {
  sghmc::Sampler<Euclidean> sampler{{Euclidean(d), sghmc::Friction(friction), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  models::Minibatch<models::LogisticRegression> pot;
  random::Stream rng{7, 0};
  sghmc::Sampler<Euclidean>::State s;
  std::uint64_t t = 0;
  explicit Library(std::size_t n)
      : pot(data::minibatch(models::LogisticRegression{dataset(n), prior_sd}, batch, models::Sampling::without_replacement)),
        s(sampler.init(VectorXd::Zero(d), rng)) {}
  void run(std::uint64_t k) {
    for (std::uint64_t i = 0; i < k; ++i) sampler.step(s, pot, rng, t++);
  }
};

struct Hand {
  std::shared_ptr<const data::Dataset<double>> data;
  random::Stream rng{7, 0};
  VectorXd x = VectorXd::Zero(d), v{d}, g{d}, zeta{d};
  std::vector<std::size_t> idx;
  explicit Hand(std::size_t n) : data(dataset(n)) { rng.normals(v); }  // the sampler's init: v ~ N(0, I)
  void run(std::uint64_t k) {
    const double e = std::exp(-friction * h / 2), sd = splitting::kick_sd(friction, 0.0, h), hh = h / 2;
    const std::size_t N = data->size();
    const double scale = double(N) / double(batch), prec = 1.0 / (prior_sd * prior_sd);
    for (std::uint64_t i = 0; i < k; ++i) {
      x += hh * v;
      models::batch_indices(rng.next_batch(), batch, N, models::Sampling::without_replacement, rng.seed(), rng.stream_id(), idx);
      g.noalias() = prec * x;
      for (std::size_t j : idx) {
        const auto a = data->x.col(static_cast<Eigen::Index>(j));
        const double r = 1.0 / (1.0 + std::exp(-x.dot(a))) - data->y[static_cast<Eigen::Index>(j)];
        g.noalias() += (scale * r) * a;
      }
      rng.normals(zeta);
      v = (v * e + (sd * zeta - h * g)) * e;
      x += hh * v;
    }
  }
};

template <class Impl>
void run_bench(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Library check_lib(n);
  Hand check_hand(n);
  check_lib.run(1000), check_hand.run(1000);
  const bool same = check_lib.s.x == check_hand.x && check_lib.s.v == check_hand.v;
  Impl impl(n);
  for (auto _ : state) {
    impl.run(steps);
    benchmark::ClobberMemory();
  }
  state.counters["same_bits"] = same ? 1.0 : 0.0;
  state.counters["N"] = static_cast<double>(n);
}

void BM_LogisticLibrary(benchmark::State& state) { run_bench<Library>(state); }
void BM_LogisticHand(benchmark::State& state) { run_bench<Hand>(state); }

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(5);
}
BENCHMARK(BM_LogisticLibrary)->Apply(sizes);
BENCHMARK(BM_LogisticHand)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
