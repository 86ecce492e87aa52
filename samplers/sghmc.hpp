#pragma once
// SGHMC (Chen, Fox & Guestrin 2014) on any manifold; on a geodesic manifold it is SGGMC (Liu, Zhu &
// Song 2016, Alg. 1). dθ = v dt, dv = -∇U dt - C v dt + N(0, 2C dt), split into A, B, O
// (docs/math.md#split-dynamics) in the seed papers' letters; or into Leimkuhler & Matthews's gradient-only
// kick and exact OU step (gradient_kick, exact_ou: splitting::lm_baoab, docs/math.md#leimkuhler-matthews-baoab).
#include <cmath>
#include <cstdint>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>
#include <sgmcmc/modules/splitting/ornstein_uhlenbeck.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/modules/splitting/sampler.hpp>

namespace sgmcmc::sghmc {

/// The friction C: a positive scalar, or a positive diagonal (one entry per ambient coordinate).
struct Friction {
  double scalar = 1.0;
  Eigen::VectorXd diagonal;  ///< empty for a scalar friction

  // Constructors do not throw (see StepSize); Dynamics::init calls validate().
  Friction() = default;
  explicit Friction(double c) noexcept : scalar(c) {}
  explicit Friction(const Eigen::VectorXd& diag) : scalar(0.0), diagonal(diag) {}
  void validate() const {
    if (is_diagonal())
      require(diagonal.allFinite() && (diagonal.array() > 0).all(), "friction: expected positive finite diagonal entries");
    else
      require(std::isfinite(scalar) && scalar > 0, "friction: expected a positive number, got {}", scalar);
  }
  bool is_diagonal() const { return diagonal.size() > 0; }
  const Eigen::VectorXd& diagonal_view() const { return diagonal; }
};

template <Manifold M>
struct Dynamics {
  using State = splitting::PhaseState;
  static constexpr Statistics statistics = stats::kinetic_energy | stats::gradient_evals | stats::reflections;
  M manifold;
  Friction friction{1.0};
  double noise_estimate = 0.0;  ///< V̂: variance of the stochastic gradient's noise (scalar)
  bool empirical_fisher = false;  ///< estimate V̂ per coordinate from each minibatch instead (scalar friction)

  /// A state at x0 with a velocity drawn from its stationary law N(0, Λ(x0)).
  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    friction.validate();
    require(x0.size() == manifold.ambient_size(),
            "init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size());
    if (friction.is_diagonal())
      require(static_cast<Eigen::Index>(friction.diagonal.size()) == x0.size(),
              "friction: expected {} diagonal entries, got {}", x0.size(), friction.diagonal.size());
    Eigen::VectorXd v0(x0.size());
    rng.normals(v0);
    manifold.project(x0, v0);
    return State(std::move(x0), std::move(v0));
  }

  void A(State& s, double t) const { s.reflections += manifold.flow(s.x, s.v, t); }
  void describe(const State& s, StepInfo& info) const { info.kinetic_energy = 0.5 * s.v.squaredNorm(); }

  void B(State& s, double t) const {
    if (friction.is_diagonal()) {
      s.v.array() *= (-t * friction.diagonal_view().array()).exp();
      manifold.project(s.x, s.v);  // a matrix C does not preserve the tangent space: v <- Λ exp(-Ct) v
    } else {
      s.v *= std::exp(-friction.scalar * t);
    }
  }

  /// A·B·O·B·A as the manifold's fused sweep (FusableDynamics): with a scalar friction C, B·O·B is the
  /// chunk kick v <- e^{-C b2}·(e^{-C b1}·v + (sd·ζ - o·g)), and since neither B nor O reads the flow's
  /// outcome the first flow may join the sweep too (for a separable potential: splitting::kick_sweep).
  /// On flat space this is the sub-step walk to the bit. Declines (returns false) for a diagonal
  /// friction (it does not commute with the projection) and for the empirical Fisher.
  template <class P, class R>
  bool fused_ABOBA(State& s, const ABOBATimes& t, const P& potential, R& rng) const {
    if (friction.is_diagonal() || empirical_fisher) return false;
    const double c = friction.scalar;
    const double pre = std::exp(-c * t.b1), post = t.b2 == t.b1 ? pre : std::exp(-c * t.b2);  // ABOBA: one exp
    const splitting::KickCoefficients k{pre, post, splitting::kick_sd(c, noise_estimate, t.o), t.o};
    splitting::kick_sweep(manifold, s, potential, rng, k, t.a1, t.a2);
    return true;
  }

  void B_explicit(State& s, double t) const {
    if (friction.is_diagonal()) {
      s.v.array() *= 1.0 - t * friction.diagonal_view().array();
      manifold.project(s.x, s.v);
    } else {
      s.v *= 1.0 - friction.scalar * t;
    }
  }

  template <class P, class R>
  void O(State& s, const P& potential, double t, R& rng) const {
    if (empirical_fisher) {
      require(!friction.is_diagonal(), "noise_estimate: empirical_fisher needs a scalar friction");
      splitting::kick_empirical(manifold, s, potential, t, friction.scalar, rng);
    } else if (friction.is_diagonal()) {
      splitting::kick_diagonal(manifold, s, potential, t, friction.diagonal_view(), noise_estimate, rng);
    } else {
      splitting::kick(manifold, s, potential, t, splitting::kick_sd(friction.scalar, noise_estimate, t), rng);
    }
  }

  /// Leimkuhler & Matthews's B (DynamicsWithExactOU): v <- Λ(x)(v - t∇Ũ(x)), no noise.
  template <class P, class R>
  void gradient_kick(State& s, const P& potential, double t, R& rng) const {
    splitting::gradient_kick(manifold, s, potential, t, rng);
  }
  /// Leimkuhler & Matthews's O: the exact OU step of dv = -Cv dt + sqrt(2C) dW over t, its noise lowered
  /// for the step's kicks' gradient noise V̂·kick_variance (splitting::ou_noise_variance).
  template <class R>
  void exact_ou(State& s, double t, double kick_variance, R& rng) const {
    require(!empirical_fisher, "noise_estimate: empirical_fisher is not available with Leimkuhler & Matthews's scheme "
            "(lm_baoab); give a number");
    if (friction.is_diagonal())
      splitting::exact_ou_diagonal(manifold, s, friction.diagonal_view(), t, noise_estimate, kick_variance, rng);
    else
      splitting::exact_ou(manifold, s, friction.scalar, t, noise_estimate, kick_variance, rng);
  }
};

/// The split sampler over sghmc::Dynamics (init, step, position: see splitting::Sampler). ABOBA with a
/// scalar friction runs as one fused sweep on any manifold (Dynamics::fused_ABOBA and the manifold's
/// flow_kick_flow), with no manifold-specific code here.
template <Manifold M>
using Sampler = splitting::Sampler<Dynamics<M>>;

/// The SGD-with-momentum parametrisation of the SGHMC paper (Eq. 15): Δθ = v,
/// Δv = -η∇Ũ - αv + N(0, 2(α - β̂)η). With unit mass it maps to v = h·r, η = h², α = C·h and
/// β̂ = V̂η/2 (docs/math.md#split-dynamics), so the sampler runs in (h, C, V̂).
struct MomentumParams {
  double step_size;       ///< h = sqrt(η)
  double friction;        ///< C = α / h
  double noise_estimate;  ///< V̂ = 2β̂ / η
};
inline MomentumParams from_momentum(double learning_rate, double momentum_decay, double beta_hat = 0.0) {
  require(std::isfinite(learning_rate) && learning_rate > 0,
          "learning_rate: expected a positive number, got {}", learning_rate);
  require(std::isfinite(momentum_decay) && momentum_decay > 0 && momentum_decay < 1,
          "momentum_decay: expected a number in (0, 1), got {}", momentum_decay);
  require(beta_hat >= 0 && beta_hat <= momentum_decay,
          "beta_hat: expected a number in [0, momentum_decay], got {}", beta_hat);
  const double h = std::sqrt(learning_rate);
  return {h, momentum_decay / h, 2.0 * beta_hat / learning_rate};
}

}  // namespace sgmcmc::sghmc
