#pragma once
// Preconditioned SGLD (Li, Chen, Carlson & Carin 2016, "Preconditioned stochastic gradient Langevin
// dynamics for deep neural networks", AAAI; Algorithm 1) on flat space: an RMSprop diagonal
// preconditioner
//   V ← αV + (1 − α) ∇Ũ(x) ⊙ ∇Ũ(x),   G = diag(1 ⊘ (λ + √V)),
//   x ← x − h G ∇Ũ(x) + sqrt(2h G) ⊙ N(0, I)
// (the paper's ε is 2h here, the library's SGLD convention: samplers/sgld.hpp). V starts at 0 and is
// updated before it is used, as in the paper. The paper's correction Γ_i = Σ_j ∂G_ij/∂x_j is left out
// by default, as the paper's experiments do (its §3: G changes slowly, Γ ≈ 0); that leaves a bias, on
// top of SGLD's O(h), which falls as α → 1 (V then averages over many mixing times; tests/core/psgld_stat.cpp
// measures it on a Gaussian: +0.2 in E[x²]/σ² at α = 0.99, +0.01 at α = 0.9999). With `gamma_term`,
// x ← x + hΓ is added, Γ taken through this step's V = αV' + (1 − α)∇Ũ(x)⊙∇Ũ(x) (V' the last
// step's, fixed): Γ_j = ∂_j G_j = −(1 − α) ∂_jŨ · ∂_j∂_jŨ / ((λ + √V_j)² √V_j), the Jacobian's diagonal
// ∂_j∂_jŨ estimated as z ⊙ (J z) (Hutchinson; z Rademacher) with J z a central difference of the same
// batch's gradient (the engine copied before the gradient draws it): two more gradients per step. It
// removes only ~5 % of the bias above (the rest comes from V's dependence on the chain's past) and, as
// Γ ∝ 1/√V, can throw a chain far out while V is small (docs/reproductions.md). With `adapt_steps`
// K > 0, V stops after K steps and the rest of the run is exact SGLD with the frozen diagonal G. V tracks the
// gradient the sampler is given, ∇Ũ; the paper tracks the per-example mean ∇Ũ/N (up to the prior),
// which is this sampler at step size N·h_paper and damping N·λ_paper.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>

namespace sgmcmc::psgld {

struct State {
  Eigen::VectorXd x;
  Eigen::VectorXd square_average;  ///< V, the running average of ∇Ũ ⊙ ∇Ũ
  Eigen::VectorXd gradient;        ///< scratch
  Eigen::VectorXd noise;           ///< scratch
  std::uint64_t gradient_evals = 0;
  Eigen::VectorXd probe, probe_gradient, curvature;  ///< scratch for Γ (empty without it)
};

struct Sampler {
  using State = psgld::State;
  static constexpr Statistics statistics = stats::step_size | stats::gradient_evals;
  Eigen::Index dim = 1;
  Euclidean manifold_of() const { return Euclidean(dim); }  ///< SamplerOnManifold
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double decay = 0.99;     ///< α, the RMSprop average's decay (Li et al.'s α = 0.99)
  double damping = 1e-5;   ///< λ, keeps G bounded where V ≈ 0 (Li et al.'s λ = 10⁻⁵)
  /// K > 0: V adapts during the first K steps only (a warm-up), then G is frozen and the sampler is
  /// SGLD with a fixed diagonal preconditioner D = G: Γ = 0 and the omitted-Γ bias is gone (a constant
  /// D is an exact complete-recipe pair, Ma, Chen & Fox 2015). 0: V adapts forever (Li et al.).
  std::uint64_t adapt_steps = 0;
  bool gamma_term = false;  ///< add hΓ (above); needs an engine that can be copied to redraw a batch

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(decay >= 0 && decay < 1, "psgld: decay alpha must be in [0, 1), got {}", decay);
    require(damping > 0, "psgld: damping lambda must be positive, got {}", damping);
    require(x0.size() == dim, "init: expected a point of size {}, got {}", dim, x0.size());
    const auto n = x0.size();
    const Eigen::Index scratch = gamma_term ? n : 0;
    return State{std::move(x0), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), 0,
                 Eigen::VectorXd::Zero(scratch), Eigen::VectorXd::Zero(scratch), Eigen::VectorXd::Zero(scratch)};
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const bool adapting = adapt_steps == 0 || t < adapt_steps;
    std::uint64_t evals = 1;
    if (gamma_term && adapting) {
      if constexpr (std::copy_constructible<R>) {
        const R batch = rng;  // the state the gradient's batch is drawn from
        potential.gradient(s.x, s.gradient, rng);
        jacobian_diagonal(s, potential, batch, rng);
        evals = 3;
      } else {
        throw Error("psgld: gamma_term needs an engine that can be copied");
      }
    } else {
      potential.gradient(s.x, s.gradient, rng);
    }
    s.gradient_evals += evals;
    rng.normals(s.noise);
    if (adapting) s.square_average = decay * s.square_average + (1.0 - decay) * s.gradient.cwiseAbs2();
    // G = 1 / (λ + √V), element by element; one pass over the coordinates.
    const auto g = (damping + s.square_average.array().sqrt()).inverse();
    if (gamma_term && adapting) {
      // hΓ_j = −h(1 − α) ∂_jŨ ∂_j∂_jŨ G_j² / √V_j (0 where V_j = 0: then ∂_jŨ = 0 too).
      const auto root = s.square_average.array().sqrt();
      s.x.array() -= (root > 0).select(h * (1.0 - decay) * s.gradient.array() * s.curvature.array() * g.square() / root, 0.0);
    }
    // noise_at(t) = 0 in a cyclical schedule's exploration stage: an RMSprop step (cSG-MCMC §3).
    const double scale = 2.0 * h * step_size.noise_at(t);
    s.x.array() += -h * g * s.gradient.array() + (scale * g).sqrt() * s.noise.array();
    return {.step_size = h, .gradient_evals = evals};
  }

  /// s.curvature ← z ⊙ (∇Ũ(x + εz) − ∇Ũ(x − εz)) / 2ε, both gradients on the batch `batch` draws, z
  /// Rademacher (signs of normals from rng); ε = 6·10⁻⁶·max(1, ‖x‖∞), about the cube root of the
  /// rounding unit for a central difference.
  template <class P, class R>
  void jacobian_diagonal(State& s, const P& potential, const R& batch, R& rng) const {
    rng.normals(s.curvature);
    s.curvature = s.curvature.array().sign();  // z, held in curvature until the end
    const double eps = 6e-6 * std::max(1.0, s.x.cwiseAbs().maxCoeff());
    s.probe = s.x + eps * s.curvature;
    R plus = batch;
    potential.gradient(s.probe, s.probe_gradient, plus);
    s.probe = s.x - eps * s.curvature;
    R minus = batch;
    potential.gradient(s.probe, s.noise, minus);  // noise is scratch until its own draw
    s.curvature.array() *= (s.probe_gradient - s.noise).array() / (2.0 * eps);
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

}  // namespace sgmcmc::psgld
