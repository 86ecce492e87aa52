#pragma once
// A fixed diagonal preconditioner for any flat-space sampler, estimated during a warm-up: the inner
// sampler runs unchanged on φ with θ = s ⊙ φ (s > 0 a constant diagonal scale), i.e. on the potential
// U_s(φ) = U(s ⊙ φ) with ∇_φ U_s = s ⊙ ∇U(θ). In θ this is a complete-recipe pair (Ma, Chen & Fox 2015)
// with constant D and Q, so Γ = 0 and the sampler stays exact:
//   SGLD on φ  = SGLD with D = diag(s²), Q = 0:  θ ← θ − h s²⊙∇Ũ + √(2h) s⊙ξ;
//   SGHMC on φ = z = (θ, r), D = diag(0, C·I), Q = [[0, −diag s], [diag s, 0]]:  θ̇ = s⊙r,
//                ṙ = −s⊙∇U − C r + N(0, 2C)  (a scalar friction in the preconditioned coordinates);
//   HMC on φ   = HMC with the diagonal mass matrix diag(s⁻²).
// tests/recipe/test_recipe.cpp checks the first two against the generic recipe sampler to 1e-12.
//
// The warm-up (`adapt_steps` K > 0): s = 1 for steps 0 … K−1 while the mean of ∇Ũ⊙∇Ũ over the second
// half of them is collected (the first half lets the chain reach the posterior); after step K−1,
// s_i = 1/√(V_i + ε) normalised to geometric mean 1 (so only the coordinates' relative scales change
// and the step size keeps its meaning), φ = θ/s, and s stays fixed. For a Gaussian posterior
// E[(∂_i U)²] = (Σ⁻¹)_ii, so s_i ∝ 1/√(Σ⁻¹)_ii: the coordinates' own scales (with minibatch noise, a
// little smaller). Draws and the reported position are θ.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::preconditioned {

/// A sampler state whose position the adaptor may set (`x`, the point in the inner sampler's
/// coordinates): needed to re-express the chain in φ when the scale is fixed.
template <class S>
concept StateWithPosition = requires(S s) {
  { s.x } -> std::same_as<Eigen::VectorXd&>;
};

/// U_s(φ) = U(s ⊙ φ): the potential the inner sampler sees. Holds pointers to the chain's own
/// potential and scale for one step (no copies, no allocation after the first step).
template <class P>
struct Scaled {
  const P* base;
  const Eigen::VectorXd* scale;
  Eigen::VectorXd* theta;            ///< scratch: s ⊙ φ
  Eigen::VectorXd* square_sum;       ///< non-null while the warm-up collects Σ ∇Ũ⊙∇Ũ
  std::uint64_t* collected;

  template <class R>
  void gradient(const Eigen::VectorXd& phi, Eigen::VectorXd& g, R& rng) const {
    *theta = scale->cwiseProduct(phi);
    base->gradient(*theta, g, rng);
    if (square_sum) *square_sum += g.cwiseAbs2(), ++*collected;
    g.array() *= scale->array();
  }
  double value(const Eigen::VectorXd& phi) const
    requires PotentialWithValue<P>
  {
    *theta = scale->cwiseProduct(phi);
    return base->value(*theta);
  }
  void exact_gradient(const Eigen::VectorXd& phi, Eigen::VectorXd& g) const
    requires PotentialWithValue<P>
  {
    *theta = scale->cwiseProduct(phi);
    base->exact_gradient(*theta, g);
    g.array() *= scale->array();
  }
};

template <class Inner>
struct State {
  Inner inner;                  ///< the inner sampler's state, in φ
  Eigen::VectorXd scale;        ///< s (ones during the warm-up)
  Eigen::VectorXd square_sum;   ///< Σ ∇Ũ⊙∇Ũ collected in the warm-up's second half
  std::uint64_t collected = 0;  ///< gradients in square_sum
  Eigen::VectorXd theta;        ///< θ = s ⊙ φ, the reported position
  Eigen::VectorXd scratch;      ///< scratch for the scaled potential
};

template <class S>
  requires StateWithPosition<typename S::State>
struct Sampler {
  using State = preconditioned::State<typename S::State>;
  static constexpr Statistics statistics = S::statistics;
  S inner;
  /// SamplerOnManifold, as the inner sampler (flat space: the metric rescales coordinates).
  const auto& manifold_of() const
    requires SamplerOnManifold<S>
  {
    return inner.manifold_of();
  }
  std::uint64_t adapt_steps = 0;  ///< K: the warm-up; 0 keeps the initial scale
  Eigen::VectorXd initial_scale;  ///< s before (or without) a warm-up; empty: ones
  double floor = 1e-12;           ///< ε under the square root: a coordinate with no gradient keeps a finite scale

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    require(floor > 0, "preconditioner: the floor must be positive, got {}", floor);
    const auto d = x0.size();
    Eigen::VectorXd scale = initial_scale.size() ? initial_scale : Eigen::VectorXd::Ones(d);
    require(scale.size() == d && (scale.array() > 0).all() && scale.allFinite(),
            "preconditioner: expected {} positive scales, got {}", d, scale.size());
    Eigen::VectorXd phi = x0.cwiseQuotient(scale);
    return State{inner.init(std::move(phi), rng), std::move(scale), Eigen::VectorXd::Zero(d), 0, std::move(x0), Eigen::VectorXd(d)};
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const bool collect = t < adapt_steps && 2 * t >= adapt_steps;
    const Scaled<P> scaled{&potential, &s.scale, &s.scratch, collect ? &s.square_sum : nullptr, &s.collected};
    const StepInfo info = inner.step(s.inner, scaled, rng, t);
    if (t + 1 == adapt_steps && s.collected > 0) fix_scale(s);
    s.theta = s.scale.cwiseProduct(inner.position(s.inner));
    return info;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.theta; }
  void describe(const State& s, StepInfo& info) const { inner.describe(s.inner, info); }

  /// s_i = 1/√(V_i + ε), V the collected mean of ∇Ũ⊙∇Ũ, normalised to geometric mean 1, into `scale`.
  void scale_from(const Eigen::VectorXd& square_sum, std::uint64_t collected, Eigen::VectorXd& scale) const {
    scale.array() = (square_sum.array() / static_cast<double>(collected) + floor).rsqrt();
    scale /= std::exp(scale.array().log().mean());
  }
  /// s fixed from the warm-up's squares; the chain re-expressed in φ. In place, θ held in s.theta (the
  /// step sets it again after): no allocation.
  void fix_scale(State& s) const {
    s.theta = s.scale.cwiseProduct(s.inner.x);
    scale_from(s.square_sum, s.collected, s.scale);
    s.inner.x = s.theta.cwiseQuotient(s.scale);
  }

  /// A resume's check of a saved state (SamplerWithStateCheck): its scale must be the one this sampler
  /// has after `steps_done` steps — the initial scale until the warm-up ends (or without one), then the
  /// scale of its collected squares (the same code, so the same bits) — and its squares non-negative.
  /// Empty when it is; else what is wrong.
  std::string check_state(const State& s, std::uint64_t steps_done) const {
    if (!(s.square_sum.array() >= 0).all()) return "square_sum: expected non-negative numbers (a sum of squares)";
    const bool fixed = adapt_steps > 0 && steps_done >= adapt_steps && s.collected > 0;
    Eigen::VectorXd expected;
    if (fixed) scale_from(s.square_sum, s.collected, expected);
    else expected = initial_scale.size() ? initial_scale : Eigen::VectorXd::Ones(s.scale.size());
    if (expected.size() != s.scale.size()) return fmt::format("scale: expected {} numbers, got {}", expected.size(), s.scale.size());
    const double off = ((s.scale - expected).array().abs() / expected.array().abs()).maxCoeff();
    if (!(off <= 1e-12))
      return fmt::format("scale: not the scale {} (off by {:.3g} relative): the scale or the warm-up's sums were edited",
                         fixed ? "the warm-up's collected squares give" : "the chain starts with until its warm-up ends", off);
    return {};
  }
};

}  // namespace sgmcmc::preconditioned
