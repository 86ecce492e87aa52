#pragma once
// Stochastic gradient Riemann HMC (Ma, Chen & Fox 2015 §3.3) for a metric G(θ), as the complete recipe's
// z = (θ, r), H = U(θ) + rᵀr/2, D = diag(0, G⁻¹), Q = [[0, -G^{-1/2}], [G^{-1/2}, 0]] (docs/math.md,
// gSGRHMC row of the table). Γ = (0, ∇·G^{-1/2}), so the Euler step derived from the SDE is
//   θ <- θ + h G^{-1/2} r
//   r <- r - h G^{-1/2}∇Ũ - h G⁻¹ r + h ∇·G^{-1/2} + N(0, h(2G⁻¹ - hB̂)),   B̂ = V̂ G⁻¹
// (B̂: the gradient noise V̂ passed through Q_rθ = G^{-1/2}).
//
// Variant::naive drops Γ: the "naive SGRHMC" of the complete recipe's Eq. 27, the paper's
// counter-example — it targets the wrong law wherever G varies (tests/recipe, Fig. 2 left).
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
#include <sgmcmc/samplers/recipe.hpp>

namespace sgmcmc::sgrhmc {

enum class Variant : std::uint8_t {
  generalized,  ///< gSGRHMC: with the correction Γ_r = ∇·G^{-1/2} (exact stationary law as h → 0)
  naive,        ///< naive SGRHMC, complete recipe Eq. 27: no Γ (wrong stationary law)
};

struct State : recipe::RiemannianState {
  Eigen::VectorXd r;  ///< the momentum
};

template <recipe::Metric Metric>
struct Sampler {
  using State = sgrhmc::State;
  static constexpr Statistics statistics =
      stats::step_size | stats::gradient_evals | stats::kinetic_energy;
  Metric metric;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  Variant variant = Variant::generalized;
  double noise_estimate = 0.0;  ///< V̂: variance of the stochastic gradient's noise (scalar)
  recipe::Scheme scheme = recipe::Scheme::euler;
  recipe::NoisePolicy noise_policy = recipe::NoisePolicy::error;

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    State s;
    static_cast<recipe::RiemannianState&>(s) = recipe::riemannian_start(step_size, metric, noise_estimate, std::move(x0));
    s.r.resize(s.x.size());
    rng.normals(s.r);  // r ~ N(0, I): its stationary law
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    if (scheme == recipe::Scheme::euler) {
      potential.gradient(s.x, s.gradient, rng);
      ++s.gradient_evals;
      metric.evaluate(potential, s.x, s.metric);
      // Both updates from the state at the start of the step (explicit Euler): r's drift first, θ after.
      momentum_drift(s);
      const auto& g = s.metric;
      if (g.diagonal) s.x += h * g.inv_sqrt_diag.cwiseProduct(s.r);
      else s.x.noalias() += h * (g.inv_sqrt * s.r);
      kick(s, h, rng);
    } else {
      // θ first with G at θ, then r with ∇Ũ and G at the new θ (SGHMC Alg. 2 ordering).
      metric.evaluate(potential, s.x, s.metric);
      if (s.metric.diagonal) s.x += h * s.metric.inv_sqrt_diag.cwiseProduct(s.r);
      else s.x.noalias() += h * (s.metric.inv_sqrt * s.r);
      potential.gradient(s.x, s.gradient, rng);
      ++s.gradient_evals;
      metric.evaluate(potential, s.x, s.metric);
      momentum_drift(s);
      kick(s, h, rng);
    }
    return {.step_size = h, .gradient_evals = 1};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State& s, StepInfo& info) const { info.kinetic_energy = 0.5 * s.r.squaredNorm(); }

 private:
  // drift_r = -G^{-1/2}∇Ũ - G⁻¹r + Γ_r (Γ_r = ∇·G^{-1/2}, dropped by the naive variant).
  void momentum_drift(State& s) const {
    const auto& g = s.metric;
    if (g.diagonal) {
      s.drift = -(g.inv_sqrt_diag.cwiseProduct(s.gradient) + g.inv_diag.cwiseProduct(s.r));
    } else {  // the product into drift first: `-(G^{-1/2}∇Ũ)` would go through a temporary
      s.drift.noalias() = g.inv_sqrt * s.gradient;
      s.drift = -s.drift;
      s.drift.noalias() -= g.inv * s.r;
    }
    if (variant == Variant::generalized) s.drift += g.div_inv_sqrt;
  }
  // r <- r + h drift + N(0, h(2G⁻¹ - hV̂G⁻¹)).
  template <class R>
  void kick(State& s, double h, R& rng) const {
    const auto& g = s.metric;
    if (g.diagonal) {
      s.var = (2.0 * h) * g.inv_diag - (h * h) * (noise_estimate * g.inv_diag);
      if ((s.var.array() > 0).all()) {
        rng.normals(s.noise);
        s.noise.array() *= s.var.array().sqrt();
        s.r += h * s.drift + s.noise;
        return;
      }
      s.cov = s.var.asDiagonal();
    } else {
      s.cov = (2.0 * h) * g.inv - (h * h) * (noise_estimate * g.inv);
    }
    if (s.gaussian.draw(s.cov, noise_policy, 1e-9, "noise_estimate", rng, s.noise) > 0) ++s.clipped;
    s.r += h * s.drift + s.noise;
  }
};

}  // namespace sgmcmc::sgrhmc
