#pragma once
// Stochastic gradient Riemannian Langevin dynamics (Patterson & Teh 2013) as the complete recipe's
// z = θ, H = U, D = G(θ)⁻¹, Q = 0 (docs/math.md#the-samplers-as-h-d-q), so Γ = ∇·G⁻¹ and the Euler step is
//   θ <- θ + h[-G⁻¹∇Ũ + ∇·G⁻¹] + N(0, h(2G⁻¹ - hB̂)),   B̂ = G⁻¹V̂G⁻¹ (the gradient noise through D).
// With G = I this is exactly SGLD (samplers/sgld.hpp), step-size convention included.
//
// `ExpandedMean` is SGRLD on the probability simplex in the expanded-mean parametrisation (Patterson &
// Teh 2013 §3; complete recipe §4.2; docs/math.md#expanded-mean-sgrld): θ_k > 0, π = θ/Σθ, with the Fisher
// metric G⁻¹ = diag(θ), and the update mirrored at θ_k = 0 (|·|), which keeps θ > 0. Its pieces (lift, π,
// mirror, ∂U_θ, the update) are modules/simplex/expanded_mean.hpp's; the K×W row form (online LDA) is
// samplers/expanded_mean.hpp.
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/recipe/checks.hpp>
#include <sgmcmc/modules/recipe/metric.hpp>
#include <sgmcmc/modules/recipe/riemannian_state.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/simplex/expanded_mean.hpp>

namespace sgmcmc::sgrld {

using State = recipe::RiemannianState;

template <recipe::Metric Metric>
struct Sampler {
  using State = sgrld::State;
  static constexpr Statistics statistics = stats::step_size | stats::gradient_evals;
  Metric metric;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double noise_estimate = 0.0;  ///< V̂: variance of the stochastic gradient's noise (scalar)
  recipe::NoisePolicy noise_policy = recipe::NoisePolicy::error;

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    return recipe::riemannian_start(step_size, metric, noise_estimate, std::move(x0));
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    potential.gradient(s.x, s.gradient, rng);
    ++s.gradient_evals;
    metric.evaluate(potential, s.x, s.metric);
    const auto& g = s.metric;
    if (g.diagonal) {
      s.drift = -g.inv_diag.cwiseProduct(s.gradient) + g.div_inv;
      s.var = (2.0 * h) * g.inv_diag - (h * h * noise_estimate) * g.inv_diag.cwiseAbs2();
      if ((s.var.array() > 0).all()) {  // the common case, without an n×n matrix: same draws as GaussianNoise
        rng.normals(s.noise);
        s.noise.array() *= s.var.array().sqrt();
        s.x += h * s.drift + s.noise;
        return {.step_size = h, .gradient_evals = 1};
      }
      s.cov = s.var.asDiagonal();
    } else {
      // Each product into its destination first: nested in a larger expression, Eigen evaluates it into
      // a temporary (the same doubles, one allocation each).
      s.drift.noalias() = g.inv * s.gradient;
      s.drift = -s.drift;
      s.drift += g.div_inv;
      s.cov.noalias() = (h * h * noise_estimate) * (g.inv * g.inv);
      s.cov = (2.0 * h) * g.inv - s.cov;
    }
    if (s.gaussian.draw(s.cov, noise_policy, 1e-9, "noise_estimate", rng, s.noise) > 0) ++s.clipped;
    s.x += h * s.drift + s.noise;
    return {.step_size = h, .gradient_evals = 1};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

/// SGRLD on the simplex Δ^{K-1} in the expanded-mean parametrisation. The target is a simplex
/// potential U(π) (Euclidean gradient of a smooth extension; only its tangential part matters). With
/// θ_k i.i.d. Exp(1) a priori, π = θ/S is uniform on Δ and independent of S = Σθ ~ Gamma(K), so
///   U_θ(θ) = Σ_k θ_k + U(θ/S),   ∂_k U_θ = 1 + (∂_kU - πᵀ∇U)/S
/// has π-marginal ∝ exp(-U(π)). With D = diag(θ), Γ = 1, the mirrored Euler step is
///   θ_k <- | θ_k + h(1 - θ_k ∂_kU_θ) + sqrt(2hθ_k) ζ_k |
/// (for Dirichlet(α): h(α_k - θ_k - π_kΣ_j(α_j - 1)), Patterson & Teh's drift with β = 1, n = α - 1).
/// The position the driver records is π; the singular Dirichlet force (α_k - 1)/π_k enters only as
/// θ_k times it, which is bounded, so faces cause no blow-up (unlike reflection SGGMC:
/// docs/math.md#singular-potentials-on-the-simplex).
struct ExpandedState : expanded_mean::Point {  // theta: θ > 0; x: π = θ / Σθ
  Eigen::VectorXd gradient, noise;
  std::uint64_t gradient_evals = 0;
  std::uint64_t reflections = 0;  ///< coordinates mirrored at 0
};

struct ExpandedMean {
  using State = ExpandedState;
  static constexpr Statistics statistics =
      stats::step_size | stats::gradient_evals | stats::reflections;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(x0.size() >= 2 && x0.allFinite() && (x0.array() >= 0).all() && std::abs(x0.sum() - 1.0) < 1e-9,
            "init: expected a point of the simplex (x_i >= 0, Σx = 1)");
    State s;
    const auto k = x0.size();
    s.theta = expanded_mean::lift(x0);  // S = K, E[S] under the Gamma(K) law of Σθ; zeros lifted to keep θ > 0
    expanded_mean::normalize(s.theta, s.x);
    s.gradient.setZero(k), s.noise.setZero(k);
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    potential.gradient(s.x, s.gradient, rng);
    ++s.gradient_evals;
    rng.normals(s.noise);
    const std::uint64_t reflections0 = s.reflections;
    const double sum = s.theta.sum();
    const double mean_grad = s.x.dot(s.gradient);
    for (Eigen::Index k = 0; k < s.theta.size(); ++k) {
      const double du = expanded_mean::theta_gradient(s.gradient[k], mean_grad, sum);
      double next = expanded_mean::langevin_update(s.theta[k], du, h, s.noise[k]);
      if (expanded_mean::mirror(next)) ++s.reflections;
      s.theta[k] = expanded_mean::keep_positive(next);
    }
    expanded_mean::normalize(s.theta, s.x);
    return {.step_size = h, .gradient_evals = 1, .reflections = s.reflections - reflections0};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

}  // namespace sgmcmc::sgrld
