// ns per coordinate-step of SGHMC with the ABOBA scheme on N(0, I_d), in one binary:
//   Library  - sghmc::Sampler<Euclidean>::step, as a user calls it; the isotropic Gaussian is a
//              SeparablePotential, so the step is one fused sweep (Euclidean's flow_kick_flow with the
//              dynamics' chunk kick computing the gradient chunk by chunk);
//   LibraryBlackBox - the same sampler and target behind a plain gradient(x, g, rng) (not separable):
//              the first flow and the gradient each sweep the whole vector before the fused sweep;
//   LibraryGradNoise - the same sampler on models::WithGradientNoise<models::Gaussian> with σ = 1, the
//              library's own way to add N(0, σ²I) to the gradient (a bulk fill of d normals and one
//              vector update after the model's gradient; not separable, so the black-box path): the
//              baseline of `sgmcmc run` with "grad_noise": 1 (docs/benchmarks.md, issue #11 item 7);
//   Hand     - the same mathematics as one hand-fused loop with the same RNG: Stream::normals into a
//              buffer, then x += h/2 v; v *= e; g = x; v = v - h g + sd ζ; v *= e; x += h/2 v;
//   Floor    - x += a·y over the same d: the memory traffic floor of touching a d-vector at all.
// Counter `per_coord` = CPU time per step / d. scripts/bench.sh runs this with repetitions and prints
// the median (and fastest) ratios Library/Hand and Library/Floor (docs/benchmarks.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace {

using sgmcmc::random::Stream;

constexpr double h = 0.05;        // step size
constexpr double friction = 1.0;  // C
constexpr std::uint64_t seed = 42;

void set_counters(benchmark::State& state, Eigen::Index d) {
  // kIsIterationInvariantRate·kInvert turns d per iteration into time / (iterations·d): seconds per coordinate.
  state.counters["per_coord"] = benchmark::Counter(static_cast<double>(d),
                                                      benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
  state.counters["d"] = static_cast<double>(d);
}

// The library's SGHMC ABOBA step on `target` (built for dimension d), one step per iteration.
template <class MakeTarget>
void library_steps(benchmark::State& state, MakeTarget make_target) {
  const Eigen::Index d = state.range(0);
  using namespace sgmcmc;
  const sghmc::Sampler<Euclidean> sampler{sghmc::Dynamics<Euclidean>{Euclidean(d), sghmc::Friction(friction), 0.0},
                                          splitting::aboba, schedule::StepSize::constant(h)};
  const auto target = make_target(d);
  Stream rng(seed, 0);
  auto s = sampler.init(Eigen::VectorXd::Zero(d), rng);
  std::uint64_t t = 0;
  for (auto _ : state) {
    sampler.step(s, target, rng, t++);
    benchmark::DoNotOptimize(s.x.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d);
}

sgmcmc::models::Gaussian standard_normal(Eigen::Index d) { return sgmcmc::models::Gaussian::isotropic(Eigen::VectorXd::Zero(d), 1.0); }

void BM_Library(benchmark::State& state) { library_steps(state, standard_normal); }

// The isotropic Gaussian without its SeparablePotential members: the sampler must call gradient(x, g)
// on the whole vector, as for any black-box (e.g. minibatch) potential.
struct BlackBoxGaussian {
  sgmcmc::models::Gaussian target;
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const { target.gradient(x, g, rng); }
};

void BM_LibraryBlackBox(benchmark::State& state) {
  library_steps(state, [](Eigen::Index d) { return BlackBoxGaussian{standard_normal(d)}; });
}

// The CLI's grad_noise: N(0, σ²I) added to the gradient, the library's way (models/gradient_noise.hpp).
void BM_LibraryGradNoise(benchmark::State& state) {
  library_steps(state, [](Eigen::Index d) { return sgmcmc::models::WithGradientNoise<sgmcmc::models::Gaussian>{standard_normal(d), 1.0}; });
}

// A competent hand-written step: one fused pass over x, v and the noise buffer (the normals must be
// drawn before the pass, as the library's kick does: in bulk, from the same stream).
void BM_Hand(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d), v(d), zeta(d);
  Stream rng(seed, 0);
  rng.normals(v);
  const double e = std::exp(-friction * h / 2), sd = std::sqrt(2.0 * friction * h), hh = h / 2;
  for (auto _ : state) {
    rng.normals(zeta);
    double* __restrict xp = x.data();
    double* __restrict vp = v.data();
    const double* __restrict zp = zeta.data();
    for (Eigen::Index i = 0; i < d; ++i) {
      double xi = xp[i], vi = vp[i];
      xi += hh * vi;
      vi *= e;
      const double g = xi;  // ∇U for N(0, I)
      vi = vi - h * g + sd * zp[i];
      vi *= e;
      xi += hh * vi;
      xp[i] = xi;
      vp[i] = vi;
    }
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d);
}

void BM_Floor(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d), y = Eigen::VectorXd::Ones(d);
  const double a = 1e-9;
  for (auto _ : state) {
    double* __restrict xp = x.data();
    const double* __restrict yp = y.data();
    for (Eigen::Index i = 0; i < d; ++i) xp[i] += a * yp[i];
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d);
}

// The two passes a black-box gradient adds (LibraryBlackBox) and the separable one-sweep path (Library)
// avoids, measured alone: the first A(h/2) (the position must be materialised before a black-box
// gradient is called) and the model's gradient (g = Σ⁻¹(x - μ) in its own pass). Their sum is the
// expected LibraryBlackBox - Library gap.
void BM_FlowPass(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  const sgmcmc::Euclidean m(d);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d), v = Eigen::VectorXd::Ones(d);
  for (auto _ : state) {
    m.flow(x, v, 1e-9);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d);
}

void BM_GradientPass(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  const auto target = sgmcmc::models::Gaussian::isotropic(Eigen::VectorXd::Zero(d), 1.0);
  Eigen::VectorXd x = Eigen::VectorXd::Ones(d), g(d);
  Stream rng(seed, 0);
  for (auto _ : state) {
    target.gradient(x, g, rng);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d);
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void dims(benchmark::internal::Benchmark* b) {
  for (const std::int64_t d : {10, 1000, 100000, 1000000}) b->Arg(d);
  // With repetitions, also report the fastest one: on a shared machine the least disturbed run.
  b->ComputeStatistics("min", min_of);
}

BENCHMARK(BM_Library)->Apply(dims);
BENCHMARK(BM_LibraryBlackBox)->Apply(dims);
BENCHMARK(BM_LibraryGradNoise)->Apply(dims);
BENCHMARK(BM_Hand)->Apply(dims);
BENCHMARK(BM_Floor)->Apply(dims);
BENCHMARK(BM_FlowPass)->Apply(dims);
BENCHMARK(BM_GradientPass)->Apply(dims);

}  // namespace

BENCHMARK_MAIN();
