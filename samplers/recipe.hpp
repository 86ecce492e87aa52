#pragma once
// The generic complete-recipe sampler (Ma, Chen & Fox 2015; docs/math.md#the-complete-recipe). Every
// continuous Markov process with stationary law ∝ exp(-H(z)) is
//   dz = [-(D(z) + Q(z))∇H(z) + Γ(z)] dt + sqrt(2D(z)) dW,   Γ_i = Σ_j ∂_j (D_ij + Q_ij),
// with D ⪰ 0 and Q = -Qᵀ (Theorem 1). Its Euler–Maruyama step, derived from that SDE, is
//   z <- z + h[-(D+Q)∇H̃ + Γ] + N(0, h(2D - hB̂))
// (the paper's printed Eq. 6 puts Γ inside "-ε[... + Γ]": a sign typo; Eq. 9 for B̂).
// The user gives ∇H̃ (a potential over z, or U(θ) with a standard augmentation), D and Q (recipe::Fields
// with Γ by autodiff, finite differences or by hand; recipe::Constant), optionally B̂.
//
// `Scheme::semi_implicit` updates the non-momentum coordinates first and the momentum r at the updated
// point — the order of the SGHMC paper's Algorithm 2 and of the library's `euler` splitting — so the
// named samplers can be checked against this one trajectory for trajectory.
#include <cmath>
#include <cstdint>
#include <string>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/recipe/checks.hpp>
#include <sgmcmc/modules/recipe/gamma.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>

namespace sgmcmc::recipe {

/// How z is built from the target's θ (docs/config.md, sampler `recipe`, `augment`).
enum class Augment : std::uint8_t {
  none,        ///< z = θ, H = U: the potential itself is H (so a user's H̃ over z goes here)
  momentum,    ///< z = (θ, r), H = U(θ) + rᵀr/2
  thermostat,  ///< z = (θ, r, ξ), H = U(θ) + rᵀr/2 + d(ξ - A)²/2 (SGNHT's Hamiltonian, d = dim θ)
};

enum class Scheme : std::uint8_t {
  euler,          ///< explicit Euler–Maruyama: every term at the current z (complete recipe Eq. 9)
  semi_implicit,  ///< θ (and ξ) first, then r at the updated point (SGHMC paper Alg. 2 ordering)
};

struct State {
  Eigen::VectorXd z;  ///< the augmented state
  Eigen::VectorXd x;  ///< θ = the first dim(θ) coordinates of z (what the driver records)
  Eigen::VectorXd grad_h, grad_u, gamma, drift, noise;  ///< scratch
  Eigen::MatrixXd d, q, dq, cov;                         ///< scratch
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen;  ///< scratch: a dense D's eigenvalues (check_psd)
  GaussianNoise gaussian;
  std::uint64_t gradient_evals = 0;
  std::uint64_t clipped = 0;  ///< steps whose injected covariance was clipped to PSD
  std::uint64_t reflections = 0;
};

template <class F>
struct Sampler {
  using State = recipe::State;
  static constexpr Statistics statistics = stats::step_size | stats::gradient_evals;
  F fields;                   ///< D(z), Q(z), Γ(z): recipe::Fields or recipe::Constant
  Augment augment = Augment::none;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  Eigen::MatrixXd noise_estimate{};  ///< B̂ over z (empty: 0). SGHMC's V̂ is diag(0, V̂·I)
  NoisePolicy noise_policy = NoisePolicy::error;
  Scheme scheme = Scheme::euler;
  double thermostat_a = 1.0;       ///< A in SGNHT's H (ξ's stationary mean); the initial ξ
  double tolerance = 1e-9;         ///< for the skew/PSD checks, relative to max(1, max|entry|)
  std::uint64_t check_every = 1;   ///< check D ⪰ 0 and Q = -Qᵀ every k steps (0: only at init)

  Eigen::Index z_size(Eigen::Index d) const {
    return augment == Augment::none ? d : augment == Augment::momentum ? 2 * d : 2 * d + 1;
  }

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    step_size.validate();
    require(x0.size() >= 1 && x0.allFinite(), "init: expected a finite point");
    require(std::isfinite(tolerance) && tolerance >= 0, "tolerance: expected a number >= 0, got {}", tolerance);
    require(std::isfinite(thermostat_a), "thermostat_a: expected a finite number");
    require(scheme == Scheme::euler || augment != Augment::none,
            "scheme: semi_implicit needs a momentum (augment momentum or thermostat)");
    const Eigen::Index d = x0.size(), n = z_size(d);
    require(noise_estimate.size() == 0 || (noise_estimate.rows() == n && noise_estimate.cols() == n),
            "noise_estimate: expected a {0}×{0} matrix B̂ over z, got {1}×{2}", n, noise_estimate.rows(),
                        noise_estimate.cols());
    State s;
    s.z.setZero(n);
    s.z.head(d) = x0;
    if (augment != Augment::none) {
      Eigen::VectorXd r(d);
      rng.normals(r);  // r ~ N(0, I), its stationary law (as sghmc/sgnht draw it)
      s.z.segment(d, d) = r;
    }
    if (augment == Augment::thermostat) s.z[2 * d] = thermostat_a;
    s.x = x0;
    s.grad_h.setZero(n), s.grad_u.setZero(d), s.gamma.setZero(n), s.drift.setZero(n), s.noise.setZero(n);
    fields.evaluate(s.z, s.d, s.q, s.gamma);
    check_psd(s.d, s.z, tolerance, "D", s.eigen);
    check_skew(s.q, s.z, tolerance, "Q");
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const std::uint64_t evals0 = s.gradient_evals;
    const bool check = check_every > 0 && t % check_every == 0;
    if (scheme == Scheme::euler) {
      hamiltonian_gradient(s, potential, rng);
      evaluate(s, check);
      evaluate_drift(s);
      inject(s, h, rng);
      s.z += h * s.drift + s.noise;
    } else {
      semi_implicit(s, potential, rng, h, check);
    }
    s.x = s.z.head(s.x.size());
    return {.step_size = h, .gradient_evals = s.gradient_evals - evals0};
  }
  const Eigen::VectorXd& position(const State& s) const { return augment == Augment::none ? s.z : s.x; }
  void describe(const State&, StepInfo&) const {}

 private:
  // ∇H(z) for the augmentation: (∇Ũ(θ), r, d(ξ - A)).
  template <class P, class R>
  void hamiltonian_gradient(State& s, const P& potential, R& rng) const {
    const Eigen::Index d = s.x.size();
    if (augment == Augment::none) {
      potential.gradient(s.z, s.grad_h, rng);
    } else {
      s.x = s.z.head(d);
      potential.gradient(s.x, s.grad_u, rng);
      s.grad_h.head(d) = s.grad_u;
      s.grad_h.segment(d, d) = s.z.segment(d, d);
      if (augment == Augment::thermostat) s.grad_h[2 * d] = static_cast<double>(d) * (s.z[2 * d] - thermostat_a);
    }
    ++s.gradient_evals;
    require(s.grad_h.size() == s.z.size(), "gradient: expected {} entries, got {}", s.z.size(), s.grad_h.size());
  }

  void evaluate(State& s, bool check) const {
    fields.evaluate(s.z, s.d, s.q, s.gamma);
    if (check) {
      check_psd(s.d, s.z, tolerance, "D", s.eigen);
      check_skew(s.q, s.z, tolerance, "Q");
    }
    s.dq = s.d + s.q;
  }

  // drift = -(D+Q)∇H + Γ. The product goes into drift and is negated there: `-(dq * grad_h)` would
  // evaluate it into a temporary first (the same doubles, one allocation per step).
  static void evaluate_drift(State& s) {
    s.drift.noalias() = s.dq * s.grad_h;
    s.drift = -s.drift;
    s.drift += s.gamma;
  }

  template <class R>
  void inject(State& s, double h, R& rng) const {
    s.cov = (2.0 * h) * s.d;
    if (noise_estimate.size() > 0) s.cov -= (h * h) * noise_estimate;
    if (s.gaussian.draw(s.cov, noise_policy, tolerance, "noise_estimate", rng, s.noise) > 0) ++s.clipped;
  }

  // First the coordinates outside r (θ, and ξ), whose drift must not involve ∇U: (D+Q)_{i,θ} = 0 and no
  // diffusion there; then r with ∇Ũ, D, Q and Γ evaluated at the updated point.
  template <class P, class R>
  void semi_implicit(State& s, const P& potential, R& rng, double h, bool check) const {
    const Eigen::Index d = s.x.size(), n = s.z.size();
    evaluate(s, check);
    require(s.dq.leftCols(d).topRows(d).cwiseAbs().maxCoeff() == 0.0 &&
                (n == 2 * d || s.dq.row(2 * d).head(d).cwiseAbs().maxCoeff() == 0.0),
            "scheme: semi_implicit needs (D+Q)_{iθ} = 0 outside the momentum (θ's drift may not use ∇U)");
    require(s.d.topLeftCorner(d, d).cwiseAbs().maxCoeff() == 0.0 && (n == 2 * d || s.d(2 * d, 2 * d) == 0.0),
            "scheme: semi_implicit needs D = 0 outside the momentum block");
    // ∇H with the θ part unused (its coefficients are zero): only r and ξ enter.
    s.grad_h.head(d).setZero();
    s.grad_h.segment(d, d) = s.z.segment(d, d);
    if (n > 2 * d) s.grad_h[2 * d] = static_cast<double>(d) * (s.z[2 * d] - thermostat_a);
    evaluate_drift(s);
    s.z.head(d) += h * s.drift.head(d);
    if (n > 2 * d) s.z[2 * d] += h * s.drift[2 * d];
    // r at (θ', r, ξ').
    hamiltonian_gradient(s, potential, rng);
    evaluate(s, check);
    evaluate_drift(s);
    inject(s, h, rng);
    s.z.segment(d, d) += h * s.drift.segment(d, d) + s.noise.segment(d, d);
  }
};

}  // namespace sgmcmc::recipe
