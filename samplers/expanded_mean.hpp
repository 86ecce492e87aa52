#pragma once
// Stochastic-gradient samplers on a K×W expanded mean whose rows are K points of the simplex Δ^{W-1}
// (modules/simplex/expanded_mean.hpp's row form): online LDA's topics (Patterson & Teh 2013; complete
// recipe, Ma, Chen & Fox 2015 §4.2 and App. F.2), or any Dirichlet-multinomial posterior whose data enter
// through counts. The potential is a `CountPotential` (models/text/lda.hpp's Model): it fills the
// statistics n_kw, n_k· at the current π and names β of the prior θ_kw ~ Gamma(β, 1).
//
// State: θ and π stored as vectors, the K×W matrix column-major (`as_rows` views them); `position` is
// vec(π). Every update is mirrored at θ = 0 (Patterson & Teh §3).
//
// `Langevin` (step size ε, Patterson & Teh's convention dt = ε/2; ξ ~ N(0, ε)):
// - metric fisher, SGRLD: D = G(θ)⁻¹ = diag(θ), Γ = 1 (docs/math.md#expanded-mean-sgrld):
//     θ_kw <- | θ_kw + (ε/2)(β − θ_kw + n_kw − π_kw n_k·) + θ_kw^{1/2} ξ_kw |;
// - metric identity, SGLD (Welling & Teh 2011), D = I on the same θ:
//     θ_kw <- | θ_kw + (ε/2) ∂ log p/∂θ_kw + ξ_kw |   (∂ log p: complete recipe Eq. S.29).
//
// `Hamiltonian` (step h = ε; z = (θ, r), H = U + rᵀr/2):
// - metric identity, SGHMC (Chen, Fox & Guestrin 2014; D = diag(0, C·I), Q = [[0, −I], [I, 0]], Γ = 0):
//     θ <- θ + h r,   r <- r + h ∂log p/∂θ − h C r + N(0, 2Ch);
// - metric fisher, SGRHMC (complete recipe §3.3, Eq. 12's dynamics; docs/math.md, gSGRHMC row) with the
//   expanded-mean Fisher metric G(θ) = diag(θ)⁻¹: D = diag(0, G⁻¹) = diag(0, diag θ),
//   Q = [[0, −G^{-1/2}], [G^{-1/2}, 0]], G^{-1/2} = diag(√θ). Γ_i = Σ_j ∂(D_ij + Q_ij)/∂z_j (complete recipe
//   Eq. 3): the θ rows have D_θ· = 0 and Q_θr = −diag(√θ), which depends on θ only, so ∂/∂r of it is 0 →
//   Γ_θ = 0; the r rows have Q_rθ = diag(√θ), D_rr = diag(θ): Γ_{r_kw} = ∂√θ_kw/∂θ_kw = 1/(2√θ_kw). So
//     θ <- θ + h √θ ⊙ r
//     r <- r + h[ (β − ½ + n_kw − θ_kw − π_kw n_k·)/√θ_kw − θ_kw r_kw ] + √(2hθ_kw) ξ,   ξ ~ N(0, 1)
//   (−√θ ∂U/∂θ = (β − 1 + n_kw − θ_kw − π_kw n_k·)/√θ_kw; +Γ adds ½/√θ). This is samplers/sgrhmc.hpp's step
//   with metric::FisherDiagonal on the model's Euclidean gradient, checked to 1e-12 for both schemes in
//   tests/text/lda_recipe.cpp; it is written here because that sampler has no reflection at θ = 0 (the
//   metric throws there) and because this loop takes the bounded θ-scaled force from the counts. `variant
//   = naive` drops Γ (complete recipe Eq. 27's counter-example). Integrator: `scheme` (default
//   semi_implicit, θ first and r kicked at the new θ; the equations above are the explicit-Euler form).
//   Near θ = 0 the r-force ~ (β − ½ + n)/√θ is stiff, and explicit Euler pumps energy into those
//   coordinates: on the Dirichlet-type test its bias at h = 0.01 is +180% on a zero-count E[θ_w],
//   semi-implicit +40%.
//
// Reflection for the momentum samplers. Extend the target evenly, p̃(θ) = p(|θ|) coordinate by
// coordinate, with G(θ) = diag(|θ|)⁻¹. The map S_i: (θ_i, r_i) -> (−θ_i, −r_i) leaves p̃(θ)N(r) invariant
// and commutes with the dynamics: dθ_i = a(θ_i) r_i with a even (1 or √|θ_i|) is odd under S_i, and
// dr_i = −a ∂_iU − d r_i + a'(θ_i) has ∂_iU odd, d even, a' odd, so it is odd too; the noise is
// symmetric. The Euler map of an S_i-equivariant drift is S_i-equivariant, so folding it by S_i — if
// θ_i < 0 then (θ_i, r_i) <- (−θ_i, −r_i) — is exactly the chain the extended sampler induces on θ > 0,
// with stationary law the fold of p̃(θ)N(r), i.e. p(θ)N(r). Folding θ alone (θ <- |θ|, r kept) is not
// the image of any S-equivariant map: it sends a particle that was falling into 0 back out still
// "falling", and the law is wrong (`flip_on_reflect = false`, the counter-example tests/text catches).
//
// A non-finite θ or r throws `Error` naming the sampler, the step and the step size (as the LDA samplers
// always did; a caller such as experiments/topics/lda.cpp records it and stops the run).
#include <cmath>
#include <cstdint>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/simplex/expanded_mean.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>

namespace sgmcmc::expanded_mean {

/// The diffusion on θ: the expanded-mean Fisher metric or none.
enum class Metric : std::uint8_t {
  fisher,    ///< D = G⁻¹ = diag θ: SGRLD (`Langevin`), SGRHMC (`Hamiltonian`)
  identity,  ///< D = I on θ: SGLD (`Langevin`), SGHMC with friction C (`Hamiltonian`)
};

/// The state of a row-form sampler: θ and π (K×W, column-major), the momentum, and scratch.
struct RowsState : Point {
  Eigen::VectorXd r;                 ///< K×W momentum, column-major (`Hamiltonian`); empty for `Langevin`
  Counts counts;                     ///< scratch: the potential's statistics at the step's π
  Eigen::VectorXd noise, row_sums;   ///< scratch (row_sums: θ_k·)
  std::uint64_t gradient_evals = 0;  ///< statistics drawn from the potential (one per step)
  std::uint64_t reflections = 0;     ///< coordinates mirrored at 0
};

namespace detail {

/// Starts at θ (vec of K×W, > 0): π = θ with rows normalised, zeroed scratch.
inline RowsState rows_start(Eigen::Index rows, const schedule::StepSize& step_size, Eigen::VectorXd theta) {
  step_size.validate();
  require(rows >= 1, "rows: expected a positive integer, got {}", rows);
  require(theta.size() > 0 && theta.size() % rows == 0,
          "init: expected a K×W matrix with K = {} rows, got {} entries", rows, theta.size());
  require(theta.allFinite() && (theta.array() > 0).all(), "init: expected an expanded mean θ > 0");
  RowsState s;
  s.theta = std::move(theta);
  s.x.resize(s.theta.size());
  normalize_rows(as_rows(std::as_const(s.theta), rows), as_rows(s.x, rows), s.row_sums);
  s.noise.resize(s.theta.size());
  return s;
}

/// θ = W π row by row (each row lifted as `lift` lifts a vector) from x0 = vec(π), rows on the simplex.
inline Eigen::VectorXd lift_rows(const Eigen::VectorXd& x0, Eigen::Index rows) {
  require(rows >= 1 && x0.size() > 0 && x0.size() % rows == 0,
          "init: expected a K×W matrix with K = {} rows, got {} entries", rows, x0.size());
  const auto pi = as_rows(x0, rows);
  require(x0.allFinite() && (x0.array() >= 0).all() && ((pi.rowwise().sum().array() - 1.0).abs() < 1e-9).all(),
          "init: expected K rows on the simplex (π_kw >= 0, Σ_w π_kw = 1)");
  return (static_cast<double>(pi.cols()) * x0).cwiseMax(tiny);
}

inline void check_counts(const RowsState& s, Eigen::Index rows) {
  const Eigen::Index cols = s.theta.size() / rows;
  require(s.counts.nkw.rows() == rows && s.counts.nkw.cols() == cols && s.counts.nk.size() == rows,
          "counts: expected n_kw {}×{} and n_k {}, got {}×{} and {}", rows, cols, rows, s.counts.nkw.rows(),
                      s.counts.nkw.cols(), s.counts.nk.size());
}

[[noreturn]] inline void non_finite(const char* sampler, const char* what, std::uint64_t t, double h) {
  throw Error(fmt::format("{}: non-finite {} at step {} (step size {} too large?)", sampler, what, t, h));
}

}  // namespace detail

/// SGRLD (metric fisher) or SGLD (metric identity) on the rows' expanded mean, mirrored at 0. The step
/// size is Patterson & Teh's ε (dt = ε/2); ε_t = a(1 + t/b)^(−c) is `schedule::StepSize::polynomial`.
struct Langevin {
  using State = RowsState;
  static constexpr Statistics statistics =
      stats::step_size | stats::gradient_evals | stats::reflections;
  Eigen::Index rows = 1;  ///< K: θ is K×W, each row a point of Δ^{W-1}
  Metric metric = Metric::fisher;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);

  const char* name() const { return metric == Metric::fisher ? "sgrld" : "sgld"; }

  /// Starts at x0 = vec(π) (K×W, rows on the simplex), each row lifted to θ_k = W π_k.
  template <class R>
  State init(Eigen::VectorXd x0, R& /*rng*/) const {
    return detail::rows_start(rows, step_size, detail::lift_rows(x0, rows));
  }
  /// Starts at the expanded mean θ itself (K×W, > 0), e.g. `random_rows`.
  template <class R>
  State start(const Eigen::MatrixXd& theta, R& /*rng*/) const {
    require(theta.rows() == rows, "init: expected θ with {} rows, got {}", rows, theta.rows());
    return detail::rows_start(rows, step_size, Eigen::Map<const Eigen::VectorXd>(theta.data(), theta.size()));
  }

  template <class P, class R>
    requires CountPotential<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double eps = step_size.at(t);
    potential.counts(as_rows(std::as_const(s.x), rows), rng, s.counts);
    ++s.gradient_evals;
    detail::check_counts(s, rows);
    rng.normals(s.noise);
    const double sd = std::sqrt(eps), half = 0.5 * eps, beta = potential.prior_shape();
    const bool fisher = metric == Metric::fisher;
    if (!fisher) s.row_sums = as_rows(std::as_const(s.theta), rows).rowwise().sum();
    const std::uint64_t reflections0 = s.reflections;
    const Eigen::Index cols = s.theta.size() / rows;
    const double* nkw = s.counts.nkw.data();
    for (Eigen::Index w = 0, i = 0; w < cols; ++w) {
      for (Eigen::Index k = 0; k < rows; ++k, ++i) {
        const double th = s.theta[i];
        double next;
        if (fisher)  // θ ∂log p + Γ (Γ = 1), noise √θ ξ
          next = th + half * langevin_drift(beta, th, nkw[i], s.x[i], s.counts.nk[k]) + std::sqrt(th) * sd * s.noise[i];
        else  // D = I: ∂ log p (Eq. S.29)
          next = th + half * log_density_gradient(beta, th, nkw[i], s.counts.nk[k], s.row_sums[k]) + sd * s.noise[i];
        if (mirror(next)) ++s.reflections;
        if (!std::isfinite(next)) detail::non_finite(name(), "θ", t, eps);
        s.theta[i] = keep_positive(next);
      }
    }
    normalize_rows(as_rows(std::as_const(s.theta), rows), as_rows(s.x, rows), s.row_sums);
    return {.step_size = eps, .gradient_evals = 1, .reflections = s.reflections - reflections0};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}

  Eigen::Map<const Eigen::MatrixXd> theta(const State& s) const { return as_rows(s.theta, rows); }
  Eigen::Map<const Eigen::MatrixXd> topics(const State& s) const { return as_rows(s.x, rows); }
};

/// SGRHMC (metric fisher) or SGHMC (metric identity, friction C) on the rows' expanded mean, folded at
/// θ = 0 by (θ_i, r_i) <- (−θ_i, −r_i). The step size is the SDE's h = ε.
struct Hamiltonian {
  using State = RowsState;
  static constexpr Statistics statistics =
      stats::step_size | stats::gradient_evals | stats::reflections | stats::kinetic_energy;
  Eigen::Index rows = 1;  ///< K: θ is K×W, each row a point of Δ^{W-1}
  Metric metric = Metric::fisher;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double friction = 1.0;                                   ///< SGHMC's C (metric identity)
  sgrhmc::Variant variant = sgrhmc::Variant::generalized;  ///< SGRHMC: naive drops Γ (a counter-example)
  bool flip_on_reflect = true;  ///< r_i <- −r_i when θ_i is mirrored (false: a counter-example)
  /// semi_implicit (default) moves θ with r_t, then kicks r with the force, G and friction at θ_{t+1}
  /// (symplectic Euler; SGHMC Alg. 2's order; sgrhmc.hpp's Scheme::semi_implicit); euler takes both from
  /// (θ_t, r_t) (sgrhmc.hpp's Scheme::euler). Both are first order; explicit Euler pumps energy into the
  /// stiff coordinates near θ = 0 and is far more biased there (tests/text).
  recipe::Scheme scheme = recipe::Scheme::semi_implicit;

  const char* name() const { return metric == Metric::fisher ? "sgrhmc" : "sghmc"; }

  /// Starts at x0 = vec(π) (K×W, rows on the simplex), each row lifted to θ_k = W π_k; r ~ N(0, I).
  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    return with_momentum(detail::rows_start(rows, step_size, detail::lift_rows(x0, rows)), rng);
  }
  /// Starts at the expanded mean θ itself (K×W, > 0), e.g. `random_rows`; r ~ N(0, I).
  template <class R>
  State start(const Eigen::MatrixXd& theta, R& rng) const {
    require(theta.rows() == rows, "init: expected θ with {} rows, got {}", rows, theta.rows());
    const Eigen::Map<const Eigen::VectorXd> vec(theta.data(), theta.size());
    return with_momentum(detail::rows_start(rows, step_size, vec), rng);
  }

  template <class P, class R>
    requires CountPotential<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const double h = step_size.at(t);
    const std::uint64_t reflections0 = s.reflections;
    if (scheme == recipe::Scheme::semi_implicit) drift_positions(s, h);  // θ first
    potential.counts(as_rows(std::as_const(s.x), rows), rng, s.counts);
    ++s.gradient_evals;
    detail::check_counts(s, rows);
    rng.normals(s.noise);
    s.row_sums = as_rows(std::as_const(s.theta), rows).rowwise().sum();
    if (scheme == recipe::Scheme::semi_implicit) kick(s, potential.prior_shape(), h, t);
    else euler_step(s, potential.prior_shape(), h, t);
    return {.step_size = h, .gradient_evals = 1, .reflections = s.reflections - reflections0};
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State& s, StepInfo& info) const { info.kinetic_energy = 0.5 * s.r.squaredNorm(); }

  Eigen::Map<const Eigen::MatrixXd> theta(const State& s) const { return as_rows(s.theta, rows); }
  Eigen::Map<const Eigen::MatrixXd> topics(const State& s) const { return as_rows(s.x, rows); }

 private:
  template <class R>
  State with_momentum(State s, R& rng) const {
    require(std::isfinite(friction) && friction > 0, "friction: expected a positive number, got {}", friction);
    s.r.resize(s.theta.size());  // r ~ N(0, I): its stationary law
    rng.normals(s.r);
    return s;
  }
  // The momentum force at (θ, π): −G^{-1/2}∇U + Γ_r (fisher) or −∇U (identity; Eq. S.29).
  double force(const State& s, double beta, Eigen::Index i, Eigen::Index k, double th, double sqrt_th) const {
    if (metric == Metric::fisher)
      return hamiltonian_force(beta, th, sqrt_th, s.counts.nkw.data()[i], s.x[i], s.counts.nk[k],
                               variant == sgrhmc::Variant::generalized);
    return log_density_gradient(beta, th, s.counts.nkw.data()[i], s.counts.nk[k], s.row_sums[k]);
  }
  // Semi-implicit, first half: θ <- θ + h a(θ) r (a = √θ for fisher, 1 for identity), folded by S_i.
  void drift_positions(State& s, double h) const {
    const bool fisher = metric == Metric::fisher;
    for (Eigen::Index i = 0; i < s.theta.size(); ++i) {
      double& th = s.theta[i];
      double next = th + h * (fisher ? std::sqrt(th) : 1.0) * s.r[i];
      if (mirror(next)) {
        ++s.reflections;
        if (flip_on_reflect) s.r[i] = -s.r[i];
      }
      th = keep_positive(next);
    }
    normalize_rows(as_rows(std::as_const(s.theta), rows), as_rows(s.x, rows), s.row_sums);
  }
  // Semi-implicit, second half: r <- r + h[force(θ) − d(θ) r] + N(0, 2h d(θ)) at the new θ, d = θ (fisher)
  // or C (identity).
  void kick(State& s, double beta, double h, std::uint64_t t) const {
    const double c = friction, sd_hmc = std::sqrt(2.0 * c * h), sd = std::sqrt(2.0 * h);
    const Eigen::Index cols = s.theta.size() / rows;
    for (Eigen::Index w = 0, i = 0; w < cols; ++w) {
      for (Eigen::Index k = 0; k < rows; ++k, ++i) {
        const double th = s.theta[i], r = s.r[i];
        double rn;
        if (metric == Metric::fisher) {
          const double a = std::sqrt(th);
          rn = r + h * (force(s, beta, i, k, th, a) - th * r) + sd * a * s.noise[i];
        } else {
          rn = r + h * (force(s, beta, i, k, th, 1.0) - c * r) + sd_hmc * s.noise[i];
        }
        if (!std::isfinite(rn)) detail::non_finite(name(), "r", t, h);
        s.r[i] = rn;
      }
    }
  }
  // Explicit Euler from the state at the start of the step (θ and r both from (θ_t, r_t), as
  // samplers/sgrhmc.hpp's Scheme::euler), then the fold S_i of every coordinate that left θ > 0.
  void euler_step(State& s, double beta, double h, std::uint64_t t) const {
    const double c = friction, sd_hmc = std::sqrt(2.0 * c * h), sd = std::sqrt(2.0 * h);
    const Eigen::Index cols = s.theta.size() / rows;
    for (Eigen::Index w = 0, i = 0; w < cols; ++w) {
      for (Eigen::Index k = 0; k < rows; ++k, ++i) {
        const double th = s.theta[i], r = s.r[i];
        double next, rn;
        if (metric == Metric::fisher) {
          const double a = std::sqrt(th);  // G^{-1/2}
          next = th + h * a * r;
          rn = r + h * (force(s, beta, i, k, th, a) - th * r) + sd * a * s.noise[i];
        } else {
          next = th + h * r;
          rn = r + h * (force(s, beta, i, k, th, 1.0) - c * r) + sd_hmc * s.noise[i];
        }
        if (mirror(next)) {
          ++s.reflections;
          if (flip_on_reflect) rn = -rn;
        }
        if (!std::isfinite(next) || !std::isfinite(rn)) detail::non_finite(name(), "θ or r", t, h);
        s.theta[i] = keep_positive(next);
        s.r[i] = rn;
      }
    }
    normalize_rows(as_rows(std::as_const(s.theta), rows), as_rows(s.x, rows), s.row_sums);
  }
};

}  // namespace sgmcmc::expanded_mean
