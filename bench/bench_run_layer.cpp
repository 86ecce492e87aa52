// ns per step of the run layer itself (issue #11 item 7): SGHMC, ABOBA, h = 0.05, C = 1 on N(0, I_d) at
// small d ∈ {1, 10, 100}, where a fixed per-step cost shows, advanced in chunks of 1,000 steps that keep
// no draw (burn-in beyond the chunk), three ways in one binary:
//   Concrete - sgmcmc::Chain<sghmc::Sampler<Euclidean>, models::Gaussian> (driver/chain.hpp), everything
//              known at compile time: what a library user writes;
//   Erased   - sgmcmc::Chain<sghmc::Sampler<AnyManifold>, run::AnyTarget> built by hand: the same
//              driver loop with the manifold and the target behind their vtables (the sampler the
//              registry builds), but no AnyChain;
//   Cli      - the CLI's own path: a JSON config parsed with the shipped registry (run::parse_config),
//              chain 0 built by run::make_chain (an AnyChain), advanced by its virtual `advance` one
//              chunk at a time, as run::run does for a whole run.
// All three start from the point the CLI's chain 0 starts from (Euclidean::random_point on stream 0 of
// the seed, then the same stream), so after the timed steps their positions must agree to the bit
// (counter `same_bits` = 1; the run stops with an error otherwise). Counter `per_step` = CPU time per
// step. Cli − Concrete is the cost per step of AnyManifold/AnyTarget indirection plus one AnyChain call
// per chunk; Erased separates the two.
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include <Eigen/Core>
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/any_manifold.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace {

using namespace sgmcmc;
using Eigen::VectorXd;

constexpr double h = 0.05, friction = 1.0;
constexpr std::uint64_t seed = 42, chunk = 1000;
const Retention keep_none = Retention::none();  // no draw kept: the loop alone is measured

run::json config(Eigen::Index d) {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", h}, {"friction", friction}, {"scheme", "aboba"}}},
          {"manifold", {{"name", "euclidean"}, {"dim", d}}},
          {"target", {{"name", "gaussian"}, {"cov", 1}}},
          {"steps", chunk}, {"chains", 1}, {"seed", seed}};
}

/// The CLI's chain 0 start: x0 = random_point on stream 0, the chain continuing that stream.
std::pair<VectorXd, random::Stream> start(Eigen::Index d) {
  random::Stream rng(seed, 0);
  VectorXd x0 = AnyManifold(Euclidean(d)).random_point(rng);
  return {std::move(x0), rng};
}

void set_counters(benchmark::State& state, bool same) {
  state.counters["per_step"] = benchmark::Counter(static_cast<double>(chunk), benchmark::Counter::kIsIterationInvariantRate |
                                                                                  benchmark::Counter::kInvert);
  state.counters["same_bits"] = same ? 1.0 : 0.0;
  if (!same) state.SkipWithError("the concrete and the type-erased chains disagree");
}

using ConcreteChain = Chain<sghmc::Sampler<Euclidean>, models::Gaussian>;
using ErasedChain = Chain<sghmc::Sampler<AnyManifold>, run::AnyTarget>;

ConcreteChain concrete(Eigen::Index d) {
  auto [x0, rng] = start(d);
  return ConcreteChain(sghmc::Sampler<Euclidean>{{Euclidean(d), sghmc::Friction(friction), 0.0}, splitting::aboba,
                                                 schedule::StepSize::constant(h)},
                       models::Gaussian::isotropic(VectorXd::Zero(d), 1.0), std::move(x0), rng);
}

/// The position of the concrete chain after `steps` steps: the reference every variant must match.
VectorXd reference(Eigen::Index d, std::uint64_t steps) {
  auto c = concrete(d);
  Draws out;
  if (!c.advance(steps, keep_none, out).ok()) return {};
  return c.position();
}

// Advances a concrete chain in chunks; checks it ends on the reference bits.
template <class C>
void advance_chunks(benchmark::State& state, C& c) {
  Draws out;
  bool ok = true;
  for (auto _ : state) {
    ok = c.advance(chunk, keep_none, out).ok() && ok;
    benchmark::DoNotOptimize(c.state.x.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, ok && c.position() == reference(state.range(0), c.steps_done));
}

void BM_Concrete(benchmark::State& state) {
  auto c = concrete(state.range(0));
  advance_chunks(state, c);
}

void BM_Erased(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  auto [x0, rng] = start(d);
  ErasedChain c(sghmc::Sampler<AnyManifold>{{AnyManifold(Euclidean(d)), sghmc::Friction(friction), 0.0}, splitting::aboba,
                                            schedule::StepSize::constant(h)},
                run::AnyTarget(models::Gaussian::isotropic(VectorXd::Zero(d), 1.0)), std::move(x0), rng);
  advance_chunks(state, c);
}

void BM_Cli(benchmark::State& state) {
  const Eigen::Index d = state.range(0);
  static const run::Registry registry = run::builtin_registry();
  const run::RunConfig cfg = run::parse_config(config(d), registry);
  std::unique_ptr<run::AnyChain> c = run::make_chain(cfg, 0);
  Draws out;
  bool ok = true;
  for (auto _ : state) {
    ok = c->advance(chunk, keep_none, out, nullptr, nullptr).ok() && ok;
    benchmark::DoNotOptimize(c->position().data());
    benchmark::ClobberMemory();
  }
  set_counters(state, ok && c->position() == reference(d, c->steps_done()));
}

void dims(benchmark::internal::Benchmark* b) {
  for (const std::int64_t d : {1, 10, 100}) b->Arg(d);
}

BENCHMARK(BM_Concrete)->Apply(dims);
BENCHMARK(BM_Erased)->Apply(dims);
BENCHMARK(BM_Cli)->Apply(dims);

}  // namespace

BENCHMARK_MAIN();
