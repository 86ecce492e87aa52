// sghmc::Sampler's fused ABOBA path (flat space, scalar friction) against the generic sub-step walk
// splitting::step: both must give the same state to the bit. It lives with the random tests because
// what it guards is mostly the draw order: the fused path fills the noise in chunks from the Stream.
// Catches: a fused path that reorders floating-point operations (different last bits), draws the
// kick's noise before the stochastic gradient's own draws, loses a chunk tail, uses the wrong
// fractions of h, or forgets the gradient/reflection counters.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>

#include <Eigen/Core>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/modules/splitting/step.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

/// A Gaussian whose stochastic gradient draws from the driver's RNG (a minibatch stand-in), so the
/// order of the gradient's and the kick's draws shows in the result.
struct NoisyGaussian {
  models::Gaussian g;
  template <class R>
  void gradient(const VectorXd& x, VectorXd& out, R& rng) const {
    g.exact_gradient(x, out);
    for (Eigen::Index i = 0; i < out.size(); ++i) out[i] += 0.1 * rng.normal();
  }
};

bool same_bits(const VectorXd& a, const VectorXd& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

template <class P>
void compare(Eigen::Index d, const sghmc::Sampler<Euclidean>& sampler, const P& potential, int steps) {
  random::Stream r1(17, 2), r2(17, 2);
  auto fused = sampler.init(VectorXd::LinSpaced(d, -1.0, 2.0), r1);
  auto walked = sampler.init(VectorXd::LinSpaced(d, -1.0, 2.0), r2);
  for (int t = 0; t < steps; ++t) {
    sampler.step(fused, potential, r1, static_cast<std::uint64_t>(t));
    splitting::step(sampler.dynamics, sampler.scheme, walked, potential,
                    sampler.step_size.at(static_cast<std::uint64_t>(t)), r2);
  }
  CHECK(same_bits(fused.x, walked.x));
  CHECK(same_bits(fused.v, walked.v));
  // The noise buffer is scratch: the separable path draws into an L1 buffer and never stores it.
  // Equal bits of x and v with equal stream states already show the draws were the same.
  if constexpr (!SeparablePotential<P>) CHECK(same_bits(fused.noise, walked.noise));
  CHECK(fused.gradient_evals == walked.gradient_evals);
  CHECK(fused.reflections == walked.reflections);
  CHECK(r1.state() == r2.state());
}

}  // namespace

TEST_CASE("fused ABOBA step equals the sub-step walk to the bit") {
  for (Eigen::Index d : {1, 2, 7, 1023, 1024, 1025, 3001}) {
    CAPTURE(d);
    const auto target = models::Gaussian::isotropic(VectorXd::Constant(d, 0.3), 2.0);
    const sghmc::Sampler<Euclidean> constant_h{{Euclidean(d), sghmc::Friction(1.3), 0.4}, splitting::aboba,
                                               schedule::StepSize::constant(0.07)};
    compare(d, constant_h, target, 5);
    compare(d, constant_h, NoisyGaussian{target}, 5);
    // A decaying step size: the fused path must take h from the schedule at each t.
    const sghmc::Sampler<Euclidean> decaying{{Euclidean(d), sghmc::Friction(0.7), 0.0}, splitting::aboba,
                                             schedule::StepSize::polynomial(0.1, 1.0, 0.55)};
    compare(d, decaying, target, 6);
  }
}

// The cases the fused path must leave to the walk (other schemes, a diagonal friction) still agree,
// trivially: this pins that they keep working through the derived Sampler.
TEST_CASE("non-fused cases go through the sub-step walk") {
  const Eigen::Index d = 50;
  const auto target = models::Gaussian::isotropic(VectorXd::Zero(d), 1.0);
  for (const auto& scheme : {splitting::baoab, splitting::obabo, splitting::euler}) {
    CAPTURE(scheme.name);
    compare(d, sghmc::Sampler<Euclidean>{{Euclidean(d), sghmc::Friction(1.0), 0.0}, scheme,
                                         schedule::StepSize::constant(0.05)},
            target, 4);
  }
  compare(d, sghmc::Sampler<Euclidean>{{Euclidean(d), sghmc::Friction(VectorXd::Constant(d, 0.9)), 0.0},
                                       splitting::aboba, schedule::StepSize::constant(0.05)},
          target, 4);
}
