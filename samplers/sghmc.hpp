#pragma once
// SGHMC (Chen, Fox & Guestrin 2014) on any manifold; on a geodesic manifold it is SGGMC (Liu, Zhu &
// Song 2016, Alg. 1). dθ = v dt, dv = -∇U dt - C v dt + N(0, 2C dt), split into A, B, O (DESIGN.md §4.2).
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/kick.hpp>
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
      require(std::isfinite(scalar) && scalar > 0, fmt::format("friction: expected a positive number, got {}", scalar));
  }
  bool is_diagonal() const { return diagonal.size() > 0; }
  const Eigen::VectorXd& diagonal_view() const { return diagonal; }
};

template <Manifold M>
struct Dynamics {
  using State = splitting::PhaseState;
  static constexpr Statistics statistics = Statistic::kinetic_energy | Statistic::gradient_evals | Statistic::reflections;
  M manifold;
  Friction friction{1.0};
  double noise_estimate = 0.0;  ///< V̂: variance of the stochastic gradient's noise (scalar)
  bool empirical_fisher = false;  ///< estimate V̂ per coordinate from each minibatch instead (scalar friction)

  /// A state at x0 with a velocity drawn from its stationary law N(0, Λ(x0)).
  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    friction.validate();
    require(x0.size() == manifold.ambient_size(),
            fmt::format("init: expected a point of size {}, got {}", manifold.ambient_size(), x0.size()));
    if (friction.is_diagonal())
      require(static_cast<Eigen::Index>(friction.diagonal.size()) == x0.size(),
              fmt::format("friction: expected {} diagonal entries, got {}", x0.size(), friction.diagonal.size()));
    Eigen::VectorXd v0(x0.size());
    rng.normals(v0);
    manifold.project(x0, v0);
    return State(std::move(x0), std::move(v0));
  }

  void A(State& s, double t) const { s.reflections += manifold.flow(s.x, s.v, t); }
  void describe(const State& s, StepInfo& info) const { info.kinetic_energy = 0.5 * s.v.squaredNorm(); }
  /// A(t) after a kick that deferred its projection: v <- Λ(x)v and the flow, fused (project_flow).
  void A_projecting(State& s, double t) const { s.reflections += project_flow(manifold, s.x, s.v, t); }

  void B(State& s, double t) const {
    if (friction.is_diagonal()) {
      s.v.array() *= (-t * friction.diagonal_view().array()).exp();
      manifold.project(s.x, s.v);  // a matrix C does not preserve the tangent space: v <- Λ exp(-Ct) v
    } else {
      s.v *= std::exp(-friction.scalar * t);
    }
  }

  /// B(t1)·O(t)·B(t2) in one sweep (scalar friction): the exact frictions are scalings folded into
  /// the kick. Returns false, having done nothing, when it cannot fuse (diagonal friction, empirical
  /// Fisher). With Projection::deferred the caller runs A_projecting next.
  template <class P, class R>
  bool BOB(State& s, double t1, const P& potential, double t, double t2, R& rng,
           splitting::Projection projection = splitting::Projection::now) const {
    if (friction.is_diagonal() || empirical_fisher) return false;
    splitting::kick(manifold, s, potential, t, splitting::kick_sd(friction.scalar, noise_estimate, t), rng,
                    std::exp(-friction.scalar * t1), std::exp(-friction.scalar * t2), projection);
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
};

namespace detail {
inline bool is_aboba(const splitting::StageList& scheme) {
  const auto a = scheme.stages(), b = splitting::aboba.stages();
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].op != b[i].op || a[i].fraction != b[i].fraction) return false;
  return true;
}
}  // namespace detail

/// The split sampler over sghmc::Dynamics (init, step, position: see splitting::Sampler). One case takes
/// a fused path for speed: flat space (Euclidean), a scalar friction and the ABOBA scheme. It performs
/// the same floating-point operations in the same order as the sub-step walk, so the result is the same
/// to the bit (tests/random/test_sghmc_fused.cpp); it only makes fewer passes over memory.
template <Manifold M>
struct Sampler : splitting::Sampler<Dynamics<M>> {
  using Base = splitting::Sampler<Dynamics<M>>;
  using State = typename Base::State;

  Sampler() = default;
  Sampler(Dynamics<M> dynamics) : Base{std::move(dynamics)} {}
  Sampler(Dynamics<M> dynamics, splitting::StageList scheme) : Base{std::move(dynamics), scheme} {}
  Sampler(Dynamics<M> dynamics, splitting::StageList scheme, schedule::StepSize step_size)
      : Base{std::move(dynamics), scheme, step_size} {}

  /// Advances one step (step index t, from 0); no MH test, so its acceptance is 1.
  template <class P, class R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    if constexpr (std::same_as<M, Euclidean>) {
      if (!this->dynamics.friction.is_diagonal() && !this->dynamics.empirical_fisher && detail::is_aboba(this->scheme)) {
        const double h = this->step_size.at(t);
        fused_aboba(s, potential, rng, h);
        return {.step_size = h, .gradient_evals = 1};
      }
    }
    return Base::step(s, potential, rng, t);
  }

 private:
  // ABOBA on R^n as the sub-step walk computes it: A(h/2) x₁ = x + (h/2)v; B(h/2) v₁ = v·e;
  // O(h) g = ∇Ũ(x₁), v₂ = v₁ + (sd·ζ - h·g); B(h/2) v₃ = v₂·e; A(h/2) x₂ = x₁ + (h/2)v₃, with
  // e = exp(-C h/2) and sd = kick_sd(C, V̂, h). The first B is deferred into the last pass (it is the
  // same product), so memory is swept three times (A, gradient, the rest) plus the noise fill, not
  // eight times.
  template <class P, class R>
  void fused_aboba(State& s, const P& potential, R& rng, double h) const {
    const double ta = splitting::aboba.list[0].fraction * h;  // the fractions the walk would use
    const double tb = splitting::aboba.list[1].fraction * h;
    const double to = splitting::aboba.list[2].fraction * h;
    const double c = this->dynamics.friction.scalar;
    const double e = std::exp(-c * tb);
    const double sd = splitting::kick_sd(c, this->dynamics.noise_estimate, to);
    const Eigen::Index n = s.x.size();
    if constexpr (SeparablePotential<P>) {
      if (potential.is_separable()) {
        // ∂_i U depends on x_i alone: inline it and sweep x and v once. Neither the gradient nor the
        // noise is stored: the noise is drawn into an L1-sized buffer chunk by chunk (a Stream's block
        // fills equal one whole fill, so the draws are the sub-step walk's to the bit).
        ++s.gradient_evals;
        constexpr Eigen::Index chunk = 1024;
        alignas(64) double buffer[chunk];
        for (Eigen::Index i0 = 0; i0 < n; i0 += chunk) {
          const Eigen::Index len = std::min<Eigen::Index>(chunk, n - i0);
          rng.normals(buffer, len);
          double* __restrict x = s.x.data() + i0;
          double* __restrict v = s.v.data() + i0;
          const double* __restrict z = buffer;
          for (Eigen::Index i = 0; i < len; ++i) {
            const double x1 = x[i] + ta * v[i];
            const double v2 = v[i] * e + (sd * z[i] - to * potential.partial(i0 + i, x1));
            const double v3 = v2 * e;
            v[i] = v3;
            x[i] = x1 + ta * v3;
          }
        }
        return;
      }
    }
    s.reflections += this->dynamics.manifold.flow(s.x, s.v, ta);
    potential.gradient(s.x, s.gradient, rng);
    ++s.gradient_evals;
    // A Stream's block fills equal one whole fill, so its noise is drawn a chunk at a time, each
    // chunk used while it is still in L1; any other engine fills the whole vector first.
    const Eigen::Index chunk = std::same_as<R, random::Stream> ? 1024 : n;
    for (Eigen::Index i0 = 0; i0 < n; i0 += chunk) {
      const Eigen::Index len = std::min(chunk, n - i0);
      rng.normals(s.noise.segment(i0, len));
      double* __restrict x = s.x.data() + i0;
      double* __restrict v = s.v.data() + i0;
      const double* __restrict g = s.gradient.data() + i0;
      const double* __restrict z = s.noise.data() + i0;
      for (Eigen::Index i = 0; i < len; ++i) {
        const double v2 = v[i] * e + (sd * z[i] - to * g[i]);
        const double v3 = v2 * e;
        v[i] = v3;
        x[i] = x[i] + ta * v3;
      }
    }
  }
};

/// The SGD-with-momentum parametrisation of the SGHMC paper (Eq. 15): Δθ = v,
/// Δv = -η∇Ũ - αv + N(0, 2(α - β̂)η). With unit mass it maps to v = h·r, η = h², α = C·h and
/// β̂ = V̂η/2 (MATH.md §0), so the sampler runs in (h, C, V̂).
struct MomentumParams {
  double step_size;       ///< h = sqrt(η)
  double friction;        ///< C = α / h
  double noise_estimate;  ///< V̂ = 2β̂ / η
};
inline MomentumParams from_momentum(double learning_rate, double momentum_decay, double beta_hat = 0.0) {
  require(std::isfinite(learning_rate) && learning_rate > 0,
          fmt::format("learning_rate: expected a positive number, got {}", learning_rate));
  require(std::isfinite(momentum_decay) && momentum_decay > 0 && momentum_decay < 1,
          fmt::format("momentum_decay: expected a number in (0, 1), got {}", momentum_decay));
  require(beta_hat >= 0 && beta_hat <= momentum_decay,
          fmt::format("beta_hat: expected a number in [0, momentum_decay], got {}", beta_hat));
  const double h = std::sqrt(learning_rate);
  return {h, momentum_decay / h, 2.0 * beta_hat / learning_rate};
}

}  // namespace sgmcmc::sghmc
