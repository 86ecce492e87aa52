// Normal draws per second: the library's Stream (bulk `normals`, one-by-one `normal`, and each
// instruction-set copy of the bulk kernel), the Box–Muller with std::log/std::cos/std::sin that the
// stream used before (same Philox blocks, scalar loop), and std::normal_distribution + std::mt19937_64.
// Counter `items_per_second` = normals per second; `per_normal` its inverse (CPU time per normal).
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/modules/random/stream.hpp>

namespace {

namespace rnd = sgmcmc::random;

void set_counters(benchmark::State& state, std::int64_t n) {
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["per_normal"] = benchmark::Counter(static_cast<double>(n),
                                                       benchmark::Counter::kIsIterationInvariantRate |
                                                           benchmark::Counter::kInvert);
}

void BM_StreamNormals(benchmark::State& state) {
  const auto n = state.range(0);
  Eigen::VectorXd out(n);
  rnd::Stream s(7, 0);
  for (auto _ : state) {
    s.normals(out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

void BM_StreamNormalScalar(benchmark::State& state) {
  const auto n = state.range(0);
  Eigen::VectorXd out(n);
  rnd::Stream s(7, 0);
  for (auto _ : state) {
    for (Eigen::Index i = 0; i < n; ++i) out[i] = s.normal();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

// One copy of the bulk kernel (0 generic, 1 AVX2, 2 AVX-512), skipped where the CPU lacks it.
void BM_FillIsa(benchmark::State& state) {
  const auto isa = static_cast<rnd::detail::Isa>(state.range(0));
  const auto n = state.range(1);
  if (!rnd::detail::cpu_supports(isa)) {
    state.SkipWithError("instruction set not supported by this CPU");
    return;
  }
  std::vector<double> out(static_cast<std::size_t>(n));
  std::uint64_t first = 0;
  for (auto _ : state) {
    rnd::detail::fill_normal_pairs_with(isa, 7, 0, 0, first, out.data(), n / 2);
    first += static_cast<std::uint64_t>(n / 2);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

// The stream's previous transform: glibc log/cos/sin per pair, scalar loop (same Philox blocks).
void old_box_muller(const std::array<std::uint32_t, 4>& w, double (&pair)[2]) {
  const std::uint64_t a = std::uint64_t{w[1]} << 32 | w[0];
  const std::uint64_t b = std::uint64_t{w[3]} << 32 | w[2];
  const double u1 = static_cast<double>((a >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double angle = 6.283185307179586476925286766559 * u2;
  pair[0] = r * std::cos(angle);
  pair[1] = r * std::sin(angle);
}

void BM_OldStdLogBoxMuller(benchmark::State& state) {
  const auto n = state.range(0);
  std::vector<double> out(static_cast<std::size_t>(n));
  std::uint64_t first = 0;
  for (auto _ : state) {
    for (std::int64_t p = 0; p < n / 2; ++p) {
      double pair[2];
      old_box_muller(rnd::philox_block(7, 0, rnd::Kind::normal, first + static_cast<std::uint64_t>(p)), pair);
      out[static_cast<std::size_t>(2 * p)] = pair[0];
      out[static_cast<std::size_t>(2 * p + 1)] = pair[1];
    }
    first += static_cast<std::uint64_t>(n / 2);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

void BM_StdNormalMt19937_64(benchmark::State& state) {
  const auto n = state.range(0);
  std::vector<double> out(static_cast<std::size_t>(n));
  std::mt19937_64 eng(7);
  std::normal_distribution<double> nd;
  for (auto _ : state) {
    for (auto& x : out) x = nd(eng);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

BENCHMARK(BM_StreamNormals)->Arg(4096)->Arg(1 << 20);
BENCHMARK(BM_StreamNormalScalar)->Arg(4096);
BENCHMARK(BM_FillIsa)->ArgsProduct({{0, 1, 2}, {4096}});
BENCHMARK(BM_OldStdLogBoxMuller)->Arg(4096);
BENCHMARK(BM_StdNormalMt19937_64)->Arg(4096);

}  // namespace

BENCHMARK_MAIN();
