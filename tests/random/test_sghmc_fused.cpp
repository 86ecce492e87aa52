// The fused ABOBA sweep (a FusableDynamics' fused_ABOBA running the manifold's flow_kick_flow with the
// dynamics' chunk kick; docs/architecture.md, "Fused paths: one hook") against the plain sub-step walk
// A, B, O, B, A: on flat space both must give the same state to the bit, for SGHMC and SGNHT. It lives
// with the random tests because what it guards is mostly the draw order: the fused path draws the
// kick's noise chunk by chunk from an engine with SplittableNormals, and whole before the sweep from
// any other engine.
// Catches: a fused path that reorders floating-point operations (different last bits), draws the
// kick's noise before the stochastic gradient's own draws, loses a chunk tail, uses the wrong
// fractions of h, or forgets the gradient/reflection counters. And, with the chunk kick:
// - a chunk boundary (d = 1023, 1024, 1025, 5000: several chunks and a tail) where a chunk is skipped,
//   kicked twice, or kicked before its first flow (the separable path reads x inside the sweep);
// - an engine without SplittableNormals drawing in chunks anyway (it would need normals(ptr, n)), or
//   drawing its whole fill at another point of the draw order (a test-local engine that has no chunked
//   fill, checked against the walk and against the Stream it wraps);
// - SGNHT's thermostat updated from a stale ‖v‖² or damping with ξ from before the first flow;
// - a separable potential's inlined partial differing from its gradient (a wrong offset into μ);
// - on the sphere (and products with sphere factors), a fused sweep that disagrees with the walk by
//   more than rounding (its projected speed is computed by an algebraically equal formula, so it is
//   checked to 1e-12, not to the bit).
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>

#include <Eigen/Core>

#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/modules/splitting/step.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

/// A Gaussian whose stochastic gradient draws from the driver's RNG (a minibatch stand-in), so the
/// order of the gradient's and the kick's draws shows in the result. Not separable.
struct NoisyGaussian {
  models::Gaussian g;
  template <class R>
  void gradient(const VectorXd& x, VectorXd& out, R& rng) const {
    g.exact_gradient(x, out);
    for (Eigen::Index i = 0; i < out.size(); ++i) out[i] += 0.1 * rng.normal();
  }
};
static_assert(!SeparablePotential<NoisyGaussian> && SeparablePotential<models::Gaussian>);

/// A Stream behind the plain RandomEngine interface: no normals(ptr, n), so not SplittableNormals.
struct WholeFillEngine {
  random::Stream stream;
  double normal() { return stream.normal(); }
  void normals(Eigen::Ref<VectorXd> out) { stream.normals(out); }
  double uniform() { return stream.uniform(); }
  std::uint64_t below(std::uint64_t n) { return stream.below(n); }
};
static_assert(RandomEngine<WholeFillEngine> && !SplittableNormals<WholeFillEngine>);
static_assert(SplittableNormals<random::Stream>);

bool same_bits(const VectorXd& a, const VectorXd& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

random::Stream& stream_of(random::Stream& r) { return r; }
random::Stream& stream_of(WholeFillEngine& r) { return r.stream; }

/// The plain sub-step walk: every stage through the dynamics' own sub-step, never the fused sweep.
template <class D, class P, class R>
void walk(const D& dyn, const splitting::StageList& scheme, typename D::State& s, const P& potential, double h, R& rng) {
  for (const Stage& st : scheme.stages()) splitting::substep(dyn, st.op, s, potential, st.fraction * h, rng);
}

struct Run {
  splitting::PhaseState state;
  random::Stream stream;
};

/// `steps` steps of the sampler (the fused sweep where the scheme and dynamics allow) from a fixed start.
template <class S, class P, class R>
Run sample(const S& sampler, const P& potential, R rng, Eigen::Index d, int steps) {
  auto s = sampler.init(sampler.dynamics.manifold.random_point(stream_of(rng)), rng);
  for (int t = 0; t < steps; ++t) {
    const double h = sampler.step_size.at(static_cast<std::uint64_t>(t));
    const StepInfo info = sampler.step(s, potential, rng, static_cast<std::uint64_t>(t));
    CHECK(info.step_size == h);
    CHECK(info.gradient_evals == (sampler.scheme.name == "obabo" ? 2u : 1u));
  }
  CHECK(s.x.size() == d);
  return {s, stream_of(rng)};
}

/// The same, through the plain walk.
template <class S, class P, class R>
Run sample_walked(const S& sampler, const P& potential, R rng, int steps) {
  auto s = sampler.init(sampler.dynamics.manifold.random_point(stream_of(rng)), rng);
  for (int t = 0; t < steps; ++t)
    walk(sampler.dynamics, sampler.scheme, s, potential, sampler.step_size.at(static_cast<std::uint64_t>(t)), rng);
  return {s, stream_of(rng)};
}

void check_same_bits(const Run& a, const Run& b) {
  CHECK(same_bits(a.state.x, b.state.x));
  CHECK(same_bits(a.state.v, b.state.v));
  CHECK(std::bit_cast<std::uint64_t>(a.state.xi) == std::bit_cast<std::uint64_t>(b.state.xi));
  CHECK(a.state.gradient_evals == b.state.gradient_evals);
  CHECK(a.state.reflections == b.state.reflections);
  CHECK(a.stream.state() == b.stream.state());  // the same number of draws
}

/// Fused vs walked, with a Stream and with the whole-fill engine; and the two engines' fused runs
/// against each other (chunked fills equal one whole fill).
template <class S, class P>
void compare_flat(const S& sampler, const P& potential, Eigen::Index d, int steps) {
  const Run fused = sample(sampler, potential, random::Stream(17, 2), d, steps);
  check_same_bits(fused, sample_walked(sampler, potential, random::Stream(17, 2), steps));
  const Run whole = sample(sampler, potential, WholeFillEngine{random::Stream(17, 2)}, d, steps);
  check_same_bits(whole, sample_walked(sampler, potential, WholeFillEngine{random::Stream(17, 2)}, steps));
  check_same_bits(fused, whole);
}

/// Fused vs walked on a curved manifold: equal to rounding.
template <class S, class P>
void compare_curved(const S& sampler, const P& potential, Eigen::Index d, int steps) {
  const Run fused = sample(sampler, potential, random::Stream(23, 1), d, steps);
  const Run walked = sample_walked(sampler, potential, random::Stream(23, 1), steps);
  CHECK((fused.state.x - walked.state.x).norm() < 1e-12);
  CHECK((fused.state.v - walked.state.v).norm() < 1e-12 * (1.0 + walked.state.v.norm()));
  CHECK(std::abs(fused.state.xi - walked.state.xi) < 1e-12);
  CHECK(fused.state.gradient_evals == walked.state.gradient_evals);
  CHECK(fused.stream.state() == walked.stream.state());
  CHECK(sampler.dynamics.manifold.distance_to(fused.state.x) < 1e-12);
}

}  // namespace

TEST_CASE("fused ABOBA equals the sub-step walk to the bit on flat space: SGHMC") {
  for (Eigen::Index d : {1, 2, 7, 1023, 1024, 1025, 3001, 5000}) {
    CAPTURE(d);
    const auto centered = models::Gaussian::isotropic(VectorXd::Zero(d), 2.0);
    const auto shifted = models::Gaussian::isotropic(VectorXd::LinSpaced(d, -1.0, 0.5), 2.0);
    const sghmc::Sampler<Euclidean> constant_h{{Euclidean(d), sghmc::Friction(1.3), 0.4}, splitting::aboba,
                                               schedule::StepSize::constant(0.07)};
    compare_flat(constant_h, centered, d, 5);            // separable, μ = 0: the one-sweep path
    compare_flat(constant_h, shifted, d, 5);             // separable, reading μ at the chunk's offset
    compare_flat(constant_h, NoisyGaussian{shifted}, d, 5);  // black box: the gradient draws too
    // A decaying step size: the fused path must take h from the schedule at each t.
    const sghmc::Sampler<Euclidean> decaying{{Euclidean(d), sghmc::Friction(0.7), 0.0}, splitting::aboba,
                                             schedule::StepSize::polynomial(0.1, 1.0, 0.55)};
    compare_flat(decaying, shifted, d, 6);
  }
}

TEST_CASE("fused ABOBA equals the sub-step walk to the bit on flat space: SGNHT") {
  for (Eigen::Index d : {1, 7, 1023, 1025, 5000}) {
    CAPTURE(d);
    const auto shifted = models::Gaussian::isotropic(VectorXd::LinSpaced(d, -1.0, 0.5), 0.5);
    const sgnht::Sampler<Euclidean> smp{{Euclidean(d), 1.7, 0.3}, splitting::aboba, schedule::StepSize::constant(0.05)};
    compare_flat(smp, shifted, d, 5);
    compare_flat(smp, NoisyGaussian{shifted}, d, 5);
  }
}

TEST_CASE("fused ABOBA on products of flat blocks is the walk to the bit") {
  // The chunk kick offset to each block (Product, Power, DynamicProduct forward the hook).
  const DynamicProduct dyn({Euclidean(1500), Euclidean(7)});
  const Eigen::Index d = dyn.ambient_size();
  const auto target = models::Gaussian::isotropic(VectorXd::LinSpaced(d, 0.5, -0.5), 1.5);
  compare_flat(sghmc::Sampler<DynamicProduct>{{dyn, sghmc::Friction(1.1), 0.0}, splitting::aboba,
                                              schedule::StepSize::constant(0.06)},
               target, d, 4);
  using Flat = Product<Euclidean, Power<Euclidean>>;
  const Flat flat{Euclidean(1030), Power{Euclidean(600), 2}};
  compare_flat(sgnht::Sampler<Flat>{{flat, 1.2, 0.0}, splitting::aboba, schedule::StepSize::constant(0.06)},
               NoisyGaussian{models::Gaussian::isotropic(VectorXd::Zero(2230), 1.0)}, 2230, 4);
}

TEST_CASE("fused ABOBA on the sphere and on products with spheres equals the walk to rounding") {
  for (Eigen::Index n : {3, 10, 1025, 3000}) {
    CAPTURE(n);
    VectorXd mu = VectorXd::LinSpaced(n, 1.0, -2.0);
    mu /= mu.norm();
    const auto vmf = NoisyGaussian{models::Gaussian::isotropic(mu, 0.2)};  // on S^{n-1}: a vMF(μ, 5) with noise
    const auto separable = models::Gaussian::isotropic(mu, 0.2);            // the first flow joins the sweep
    const sghmc::Sampler<Sphere> sggmc{{Sphere(n), sghmc::Friction(1.0), 0.0}, splitting::aboba,
                                       schedule::StepSize::constant(0.05)};
    compare_curved(sggmc, vmf, n, 5);
    compare_curved(sggmc, separable, n, 5);
    const sgnht::Sampler<Sphere> gsgnht{{Sphere(n), 1.0, 0.0}, splitting::aboba, schedule::StepSize::constant(0.05)};
    compare_curved(gsgnht, vmf, n, 5);
  }
  const DynamicProduct mixed({Euclidean(5), Sphere(1100), Euclidean(1030)});
  const auto target = models::Gaussian::isotropic(VectorXd::Constant(mixed.ambient_size(), 0.01), 1.0);
  compare_curved(sghmc::Sampler<DynamicProduct>{{mixed, sghmc::Friction(1.0), 0.0}, splitting::aboba,
                                                schedule::StepSize::constant(0.05)},
                 target, mixed.ambient_size(), 4);
  compare_curved(sgnht::Sampler<Power<Sphere>>{{Power{Sphere(4), 300}, 1.0, 0.0}, splitting::aboba,
                                               schedule::StepSize::constant(0.05)},
                 NoisyGaussian{models::Gaussian::isotropic(VectorXd::Constant(1200, 0.1), 1.0)}, 1200, 4);
}

// The cases the fused path must leave to the walk (other schemes, a diagonal friction) still agree,
// trivially: this pins that they keep working through the sampler.
TEST_CASE("non-fused cases go through the sub-step walk") {
  const Eigen::Index d = 50;
  const auto target = models::Gaussian::isotropic(VectorXd::Zero(d), 1.0);
  // splitting::baoab: the seed papers' letters (B friction, O noisy kick), not Leimkuhler & Matthews's (lm_baoab).
  for (const auto& scheme : {splitting::baoab, splitting::obabo, splitting::euler}) {
    CAPTURE(scheme.name);
    compare_flat(sghmc::Sampler<Euclidean>{{Euclidean(d), sghmc::Friction(1.0), 0.0}, scheme,
                                           schedule::StepSize::constant(0.05)},
                 target, d, 4);
  }
  compare_flat(sghmc::Sampler<Euclidean>{{Euclidean(d), sghmc::Friction(VectorXd::Constant(d, 0.9)), 0.0},
                                         splitting::aboba, schedule::StepSize::constant(0.05)},
               target, d, 4);
}

TEST_CASE("the chunk kick's SSE2 and AVX2 copies give the textbook bits") {
  // Catches: a copy that lets a·b + c become an FMA or reorders the kick's operations (the fused path
  // and the walk both run the CPU's best copy, so only a direct check sees it), for a gradient read from
  // the state and for a separable potential's partial computed inside the chunk; and a chunking (a long
  // call split into 1024-coordinate pieces, a short one left to the baseline copy) that changes bits.
  random::Stream rng(29, 0);
  const splitting::KickCoefficients k{0.97, 0.93, 0.41, 0.07};
  for (const Eigen::Index n : {1, 63, 64, 67, 1024, 1029, 2500}) {
    CAPTURE(n);
    VectorXd x(n), v(n), z(n), g(n);
    rng.normals(x);
    rng.normals(v);
    rng.normals(z);
    rng.normals(g);
    const auto target = models::Gaussian::isotropic(VectorXd::LinSpaced(n, -1.0, 1.0), 0.7);
    VectorXd partial(n);
    target.exact_gradient(x, partial);
    VectorXd expected(n);
    for (Eigen::Index i = 0; i < n; ++i) expected[i] = k.post * (k.pre * v[i] + (k.sd * z[i] - k.t * g[i]));
    for (const simd::Isa isa : {simd::Isa::generic, simd::Isa::avx2}) {
      if (!simd::cpu_supports(isa)) continue;
      CAPTURE(static_cast<int>(isa));
      // The gradient from the state, the noise from s.noise (an engine without chunked fills).
      splitting::PhaseState s(x, v);
      s.gradient = g;
      s.noise = z;
      WholeFillEngine whole{random::Stream(1, 1)};
      splitting::BOBKick<models::Gaussian, WholeFillEngine> kick(s, target, whole, k, false, isa);
      kick(0, n);
      CHECK(same_bits(s.v, expected));
      // The separable partial inside the chunk, the noise drawn chunk by chunk from a Stream whose next
      // n normals are z; called as two pieces, as a manifold's sweep may.
      random::Stream chunked(31, 4), copy(31, 4);
      VectorXd zs(n);
      copy.normals(zs);
      splitting::PhaseState t(x, v);
      splitting::BOBKick<models::Gaussian, random::Stream> sep(t, target, chunked, k, true, isa);
      sep(0, n / 3);
      sep(n / 3, n);
      VectorXd want(n);
      for (Eigen::Index i = 0; i < n; ++i) want[i] = k.post * (k.pre * v[i] + (k.sd * zs[i] - k.t * partial[i]));
      CHECK(same_bits(t.v, want));
      CHECK(chunked.state() == copy.state());
    }
  }
}
