// Nanoseconds per minibatch of n = 100 example indices drawn without replacement from N ∈ {10⁴, 10⁵,
// 10⁶} examples (docs/benchmarks.md, "Minibatch indices"), three ways:
//   Library  - models::batch_indices: the keyed Feistel permutation of each epoch (O(1) memory, any
//              batch computable from (seed, chain, b) alone, so a resumed run draws the same batches),
//              walked for the whole batch at once (random::Permutation::apply);
//   PerIndex - the library's previous path, kept to state the before/after in the same run: one
//              cycle-walk (operator()) per position, each a chain of dependent encryptions ended by an
//              unpredictable branch;
//   Shuffle  - what a good engineer writes without the resumability requirement: an index array of N
//              entries shuffled at each epoch's start (std::shuffle, Fisher–Yates, std::mt19937_64), each
//              batch a copy of the next n entries; the shuffle's cost is spread over the epoch's batches
//              (timed with them: an iteration is a whole number of epochs' worth of batches).
// Each benchmark iteration draws 10⁴ batches; the counter `per_batch` is the time per batch (seconds).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/permutation.hpp>

namespace {

using namespace sgmcmc;

constexpr std::size_t batch = 100;
constexpr std::uint64_t batches = 10000;

/// Seconds per batch: a rate counter over the batches drawn, inverted.
void per_batch(benchmark::State& state) {
  state.counters["per_batch"] = benchmark::Counter(static_cast<double>(batches) * static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_IndicesLibrary(benchmark::State& state) {
  const auto N = static_cast<std::size_t>(state.range(0));
  std::vector<std::size_t> idx;
  std::uint64_t b = 0;
  for (auto _ : state) {
    for (std::uint64_t k = 0; k < batches; ++k) {
      models::batch_indices(b++, batch, N, models::Sampling::without_replacement, 7, 0, idx);
      benchmark::DoNotOptimize(idx.data());
    }
  }
  per_batch(state);
}

void BM_IndicesPerIndex(benchmark::State& state) {
  const auto N = static_cast<std::size_t>(state.range(0));
  std::vector<std::size_t> idx(batch);
  std::uint64_t b = 0;
  for (auto _ : state) {
    for (std::uint64_t k = 0; k < batches; ++k, ++b) {
      std::uint64_t epoch = ~std::uint64_t{0};
      random::Permutation perm(1, 7, 0, 0);
      for (std::size_t j = 0; j < batch; ++j) {
        const std::uint64_t p = b * batch + j;
        if (p / N != epoch) epoch = p / N, perm = random::Permutation(N, 7, 0, epoch);
        idx[j] = static_cast<std::size_t>(perm(p % N));
      }
      benchmark::DoNotOptimize(idx.data());
    }
  }
  per_batch(state);
}

void BM_IndicesShuffle(benchmark::State& state) {
  const auto N = static_cast<std::size_t>(state.range(0));
  std::vector<std::size_t> order(N), idx(batch);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(7);
  std::size_t next = N;  // the first batch shuffles
  for (auto _ : state) {
    for (std::uint64_t k = 0; k < batches; ++k) {
      if (next + batch > N) std::shuffle(order.begin(), order.end(), rng), next = 0;  // N is a multiple of n here
      std::copy_n(order.begin() + static_cast<std::ptrdiff_t>(next), batch, idx.begin());
      next += batch;
      benchmark::DoNotOptimize(idx.data());
    }
  }
  per_batch(state);
}

void cases(benchmark::internal::Benchmark* b) { b->ArgNames({"N"})->Args({10000})->Args({100000})->Args({1000000})->Unit(benchmark::kMillisecond); }
BENCHMARK(BM_IndicesLibrary)->Apply(cases);
BENCHMARK(BM_IndicesPerIndex)->Apply(cases);
BENCHMARK(BM_IndicesShuffle)->Apply(cases);

}  // namespace

BENCHMARK_MAIN();
