// Seconds per SGGMC iteration on the spherical admixture model (issue #6): K ∈ {20, 50} topics,
// V = 5,000, minibatches of 50 and 100 documents, the per-document θ draws on 1 and 2 threads (the
// persistent WorkerPool of modules/parallel/worker_pool.hpp).
//
// Documents: 2,000 synthetic tf-idf-like rows with the sparsity of the SpamAssassin three-groups set
// (75 distinct words per document on average: 120,318 non-zeros / 1,601 training documents): each
// document draws 40–110 distinct words from a Zipf(1) law over the vocabulary, values uniform on (0, 1)
// times the word's log-rank (a stand-in for idf), normalised to unit length. Model: the authors' SAM
// settings (κ0 = σ = 1e4, κ1 = 3e4, α = 10; θ: 40 burn-in + 20 kept GMC trajectories of 10 leapfrog
// steps, step 1e-3 — the experiment's starting θ step). Sampler: SGGMC (ABOBA), h = 2.5e-4, C = 40.
// One benchmark iteration is one SGGMC step (a minibatch gradient with its θ draws, the sphere flow);
// real time (the θ draws run on several threads). The setup checks that 3 steps on 1 and on 2 threads
// give the same bits (counter same_bits).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/compositions/sam.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace {

using namespace sgmcmc;
using namespace sgmcmc::text;
using M = Power<Sphere>;

constexpr std::size_t V = 5000, documents = 2000;

std::shared_ptr<const SamDocuments> corpus() {
  static std::shared_ptr<const SamDocuments> c = [] {
    auto s = std::make_shared<SamDocuments>();
    s->vocabulary_size = V;
    random::Stream rng(2016, 3);
    std::vector<double> cdf(V);
    double total = 0;
    for (std::size_t w = 0; w < V; ++w) cdf[w] = total += 1.0 / static_cast<double>(w + 1);
    std::vector<char> used(V, 0);
    std::vector<std::uint32_t> words;
    for (std::size_t d = 0; d < documents; ++d) {
      const std::size_t n = 40 + static_cast<std::size_t>(rng.below(71));
      words.clear();
      while (words.size() < n) {
        const double u = rng.uniform() * total;
        const auto w = static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        if (w < V && !used[w]) used[w] = 1, words.push_back(w);
      }
      std::sort(words.begin(), words.end());
      double ss = 0;
      const std::size_t start = s->value.size();
      for (auto w : words) {
        const double v = rng.uniform() * std::log(2.0 + w);
        s->word.push_back(w), s->value.push_back(v), ss += v * v;
        used[w] = 0;
      }
      for (std::size_t j = start; j < s->value.size(); ++j) s->value[j] /= std::sqrt(ss);
      s->offset.push_back(s->word.size());
    }
    return s;
  }();
  return c;
}

struct Run {
  Sam sam;
  sghmc::Sampler<M> sampler;
  random::Stream rng{7, 0};
  sghmc::Sampler<M>::State s;
  std::uint64_t t = 0;
  Run(Eigen::Index K, std::size_t batch, unsigned threads)
      : sam(corpus(), K, SamHyper{}, theta(), batch, threads),
        sampler(sghmc::Dynamics<M>{sam.manifold(), sghmc::Friction(40.0)}, splitting::aboba, schedule::StepSize::constant(2.5e-4)),
        s(sampler.init(sam.initial_topics(rng), rng)) {}
  static ThetaGmc theta() {
    ThetaGmc t;
    t.burn_in = 40, t.draws = 20, t.leapfrog_steps = 10, t.step_size = 1e-3;
    return t;
  }
  void step() { sampler.step(s, sam, rng, t++); }
};

void BM_SamSggmcStep(benchmark::State& state) {
  const auto K = static_cast<Eigen::Index>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  const auto threads = static_cast<unsigned>(state.range(2));
  double same = 1;
  if (threads > 1) {
    Run a(K, batch, 1), b(K, batch, threads);
    for (int i = 0; i < 3; ++i) a.step(), b.step();
    same = a.s.x == b.s.x && a.s.v == b.s.v ? 1 : 0;
  }
  Run run(K, batch, threads);
  run.step();  // the pool's threads are created on the first gradient: not timed
  for (auto _ : state) {
    run.step();
    benchmark::ClobberMemory();
  }
  state.counters["same_bits"] = same;
  state.counters["theta_acceptance"] = run.sam.last.proposals ? double(run.sam.last.accepted) / double(run.sam.last.proposals) : 0.0;
}

BENCHMARK(BM_SamSggmcStep)
    ->ArgNames({"K", "batch", "threads"})
    ->ArgsProduct({{20, 50}, {50, 100}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
