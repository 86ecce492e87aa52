#pragma once
// Preconditioned SGLD (Li, Chen, Carlson & Carin 2016, "Preconditioned stochastic gradient Langevin
// dynamics for deep neural networks", AAAI; Algorithm 1) on flat space: an RMSprop diagonal
// preconditioner
//   V ← αV + (1 − α) ∇Ũ(x) ⊙ ∇Ũ(x),   G = diag(1 ⊘ (λ + √V)),
//   x ← x − h G ∇Ũ(x) + sqrt(2h G) ⊙ N(0, I)
// (the paper's ε is 2h here, the library's SGLD convention: samplers/sgld.hpp). V starts at 0 and is
// updated before it is used, as in the paper. The paper's correction Γ_i = Σ_j ∂G_ij/∂x_j is left out,
// as the paper's experiments do (its §3: G changes slowly, Γ ≈ 0); that leaves a bias, on top of
// SGLD's O(h), which falls as α → 1 (V then averages over many mixing times; tests/core/psgld_stat.cpp
// measures it on a Gaussian: +0.2 in E[x²]/σ² at α = 0.99, +0.01 at α = 0.9999). With `adapt_steps`
// K > 0, V stops after K steps and the rest of the run is exact SGLD with the frozen diagonal G. V tracks the
// gradient the sampler is given, ∇Ũ; the paper tracks the per-example mean ∇Ũ/N (up to the prior),
// which is this sampler at step size N·h_paper and damping N·λ_paper.
#include <cmath>
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
};

struct Sampler {
  using State = psgld::State;
  static constexpr Statistics statistics = Statistic::step_size | Statistic::gradient_evals;
  Eigen::Index dim = 1;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double decay = 0.99;     ///< α, the RMSprop average's decay (Li et al.'s α = 0.99)
  double damping = 1e-5;   ///< λ, keeps G bounded where V ≈ 0 (Li et al.'s λ = 10⁻⁵)
  /// K > 0: V adapts during the first K steps only (a warm-up), then G is frozen and the sampler is
  /// SGLD with a fixed diagonal preconditioner D = G: Γ = 0 and the omitted-Γ bias is gone (a constant
  /// D is an exact complete-recipe pair, Ma, Chen & Fox 2015). 0: V adapts forever (Li et al.).
  std::uint64_t adapt_steps = 0;

  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    step_size.validate();
    require(decay >= 0 && decay < 1, fmt::format("psgld: decay alpha must be in [0, 1), got {}", decay));
    require(damping > 0, fmt::format("psgld: damping lambda must be positive, got {}", damping));
    require(x0.size() == dim, fmt::format("init: expected a point of size {}, got {}", dim, x0.size()));
    const auto n = x0.size();
    return State{std::move(x0), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    potential.gradient(s.x, s.gradient, rng);
    ++s.gradient_evals;
    rng.normals(s.noise);
    if (adapt_steps == 0 || t < adapt_steps) s.square_average = decay * s.square_average + (1.0 - decay) * s.gradient.cwiseAbs2();
    // G = 1 / (λ + √V), element by element; one pass over the coordinates.
    const auto g = (damping + s.square_average.array().sqrt()).inverse();
    s.x.array() += -h * g * s.gradient.array() + (2.0 * h * g).sqrt() * s.noise.array();
    return {.step_size = h, .gradient_evals = 1};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};

}  // namespace sgmcmc::psgld
