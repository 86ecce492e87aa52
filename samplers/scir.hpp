#pragma once
// Stochastic Cox–Ingersoll–Ross sampler (SCIR; Baker, Fearnhead, Fox & Nemeth 2018) for Dirichlet-type
// targets on the probability simplex, in the expanded-mean parametrisation: θ_k > 0, π = θ/Σθ. Each
// θ_k follows the CIR process dθ = (a_k - θ) dt + sqrt(2θ) dW, whose stationary law is Gamma(a_k, 1), so
// π ~ Dirichlet(a). The transition over time h is sampled exactly (docs/math.md#scir):
//   θ_{t+h} = ((1 - e^{-h})/2) · W,  W ~ χ'²(2a_k, 2θ_t e^{-h}/(1 - e^{-h})),
// with a_k = β_k + (N/n)·(minibatch counts) from the potential's `concentration(rng)`. For fixed counts
// (a plain Dirichlet) there is no discretisation error at any h; faces are never hit. The θ/π pieces
// (state, lift, π = θ/Σθ) are modules/simplex/expanded_mean.hpp's.
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/simplex/expanded_mean.hpp>

namespace sgmcmc::scir {

struct State : expanded_mean::Point {  // theta: θ_k > 0; x: π = θ / Σθ, the point on the simplex
  std::uint64_t gradient_evals = 0;  ///< concentration estimates drawn
};

struct Sampler {
  using State = scir::State;
  static constexpr Statistics statistics = stats::step_size | stats::gradient_evals;
  Eigen::Index n = 2;  ///< coordinates of the simplex
  schedule::StepSize step_size = schedule::StepSize::constant(0.1);

  /// Starts at π = x0 with Σθ = n (the scale is forgotten within a few time units: the CIR mean
  /// reverts at rate 1).
  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(x0.size() == n, "init: expected a point of size {}, got {}", n, x0.size());
    require((x0.array() > 0).all() && std::abs(x0.sum() - 1.0) < 1e-8,
            "init: scir needs a point inside the simplex (all coordinates > 0, summing to 1)");
    State s;
    s.theta = expanded_mean::lift(x0);  // θ = n x0 (its floor acts only if n x0 underflows a normal double)
    s.x = std::move(x0);
    return s;
  }

  template <class P, class R>
    requires ConcentrationPotential<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const Eigen::VectorXd& a = potential.concentration(rng);
    ++s.gradient_evals;
    const double decay = std::exp(-h), c = 0.5 * -std::expm1(-h);  // c = (1 - e^{-h})/2
    for (Eigen::Index k = 0; k < n; ++k) {
      const double lambda = s.theta[k] * decay / c;  // 2θe^{-h}/(1 - e^{-h})
      s.theta[k] = c * random::noncentral_chi_square(rng, 2.0 * a[k], lambda);
    }
    expanded_mean::normalize(s.theta, s.x);  // all NaN if Σθ is not positive: the driver reports it
    return {.step_size = h, .gradient_evals = 1};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

}  // namespace sgmcmc::scir
