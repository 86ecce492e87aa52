#pragma once
// The optimisation baselines of the SGHMC paper's experiments (§4.2, §4.3), on the same minibatch
// gradients as the samplers: SGD (x <- x − η∇Ũ) and SGD with momentum (v <- (1 − α)v − η∇Ũ; x <- x + v,
// the SGHMC paper's Eq. 15 form with no noise). A Sampler (concepts/sampler.hpp), so the experiments run
// them on the same driver (driver/chain.hpp) as the samplers.
#include <cstdint>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/concepts/sampler.hpp>

namespace sgmcmc::experiments {

struct SgdState {
  Eigen::VectorXd x, v, gradient;
};

struct Sgd {
  using State = SgdState;
  static constexpr Statistics statistics = stats::step_size | stats::gradient_evals;
  double learning_rate = 1e-5;  ///< η
  double momentum_decay = 0.0;  ///< α; 0: plain SGD (no velocity)

  template <class R>
  State init(Eigen::VectorXd x0, R&) const {
    const auto n = x0.size();
    return {std::move(x0), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  }
  template <class P, class R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t) const {
    potential.gradient(s.x, s.gradient, rng);
    if (momentum_decay == 0.0) {
      s.x.noalias() -= learning_rate * s.gradient;
    } else {
      s.v = (1.0 - momentum_decay) * s.v - learning_rate * s.gradient;
      s.x += s.v;
    }
    return {.step_size = learning_rate, .gradient_evals = 1};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};
static_assert(Sampler<Sgd>);

}  // namespace sgmcmc::experiments
