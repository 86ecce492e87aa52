// One way back for every failure of a chain (issue #39 item 2): Chain::run returns a ChainStatus naming
// the step and the cause — for a non-finite state, for a numerical failure a sampler throws inside a
// step, and for a kept draw off the sampler's manifold — and never throws; the draws kept before it
// are kept.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/sgld.hpp>

namespace test_chain_failures {  // this file's names: its group compiles as one translation unit

using namespace sgmcmc;
using Eigen::VectorXd;

struct Flat {  // U = 0
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R&) const { g = VectorXd::Zero(x.size()); }
};

/// A walk that fails at step `fail_at` (1-based) the way the complete-recipe sampler did: its state goes
/// NaN and then a check of D throws, blaming D.
struct FailingWalk {
  struct State {
    VectorXd x;
  };
  static constexpr Statistics statistics{Statistics{} | stats::step_size};
  std::uint64_t fail_at = 5;
  bool nan_first = true;
  template <class R>
  State init(VectorXd x0, R&) const { return {std::move(x0)}; }
  template <class P, class R>
  StepInfo step(State& s, const P&, R&, std::uint64_t t) const {
    if (t + 1 == fail_at) {
      if (nan_first) s.x[0] = std::numeric_limits<double>::quiet_NaN();
      fail("D: non-finite entry at z = ({})", s.x[0]);
    }
    s.x[0] += 1;
    return {};
  }
  const VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

/// A circle whose "flow" steps along the tangent and never comes back (the user's torus of issue #39,
/// which sampled 100,000 steps to (−36.8, 60.8) with status ok).
struct StraightLineCircle : Sphere {
  StraightLineCircle() : Sphere(2) {}
  std::uint64_t flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t) const {
    x += t * v;
    return 0;
  }
};

TEST_CASE("a failure thrown inside a step comes back as a ChainStatus naming the step, the divergence first") {
  // Catches: the exception escaping Chain::run, or the message blaming D for a state that had diverged.
  Chain chain(FailingWalk{}, Flat{}, VectorXd::Zero(1), random::Stream(1, 0));
  Draws draws;
  ChainStatus status;
  CHECK_NOTHROW(status = chain.advance(10, Retention{}, draws));
  REQUIRE_FALSE(status.ok());
  CHECK(status.error.find("non-finite state at step 5") == 0);
  CHECK(status.error.find("D: non-finite entry") != std::string::npos);
  CHECK(draws.count() == 4);  // the draws kept before it
}

/// U = 50x²/2: the complete recipe's Euler step at h = 1 multiplies x by −49 each step.
struct Stiff {
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R&) const { g = 50.0 * x; }
};

TEST_CASE("the complete-recipe sampler diverging: a ChainStatus naming the divergence, not an exception blaming D") {
  // Issue #39: it threw "D: non-finite entry at z = (nan, nan)". D depends on z (0·z₀, NaN once z is
  // not finite), so the D check meets the diverged state unless the driver's own check does first.
  const auto d = [](const auto& z) {
    using T = typename std::decay_t<decltype(z)>::Scalar;
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> m = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>::Identity(z.size(), z.size());
    m(0, 0) += T(0.0) * z[0];
    return m;
  };
  const auto q = [](const auto& z) {
    using T = typename std::decay_t<decltype(z)>::Scalar;
    return Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(z.size(), z.size()).eval();
  };
  recipe::Sampler<recipe::Fields<decltype(d), decltype(q)>> sampler{{d, q}};
  sampler.step_size = 1.0;
  Chain chain(sampler, Stiff{}, VectorXd::Ones(1), random::Stream(4, 0));
  Draws draws;
  ChainStatus status;
  CHECK_NOTHROW(status = chain.advance(2000, Retention::none(), draws));
  REQUIRE_FALSE(status.ok());
  CHECK(status.error.find("non-finite state at step") == 0);
}

TEST_CASE("a numerical failure with a finite state is named with its step") {
  Chain chain(FailingWalk{.fail_at = 3, .nan_first = false}, Flat{}, VectorXd::Zero(1), random::Stream(1, 0));
  Draws draws;
  const ChainStatus status = chain.advance(10, Retention{}, draws);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error.find("step 3 failed: D: non-finite entry at z = (2)") == 0);
  CHECK(draws.count() == 2);
}

TEST_CASE("a kept draw off the sampler's manifold stops the chain with a ChainStatus") {
  // Catches: a manifold whose flow leaves it (one that fails the conformance kit) sampling on, status ok.
  Chain chain(sgld::Sampler<StraightLineCircle>{StraightLineCircle{}, schedule::StepSize::constant(0.1)}, Flat{}, VectorXd{{1.0, 0.0}},
              random::Stream(2, 0));
  Draws draws;
  const ChainStatus status = chain.advance(1000, Retention{}, draws);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error.find("left the manifold at step 1") == 0);
  CHECK(status.error.find("conformance kit") != std::string::npos);
  CHECK(chain.steps_done == 1);
}

TEST_CASE("a correct manifold's chain is not stopped by the drift check") {
  Chain chain(sgld::Sampler<Sphere>{Sphere(3), schedule::StepSize::constant(0.1)}, Flat{}, VectorXd{{1.0, 0.0, 0.0}}, random::Stream(2, 0));
  Draws draws;
  CHECK(chain.advance(20000, Retention{}, draws).ok());
  CHECK(draws.count() == 20000);
}

}  // namespace test_chain_failures
