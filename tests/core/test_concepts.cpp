// Compile-time tests of the concepts: every shipped type conforms, near-miss types are rejected.
// Catches: a shipped type silently drifting from its concept (e.g. flow losing its return value), and a
// concept that accepts anything (a requirement list that checks nothing).
#include <doctest/doctest.h>

#include <type_traits>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/random.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/run/metric_spec.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>
#include <sgmcmc/modules/recipe/metric.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/banana.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/poisson.hpp>
#include <sgmcmc/models/shard.hpp>
#include <sgmcmc/models/uniform.hpp>
#include <sgmcmc/models/vmf_mixture.hpp>
#include <sgmcmc/models/vmf_mixture_posterior.hpp>
#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/psgld.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

using namespace sgmcmc;

namespace {
// Near misses: each lacks exactly one requirement.
struct NotAManifold {};
struct ManifoldWithoutFlow {
  using Point = Eigen::VectorXd;
  Eigen::Index ambient_size() const { return 1; }
  Eigen::Index intrinsic_dim() const { return 1; }
  void project(const Point&, Point&) const {}
  double distance_to(const Point&) const { return 0; }
  template <class R> Point random_point(R&) const { return Point(1); }
};
struct ManifoldWithVoidFlow : ManifoldWithoutFlow {
  void flow(Point&, Point&, double) const {}  // no reflection count: rejected
};
struct ManifoldWithFlow : ManifoldWithoutFlow {
  std::uint64_t flow(Point&, Point&, double) const { return 0; }
};
struct PotentialWithoutRng {
  void gradient(const Eigen::VectorXd&, Eigen::VectorXd&) const {}
};
struct DynamicsWithoutO {
  struct State {};
  void A(State&, double) const {}
  void B(State&, double) const {}
  void B_explicit(State&, double) const {}
};
// The minimal Dynamics: A, B, O and no first-order friction (only the Euler scheme needs B_explicit).
struct DynamicsWithoutExplicitFriction {
  struct State {};
  void A(State&, double) const {}
  void B(State&, double) const {}
  template <class P, class R> void O(State&, const P&, double, R&) const {}
};
struct FusableMinimalDynamics : DynamicsWithoutExplicitFriction {
  template <class P, class R> bool fused_ABOBA(State&, const ABOBATimes&, const P&, R&) const { return false; }
};
struct DynamicsWithVoidFusion : DynamicsWithoutExplicitFriction {  // must say whether it fused
  template <class P, class R> void fused_ABOBA(State&, const ABOBATimes&, const P&, R&) const {}
};
// Leimkuhler & Matthews's operations: the minimal opt-in, and near misses.
struct MinimalDynamicsWithExactOU : DynamicsWithoutExplicitFriction {
  template <class P, class R> void gradient_kick(State&, const P&, double, R&) const {}
  template <class R> void exact_ou(State&, double, double, R&) const {}
};
struct DynamicsWithKickOnly : DynamicsWithoutExplicitFriction {  // a gradient kick but no OU step
  template <class P, class R> void gradient_kick(State&, const P&, double, R&) const {}
};
struct DynamicsWithOUWithoutKickVariance : DynamicsWithoutExplicitFriction {  // an OU that cannot correct for the kicks' noise
  template <class P, class R> void gradient_kick(State&, const P&, double, R&) const {}
  template <class R> void exact_ou(State&, double, R&) const {}
};
struct ExactOUWithoutO : DynamicsWithoutO {  // the L–M operations do not replace the minimal contract
  template <class P, class R> void gradient_kick(State&, const P&, double, R&) const {}
  template <class R> void exact_ou(State&, double, double, R&) const {}
};
// Fused sweeps: the hook with the concrete ChunkKick, and near misses.
struct ManifoldWithFusedSweepHook : ManifoldWithFlow {
  std::uint64_t flow_kick_flow(Point&, Point&, double, ChunkKick, double) const { return 0; }
};
struct ManifoldWithVoidFusedSweep : ManifoldWithFlow {  // no reflection count
  void flow_kick_flow(Point&, Point&, double, ChunkKick, double) const {}
};
struct ManifoldWithOldProjectFlow : ManifoldWithFlow {  // the retired hook: not a fused sweep
  std::uint64_t project_flow(Point&, Point&, double) const { return 0; }
};
// Separable potentials: the chunk form, and near misses.
struct SeparableQuadratic {
  bool is_separable() const { return true; }
  void partial(Eigen::Index, Eigen::Index, const double*, double*) const {}
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto&) const { g = x; }
};
struct ScalarPartialPotential {  // the retired per-coordinate form partial(i, x_i)
  bool is_separable() const { return true; }
  double partial(Eigen::Index, double xi) const { return xi; }
};
struct PartialWithoutFlag {
  void partial(Eigen::Index, Eigen::Index, const double*, double*) const {}
};
struct EngineWithoutBelow {
  double normal();
  void normals(Eigen::Ref<Eigen::VectorXd>);
  double uniform();
};
// An engine with every draw but no batch counter: a RandomEngine, not a MinibatchEngine.
struct EngineWithoutBatches {
  double normal();
  void normals(Eigen::Ref<Eigen::VectorXd>);
  double uniform();
  std::uint64_t below(std::uint64_t);
};
struct MinimalMinibatchEngine : EngineWithoutBatches {
  std::uint64_t next_batch();
  std::uint64_t seed() const;
  std::uint32_t stream_id() const;
};
// Samplers: a minimal conforming one, and near misses.
struct MinimalSampler {
  struct State {
    Eigen::VectorXd x;
  };
  static constexpr Statistics statistics{Statistics{} | stats::step_size};
  template <class R> State init(Eigen::VectorXd x0, R&) const { return {std::move(x0)}; }
  template <class P, class R> StepInfo step(State&, const P&, R&, std::uint64_t) const { return {}; }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};
struct SamplerWithVectorAsManifold : MinimalSampler {
  Eigen::VectorXd manifold_of() const;
};
struct SamplerReturningDouble : MinimalSampler {  // the old contract: a bare acceptance double
  template <class P, class R> double step(State&, const P&, R&, std::uint64_t) const { return 1.0; }
};
struct SamplerWithoutStatistics {
  struct State {
    Eigen::VectorXd x;
  };
  template <class R> State init(Eigen::VectorXd x0, R&) const { return {std::move(x0)}; }
  template <class P, class R> StepInfo step(State&, const P&, R&, std::uint64_t) const { return {}; }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};
struct SamplerWithoutDescribe {
  struct State {
    Eigen::VectorXd x;
  };
  static constexpr Statistics statistics{};
  template <class R> State init(Eigen::VectorXd x0, R&) const { return {std::move(x0)}; }
  template <class P, class R> StepInfo step(State&, const P&, R&, std::uint64_t) const { return {}; }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
};
struct SamplerWithPositionByValue : MinimalSampler {  // a copy per call: the driver reads it every step
  Eigen::VectorXd position(const State& s) const { return s.x; }
};
struct SamplerCheckingState : MinimalSampler {
  std::string check_state(const State&, std::uint64_t) const { return {}; }
};
struct SamplerCheckingStateAsBool : MinimalSampler {  // a yes/no cannot say what is wrong
  bool check_state(const State&, std::uint64_t) const { return true; }
};
struct GibbsPotential {
  void gradient(const Eigen::VectorXd&, Eigen::VectorXd&, auto&) const {}
  void after_step(const Eigen::VectorXd&, std::uint64_t, const random::Stream&) {}
};
}  // namespace

struct MetricWithoutEvaluate {
  void validate() const {}
};
static_assert(recipe::Metric<recipe::metric::LevelSet> && recipe::Metric<run::AnyMetric>);
static_assert(!recipe::Metric<MetricWithoutEvaluate> && !recipe::Metric<recipe::metric::Value>);

static_assert(Sampler<MinimalSampler>);
static_assert(SamplerWithStateCheck<SamplerCheckingState> && !SamplerWithStateCheck<SamplerCheckingStateAsBool>);
static_assert(!SamplerWithStateCheck<MinimalSampler> && !SamplerWithStateCheck<sgld::Sampler<Euclidean>>);
static_assert(SamplerWithStateCheck<preconditioned::Sampler<sgld::Sampler<Euclidean>>>);
static_assert(!Sampler<SamplerReturningDouble>);
// recipe::ScalarGenericField: a D or Q that autodiff can differentiate (generic over the scalar); one
// written for doubles only is not, and recipe::Fields then says so in one static_assert, before Eigen.
inline constexpr auto generic_d = [](const auto& z) {
  using T = typename std::decay_t<decltype(z)>::Scalar;
  return Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>::Identity(z.size(), z.size());
};
inline constexpr auto double_d = [](const Eigen::VectorXd& z) { return Eigen::MatrixXd::Identity(z.size(), z.size()); };
static_assert(recipe::ScalarGenericField<decltype(generic_d)>);
static_assert(!recipe::ScalarGenericField<decltype(double_d)>);
// SamplerOnManifold: the samplers that hold a manifold say which (the driver checks kept draws against
// it); a sampler without one, or whose manifold_of() is not a Manifold, is not one.
static_assert(SamplerOnManifold<sgld::Sampler<Sphere>> && SamplerOnManifold<hmc::Sampler<Euclidean>>);
static_assert(SamplerOnManifold<sghmc::Sampler<Sphere>> && SamplerOnManifold<sgnht::Sampler<Euclidean>>);
static_assert(SamplerOnManifold<preconditioned::Sampler<sgld::Sampler<Euclidean>>> && SamplerOnManifold<psgld::Sampler>);
static_assert(!SamplerOnManifold<MinimalSampler> && !SamplerOnManifold<scir::Sampler>);
static_assert(!SamplerOnManifold<SamplerWithVectorAsManifold>);
static_assert(!Sampler<SamplerWithoutStatistics>);
static_assert(!Sampler<SamplerWithoutDescribe>);
static_assert(!Sampler<SamplerWithPositionByValue>);
static_assert(Sampler<sgld::Sampler<Euclidean>, models::Gaussian, random::Stream>);
static_assert(Sampler<sghmc::Sampler<Euclidean>, models::Gaussian, random::Stream>);
static_assert(Sampler<sghmc::Sampler<Sphere>> && Sampler<sgnht::Sampler<Stiefel>> && Sampler<hmc::Sampler<Simplex>>);
static_assert(Sampler<scir::Sampler> && Sampler<sgrld::ExpandedMean> && Sampler<recipe::Sampler<recipe::Constant>>);
static_assert(Sampler<sgrld::Sampler<recipe::metric::LevelSet>> && Sampler<sgrhmc::Sampler<recipe::metric::LevelSet>>);
static_assert(sgnht::Sampler<Euclidean>::statistics.has(stats::thermostat));
static_assert(!sghmc::Sampler<Euclidean>::statistics.has(stats::thermostat));
static_assert(hmc::Sampler<Euclidean>::statistics.has(stats::acceptance));

static_assert(MinibatchEngine<random::Stream> && MinibatchEngine<MinimalMinibatchEngine>);
static_assert(RandomEngine<EngineWithoutBatches> && !MinibatchEngine<EngineWithoutBatches>);
static_assert(SplittableNormals<random::Stream> && !SplittableNormals<MinimalMinibatchEngine>);

static_assert(PotentialWithAfterStep<GibbsPotential, random::Stream>);
static_assert(!PotentialWithAfterStep<models::Gaussian, random::Stream>);
// A temperature schedule: the run layer's target is set to step t's U/T_t; a model is the same at every step.
static_assert(ScheduledPotential<run::AnyTarget>);
static_assert(!ScheduledPotential<models::Gaussian> && !ScheduledPotential<const run::AnyTarget>);
// The pointwise log-likelihood an output writes on request: the data models give log p(y_i | θ); a
// potential without examples (a closed-form target), or one whose log_likelihood returns a value
// instead of filling every example's, has none.
struct LikelihoodAsOneNumber {
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto&) const { g = x; }
  Eigen::Index examples() const { return 1; }
  double log_likelihood(const Eigen::VectorXd& x) const { return -x.squaredNorm(); }
};
static_assert(PotentialWithPointwiseLikelihood<run::AnyTarget>);
static_assert(!PotentialWithPointwiseLikelihood<models::Gaussian> && !PotentialWithPointwiseLikelihood<LikelihoodAsOneNumber>);
static_assert(models::PointwiseLikelihoodModel<models::LogisticRegression> && models::PointwiseLikelihoodModel<models::PoissonRegression> &&
              models::PointwiseLikelihoodModel<models::Bpmf> && models::PointwiseLikelihoodModel<models::Bnn>);
static_assert(!models::PointwiseLikelihoodModel<models::Shard<models::LogisticRegression>>);  // a shard holds part of the examples
// Sampled on one scale, reported on another (the glm target): both maps, returning a point.
struct ReportsOnly {  // a forward map alone cannot read a draw back
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto&) const { g = x; }
  Eigen::VectorXd reported(const Eigen::VectorXd& x) const { return x; }
};
struct MapsInPlace {  // maps that write into an argument are not the concept's
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto&) const { g = x; }
  void reported(const Eigen::VectorXd& x, Eigen::VectorXd& y) const { y = x; }
  void sampled(const Eigen::VectorXd& y, Eigen::VectorXd& x) const { x = y; }
};
static_assert(ReparametrisedPotential<run::AnyTarget>);
static_assert(!ReparametrisedPotential<models::Gaussian> && !ReparametrisedPotential<ReportsOnly> && !ReparametrisedPotential<MapsInPlace>);
// SCIR's potential: the Dirichlet's Gamma shapes, not a gradient (and a gradient is not enough).
static_assert(ConcentrationPotential<models::Dirichlet>);
static_assert(!ConcentrationPotential<models::Gaussian>);
static_assert(Sampler<scir::Sampler, models::Dirichlet>);
static_assert(!Sampler<scir::Sampler, models::Gaussian>);
// A potential whose gradient forgets the engine is no potential for any gradient sampler.
struct GradientWithoutEngine {
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { g = x; }
};
static_assert(!PotentialFor<GradientWithoutEngine, random::Stream>);
static_assert(PotentialFor<models::Gaussian, random::Stream>);
static_assert(!Sampler<sghmc::Sampler<Euclidean>, GradientWithoutEngine, random::Stream>);
static_assert(!Sampler<sgld::Sampler<Euclidean>, GradientWithoutEngine, random::Stream>);
static_assert(Sampler<sgld::Sampler<Euclidean>, models::Gaussian, random::Stream>);

static_assert(Observer<StopAfter> && Observer<WallClockBudget> && Observer<KeepDraws> && Observer<Progress>);
static_assert(!Observer<Retention>);
static_assert(Observer<StopOnNonFinite>);
static_assert(ObserverWithLimit<StopAfter>);  // StopAfter{0} takes no step
static_assert(!ObserverWithLimit<WallClockBudget> && !ObserverWithLimit<StopOnNonFinite>);

static_assert(Manifold<Euclidean>);
// Block manifolds take Eigen::Ref blocks (products and AnyManifold pass segments without copies); the
// shipped fused sweeps do too, so the type-erased CLI path keeps them (a manifold with `Point&` members
// is still a Manifold, copied at the type-erasure boundary).
static_assert(BlockManifold<Euclidean> && BlockManifold<Sphere>);
static_assert(BlockManifoldWithFusedSweep<Euclidean> && BlockManifoldWithFusedSweep<Sphere>);
static_assert(Manifold<ManifoldWithFlow> && !BlockManifold<ManifoldWithFlow> && !BlockManifoldWithFusedSweep<ManifoldWithFlow>);
static_assert(Manifold<ManifoldWithFlow>);
static_assert(!Manifold<NotAManifold>);
static_assert(!Manifold<ManifoldWithoutFlow>);
static_assert(!Manifold<ManifoldWithVoidFlow>);

static_assert(RandomEngine<random::Stream>);
static_assert(!RandomEngine<EngineWithoutBelow>);

static_assert(PotentialWithValue<models::Gaussian>);
static_assert(PotentialWithValue<models::DoubleWell>);
static_assert(PotentialWithValue<models::Banana>);
static_assert(PotentialWithValue<models::WithGradientNoise<models::DoubleWell>>);
static_assert(PotentialWithValue<models::Linear>);
static_assert(PotentialWithValue<models::VmfMixture>);
static_assert(PotentialWithValue<models::Dirichlet>);
static_assert(PotentialWithValue<models::Uniform>);
static_assert(models::DataModel<models::VmfMixturePosterior>);
static_assert(PotentialWithValue<models::Minibatch<models::VmfMixturePosterior>>);
// One-pass U and ∇U is optional: a model without the block hooks has only the two passes.
static_assert(!PotentialWithValueAndGradient<models::Minibatch<models::VmfMixturePosterior>>);
static_assert(!PotentialWithValueAndGradient<models::Gaussian>);
static_assert(PotentialWithNoiseEstimate<models::Minibatch<models::VmfMixturePosterior>>);
static_assert(!PotentialWithNoiseEstimate<models::Gaussian>);
static_assert(SeparablePotential<models::Gaussian>);
static_assert(!SeparablePotential<models::Banana>);
static_assert(SeparablePotential<SeparableQuadratic> && Potential<SeparableQuadratic>);
static_assert(!SeparablePotential<ScalarPartialPotential> && !SeparablePotential<PartialWithoutFlag>);
static_assert(!SeparablePotential<models::WithGradientNoise<models::Gaussian>>);  // its gradient draws: not separable
static_assert(!Potential<PotentialWithoutRng>);

static_assert(Manifold<Sphere> && Manifold<Simplex> && Manifold<Stiefel> && Manifold<DynamicProduct>);
static_assert(Manifold<Product<Sphere, Sphere>> && Manifold<Power<Sphere>>);
static_assert(Dynamics<sghmc::Dynamics<Sphere>> && Dynamics<sgnht::Dynamics<Stiefel>>);

static_assert(Dynamics<sghmc::Dynamics<Euclidean>>);
static_assert(Dynamics<sgnht::Dynamics<Euclidean>>);
static_assert(!Dynamics<DynamicsWithoutO>);
// B_explicit left the minimal contract: only the Euler scheme's refinement needs it.
static_assert(Dynamics<DynamicsWithoutExplicitFriction> && !DynamicsWithExplicitFriction<DynamicsWithoutExplicitFriction>);
static_assert(DynamicsWithExplicitFriction<sghmc::Dynamics<Euclidean>> && DynamicsWithExplicitFriction<sgnht::Dynamics<Sphere>>);
// Leimkuhler & Matthews's gradient-only kick and exact OU (splitting::lm_baoab): SGHMC has them on every
// manifold; SGNHT has not (its friction ξ is a state variable).
static_assert(DynamicsWithExactOU<sghmc::Dynamics<Euclidean>> && DynamicsWithExactOU<sghmc::Dynamics<Sphere>> &&
              DynamicsWithExactOU<sghmc::Dynamics<DynamicProduct>>);
static_assert(!DynamicsWithExactOU<sgnht::Dynamics<Euclidean>> && !DynamicsWithExactOU<sgnht::Dynamics<Sphere>>);
static_assert(DynamicsWithExactOU<MinimalDynamicsWithExactOU>);
static_assert(!DynamicsWithExactOU<DynamicsWithKickOnly> && !DynamicsWithExactOU<DynamicsWithOUWithoutKickVariance>);
static_assert(!DynamicsWithExactOU<ExactOUWithoutO> && !DynamicsWithExactOU<DynamicsWithoutExplicitFriction>);
// The dynamics half of the fused sweep.
static_assert(FusableDynamics<sghmc::Dynamics<Euclidean>> && FusableDynamics<sghmc::Dynamics<Sphere>>);
static_assert(FusableDynamics<sgnht::Dynamics<Euclidean>> && FusableDynamics<sgnht::Dynamics<DynamicProduct>>);
static_assert(FusableDynamics<FusableMinimalDynamics>);
static_assert(!FusableDynamics<DynamicsWithoutExplicitFriction> && !FusableDynamics<DynamicsWithVoidFusion>);
// The manifold half: a named concept over one concrete kick type.
static_assert(ManifoldWithFusedSweep<Euclidean> && ManifoldWithFusedSweep<Sphere>);
static_assert(ManifoldWithFusedSweep<Product<Sphere, Euclidean>> && ManifoldWithFusedSweep<Power<Sphere>> &&
              ManifoldWithFusedSweep<DynamicProduct>);
static_assert(!ManifoldWithFusedSweep<Simplex> && !ManifoldWithFusedSweep<Stiefel>);  // the plain sequence applies
static_assert(ManifoldWithFusedSweep<ManifoldWithFusedSweepHook>);
static_assert(!ManifoldWithFusedSweep<ManifoldWithVoidFusedSweep> && !ManifoldWithFusedSweep<ManifoldWithOldProjectFlow>);
// ChunkKick is a non-owning function reference: two words, trivially copyable, from any (begin, end) callable.
static_assert(std::is_trivially_copyable_v<ChunkKick> && sizeof(ChunkKick) == 2 * sizeof(void*));
static_assert(std::is_constructible_v<ChunkKick, decltype([](Eigen::Index, Eigen::Index) {})&>);
static_assert(!std::is_constructible_v<ChunkKick, int> && !std::is_constructible_v<ChunkKick, decltype([](double*) {})&>);
static_assert(Scheme<splitting::StageList>);

TEST_CASE("schemes are palindromic where they claim second order") {
  // Catches: a typo in a stage list that breaks the symmetry ABOBA/BAOAB/OBABO need for weak order 2.
  // splitting::baoab: the seed papers' letters (B friction, O noisy kick), not Leimkuhler & Matthews's (lm_baoab).
  for (const auto& s : {splitting::aboba, splitting::baoab, splitting::obabo, splitting::lm_baoab}) {
    CHECK(s.second_order);
    CHECK(s.palindromic());
  }
  CHECK_FALSE(splitting::euler.second_order);
  for (const auto& s : {splitting::aboba, splitting::baoab, splitting::obabo}) {
    const auto st = s.stages();
    double total_a = 0, total_o = 0;
    for (std::size_t i = 0; i < st.size(); ++i) {
      CHECK(st[i].op == st[st.size() - 1 - i].op);
      CHECK(st[i].fraction == st[st.size() - 1 - i].fraction);
      if (st[i].op == Op::A) total_a += st[i].fraction;
      if (st[i].op == Op::O) total_o += st[i].fraction;
    }
    CHECK(total_a == 1.0);  // the flow covers one whole step
    CHECK(total_o == 1.0);  // the kicks add to one whole step
  }
  // Leimkuhler & Matthews's BAOAB: palindromic too, in its own letters, and none of the seed's.
  const auto lm = splitting::lm_baoab.stages();
  for (std::size_t i = 0; i < lm.size(); ++i) {
    CHECK(lm[i].op == lm[lm.size() - 1 - i].op);
    CHECK(lm[i].fraction == lm[lm.size() - 1 - i].fraction);
    CHECK(lm[i].op != Op::B);
    CHECK(lm[i].op != Op::O);
  }
  CHECK(splitting::lm_baoab.leimkuhler_matthews());
  CHECK(!splitting::baoab.leimkuhler_matthews());
  CHECK(splitting::scheme_by_name("lm_baoab").name == "lm_baoab");
  CHECK(splitting::scheme_by_name("baoab").stages()[0].op == Op::B);  // the config name keeps the seed's meaning
  CHECK_THROWS_WITH_AS(splitting::scheme_by_name("abba"), doctest::Contains("unknown scheme 'abba'"), Error);
  CHECK_THROWS_WITH_AS(splitting::scheme_by_name("abba"), doctest::Contains("lm_baoab, Leimkuhler & Matthews's BAOAB"), Error);
}
