#pragma once
// A fixed preconditioner for any flat-space sampler, estimated during a warm-up: the inner sampler runs
// unchanged on φ with θ = Sφ (S a constant invertible matrix), i.e. on the potential U_S(φ) = U(Sφ) with
// ∇_φ U_S = Sᵀ∇U(θ). In θ this is a complete-recipe pair (Ma, Chen & Fox 2015) with constant D and Q, so
// Γ = 0 and the sampler stays exact (docs/math.md, "Fixed preconditioners"):
//   SGLD on φ  = SGLD with D = SSᵀ, Q = 0:  θ ← θ − h SSᵀ∇Ũ + √(2h) Sξ;
//   SGHMC on φ = z = (θ, r), H = U + rᵀr/2, D = diag(0, C·I), Q = [[0, −S], [Sᵀ, 0]]:  θ̇ = S r,
//                ṙ = −Sᵀ∇U − C r + N(0, 2C)  (the friction acting in the preconditioned coordinates);
//   HMC on φ   = HMC with the mass matrix (SSᵀ)⁻¹.
// Three forms of S (Kind), one code path:
//   diagonal  S = diag(s): O(d) a step;
//   dense     S = L, lower triangular with a positive diagonal (a Cholesky factor): O(d²) a step;
//   low_rank  S = diag(s)·(I + U diag(m) Uᵀ), U d×k with orthonormal columns, m_j > −1: the symmetric
//             square root of I + UΛUᵀ (m_j = √(1 + λ_j) − 1, exact because UᵀU = I), so
//             SSᵀ = diag(s)(I + UΛUᵀ)diag(s), and Sφ, Sᵀg, S⁻¹θ (m_j → 1/(1 + m_j) − 1) cost O(dk).
// tests/recipe/test_recipe.cpp checks SGLD and SGHMC against the generic recipe sampler to 1e-12.
//
// The warm-up (`adapt_steps` K > 0): S = I for steps 0 … K−1 (the first half lets the chain reach the
// posterior) while the second half's statistics are collected; after step K−1, S is fixed from them,
// normalised to det S = 1 (so only the coordinates' relative scales and directions change and the step
// size keeps its meaning), φ = S⁻¹θ, and S stays fixed. Draws and the reported position are θ.
//   diagonal: the mean V of ∇Ũ⊙∇Ũ; s_i = 1/√(V_i + ε). For a Gaussian posterior E[(∂_i U)²] = (Σ⁻¹)_ii,
//             so s_i ∝ 1/√(Σ⁻¹)_ii: the coordinates' own scales (with minibatch noise, a little smaller).
//   dense, low_rank: the draws' covariance Σ̂ (Welford's sums over the draws θ_t after steps
//             K/2 … K−1: n = ⌊K/2⌋ draws), regularised as Stan's windowed adaptation does,
//             A = (n/(n + 5))·Σ̂ + 10⁻³·(5/(n + 5))·I (Stan's stan/mcmc/covar_adaptation.hpp);
//             dense: L = chol(A); low_rank: s_i² = A_ii, and of the correlation matrix
//             R = diag(s)⁻¹ A diag(s)⁻¹ = V diag(μ) Vᵀ the k eigenpairs with the largest |log μ_j|
//             (U their vectors, m_j = √μ_j − 1): in φ the covariance is then R with those k eigenvalues
//             set to 1, so the k directions kept are those that would most limit the step (the
//             narrowest) or the mixing (the widest).
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::preconditioned {

/// A sampler state whose position the adaptor may set (`x`, the point in the inner sampler's
/// coordinates): needed to re-express the chain in φ when the factor is fixed.
template <class S>
concept StateWithPosition = requires(S s) {
  { s.x } -> std::same_as<Eigen::VectorXd&>;
};

/// The form of S (the header's comment).
enum class Kind { diagonal, dense, low_rank };

/// S in θ = Sφ: a plain value; only the members of its kind are used.
struct Factor {
  Kind kind = Kind::diagonal;
  Eigen::VectorXd scale;    ///< diagonal: s; low_rank: the diagonal s of S = diag(s)(I + U diag(m) Uᵀ)
  Eigen::MatrixXd lower;    ///< dense: L (lower triangular, positive diagonal; the upper part is not read)
  Eigen::MatrixXd basis;    ///< low_rank: U, d×k with orthonormal columns
  Eigen::VectorXd stretch;  ///< low_rank: m (k entries, each > −1)

  /// S = I of `kind` in dimension d (low_rank: U = 0, m = 0, so any k-column U keeps the shape).
  static Factor identity(Kind kind, Eigen::Index d, Eigen::Index rank) {
    Factor f{kind, {}, {}, {}, {}};
    if (kind != Kind::dense) f.scale = Eigen::VectorXd::Ones(d);
    if (kind == Kind::dense) f.lower = Eigen::MatrixXd::Identity(d, d);
    if (kind == Kind::low_rank) f.basis = Eigen::MatrixXd::Zero(d, rank), f.stretch = Eigen::VectorXd::Zero(rank);
    return f;
  }
  Eigen::Index rank() const { return stretch.size(); }

  /// θ = Sφ. `k` is scratch of rank() entries (low_rank). No allocation.
  void apply(const Eigen::VectorXd& phi, Eigen::VectorXd& theta, Eigen::VectorXd& k) const {
    switch (kind) {
      case Kind::diagonal: theta = scale.cwiseProduct(phi); return;
      case Kind::dense: theta.noalias() = lower.triangularView<Eigen::Lower>() * phi; return;
      case Kind::low_rank:
        k.noalias() = basis.transpose() * phi;
        k.array() *= stretch.array();
        theta = phi;
        theta.noalias() += basis * k;
        theta.array() *= scale.array();
        return;
    }
  }
  /// g ← Sᵀg. `t` (d entries) and `k` (rank() entries) are scratch. No allocation.
  void apply_transpose(Eigen::VectorXd& g, Eigen::VectorXd& t, Eigen::VectorXd& k) const {
    switch (kind) {
      case Kind::diagonal: g.array() *= scale.array(); return;
      case Kind::dense:
        t.noalias() = lower.triangularView<Eigen::Lower>().transpose() * g;
        g.swap(t);
        return;
      case Kind::low_rank:  // Sᵀ = (I + U diag(m) Uᵀ) diag(s)
        g.array() *= scale.array();
        k.noalias() = basis.transpose() * g;
        k.array() *= stretch.array();
        g.noalias() += basis * k;
        return;
    }
  }
  /// φ = S⁻¹θ (once a warm-up: may allocate).
  void solve(const Eigen::VectorXd& theta, Eigen::VectorXd& phi) const {
    switch (kind) {
      case Kind::diagonal: phi = theta.cwiseQuotient(scale); return;
      case Kind::dense:
        phi = theta;
        lower.triangularView<Eigen::Lower>().solveInPlace(phi);
        return;
      case Kind::low_rank: {  // S⁻¹ = (I + U diag(1/(1 + m) − 1) Uᵀ) diag(s)⁻¹
        phi = theta.cwiseQuotient(scale);
        Eigen::VectorXd k = basis.transpose() * phi;
        k.array() *= (1.0 + stretch.array()).inverse() - 1.0;
        phi.noalias() += basis * k;
        return;
      }
    }
  }
  /// SSᵀ: the inverse metric (HMC on φ has the mass matrix (SSᵀ)⁻¹; SGLD on φ has D = SSᵀ in θ).
  Eigen::MatrixXd inverse_metric() const {
    switch (kind) {
      case Kind::diagonal: return scale.cwiseAbs2().asDiagonal();
      case Kind::dense: {
        const Eigen::MatrixXd l = lower.triangularView<Eigen::Lower>();
        return l * l.transpose();
      }
      case Kind::low_rank: {
        const Eigen::VectorXd lambda = (1.0 + stretch.array()).square() - 1.0;  // (I + U diag(m) Uᵀ)² = I + UΛUᵀ
        Eigen::MatrixXd m = basis * lambda.asDiagonal() * basis.transpose();
        m.diagonal().array() += 1.0;
        return scale.asDiagonal() * m * scale.asDiagonal();
      }
    }
    return {};
  }
  /// The largest difference to `other` relative to `other`'s largest entry, per member; infinity when
  /// their kinds or shapes differ.
  double distance_to(const Factor& other) const {
    const auto off = [](const auto& a, const auto& b) {
      if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<double>::infinity();
      if (a.size() == 0) return 0.0;
      return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-300);
    };
    if (kind != other.kind) return std::numeric_limits<double>::infinity();
    const Eigen::MatrixXd l = lower.triangularView<Eigen::Lower>(), lo = other.lower.triangularView<Eigen::Lower>();
    return std::max({off(scale, other.scale), off(l, lo), off(basis, other.basis), off(stretch, other.stretch)});
  }
};

/// U_S(φ) = U(Sφ): the potential the inner sampler sees. Holds pointers to the chain's own potential,
/// factor and scratch for one step (no copies, no allocation).
template <class P>
struct Scaled {
  const P* base;
  const Factor* factor;
  Eigen::VectorXd* theta;            ///< scratch: Sφ
  Eigen::VectorXd* t;                ///< scratch (d)
  Eigen::VectorXd* k;                ///< scratch (rank)
  Eigen::VectorXd* square_sum;       ///< non-null while a diagonal warm-up collects Σ ∇Ũ⊙∇Ũ
  std::uint64_t* collected;

  template <class R>
  void gradient(const Eigen::VectorXd& phi, Eigen::VectorXd& g, R& rng) const {
    factor->apply(phi, *theta, *k);
    base->gradient(*theta, g, rng);
    if (square_sum) *square_sum += g.cwiseAbs2(), ++*collected;
    factor->apply_transpose(g, *t, *k);
  }
  double value(const Eigen::VectorXd& phi) const
    requires PotentialWithValue<P>
  {
    factor->apply(phi, *theta, *k);
    return base->value(*theta);
  }
  void exact_gradient(const Eigen::VectorXd& phi, Eigen::VectorXd& g) const
    requires PotentialWithValue<P>
  {
    factor->apply(phi, *theta, *k);
    base->exact_gradient(*theta, g);
    factor->apply_transpose(g, *t, *k);
  }
};

template <class Inner>
struct State {
  Inner inner;                  ///< the inner sampler's state, in φ
  Factor factor;                ///< S (the identity during the warm-up)
  Eigen::VectorXd square_sum;   ///< diagonal: Σ ∇Ũ⊙∇Ũ collected in the warm-up's second half
  std::uint64_t collected = 0;  ///< gradients in square_sum (diagonal), or draws in draw_mean/draw_m2
  Eigen::VectorXd draw_mean;    ///< dense, low_rank: Welford's running mean of the collected draws θ
  Eigen::MatrixXd draw_m2;      ///< dense, low_rank: Welford's Σ (θ − mean)(θ − mean)ᵀ
  Eigen::VectorXd theta;        ///< θ = Sφ, the reported position
  Eigen::VectorXd scratch, scratch_t, scratch_k;  ///< scratch for the scaled potential
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
  std::uint64_t adapt_steps = 0;  ///< K: the warm-up; 0 keeps the initial factor
  Eigen::VectorXd initial_scale;  ///< diagonal: s before (or without) a warm-up; empty: ones
  double floor = 1e-12;           ///< diagonal: ε under the square root: a coordinate with no gradient keeps a finite scale
  Kind kind = Kind::diagonal;
  Eigen::MatrixXd initial_lower{};  ///< dense: L before (or without) a warm-up; empty: I
  Eigen::Index rank = 0;          ///< low_rank: k

  template <class R>
  State init(Eigen::VectorXd x0, R& rng) const {
    require(floor > 0, "preconditioner: the floor must be positive, got {}", floor);
    const auto d = x0.size();
    require(kind != Kind::low_rank || (rank >= 1 && rank <= d), "preconditioner: the rank must be in 1 … {}, got {}", d, rank);
    Factor f = initial();
    if (kind == Kind::diagonal) {
      if (!initial_scale.size()) f.scale = Eigen::VectorXd::Ones(d);
      require(f.scale.size() == d && (f.scale.array() > 0).all() && f.scale.allFinite(),
              "preconditioner: expected {} positive scales, got {}", d, f.scale.size());
    } else if (kind == Kind::dense) {
      if (!initial_lower.size()) f.lower = Eigen::MatrixXd::Identity(d, d);
      require(f.lower.rows() == d && f.lower.cols() == d, "preconditioner: expected a {}×{} Cholesky factor, got {}×{}", d, d,
              f.lower.rows(), f.lower.cols());
      require(f.lower.allFinite() && (f.lower.diagonal().array() > 0).all() &&
                  f.lower.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0),
              "preconditioner: the Cholesky factor must be finite and lower triangular with a positive diagonal");
    } else {
      f = Factor::identity(kind, d, rank);
    }
    Eigen::VectorXd phi;
    f.solve(x0, phi);
    const Eigen::Index k = f.rank();
    State s{inner.init(std::move(phi), rng), std::move(f), {}, 0, {}, {}, std::move(x0), Eigen::VectorXd(d), Eigen::VectorXd(d),
            Eigen::VectorXd(k)};
    if (kind == Kind::diagonal) s.square_sum = Eigen::VectorXd::Zero(d);
    else s.draw_mean = Eigen::VectorXd::Zero(d), s.draw_m2 = Eigen::MatrixXd::Zero(d, d);
    return s;
  }

  template <class P, class R>
    requires PotentialFor<P, R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    const bool collect = t < adapt_steps && 2 * t >= adapt_steps;
    const bool gradients = collect && kind == Kind::diagonal;
    const Scaled<P> scaled{&potential,      &s.factor,   &s.scratch, &s.scratch_t, &s.scratch_k, gradients ? &s.square_sum : nullptr,
                           &s.collected};
    const StepInfo info = inner.step(s.inner, scaled, rng, t);
    s.factor.apply(inner.position(s.inner), s.theta, s.scratch_k);
    if (collect && kind != Kind::diagonal) {  // Welford's update: M2 += ((n − 1)/n)·δδᵀ, δ = θ − mean before the update
      const double n = static_cast<double>(++s.collected);
      s.scratch_t = s.theta - s.draw_mean;
      s.draw_mean += s.scratch_t / n;
      s.draw_m2.noalias() += ((n - 1.0) / n) * s.scratch_t * s.scratch_t.transpose();
    }
    if (t + 1 == adapt_steps && s.collected > 0) {
      fix(s);
      s.factor.apply(inner.position(s.inner), s.theta, s.scratch_k);
    }
    return info;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.theta; }
  void describe(const State& s, StepInfo& info) const { inner.describe(s.inner, info); }

  /// The factor before (or without) a warm-up: the given one, else the identity (sized by init).
  Factor initial() const {
    Factor f{kind, initial_scale, initial_lower, {}, {}};
    return f;
  }

  /// S from a finished warm-up's statistics (the header's comment), normalised to det S = 1, into `f`
  /// (in place: a diagonal factor of the right size allocates nothing). One code for the fix and for a
  /// resume's check of it, so both give the same bits.
  void factor_from(const State& s, Factor& f) const {
    const Eigen::Index d = s.theta.size();
    if (f.kind != kind || f.scale.size() != (kind == Kind::dense ? 0 : d)) f = Factor::identity(kind, d, rank);
    const double n = static_cast<double>(s.collected);
    if (kind == Kind::diagonal) {
      f.scale.array() = (s.square_sum.array() / n + floor).rsqrt();
      f.scale /= std::exp(f.scale.array().log().mean());
      return;
    }
    // Stan's regularised covariance (stan/mcmc/covar_adaptation.hpp): the sample covariance shrunk
    // towards 10⁻³·I with weight 5/(n + 5).
    Eigen::MatrixXd a = (n / ((n + 5.0) * std::max(n - 1.0, 1.0))) * s.draw_m2;
    a.diagonal().array() += 1e-3 * 5.0 / (n + 5.0);
    if (kind == Kind::dense) {
      const Eigen::LLT<Eigen::MatrixXd> llt(a);
      require(llt.info() == Eigen::Success && a.allFinite(), "preconditioner: the warm-up's covariance is not positive definite");
      f.lower = llt.matrixL();
      f.lower /= std::exp(f.lower.diagonal().array().log().mean());  // det L = ∏ L_ii = 1
      return;
    }
    f.scale = a.diagonal().cwiseSqrt();
    const Eigen::VectorXd inv = f.scale.cwiseInverse();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(inv.asDiagonal() * a * inv.asDiagonal());
    require(eigen.info() == Eigen::Success && (eigen.eigenvalues().array() > 0).all(),
            "preconditioner: the warm-up's correlation matrix is not positive definite");
    std::vector<Eigen::Index> order(static_cast<std::size_t>(d));
    for (Eigen::Index i = 0; i < d; ++i) order[static_cast<std::size_t>(i)] = i;
    const Eigen::VectorXd mu = eigen.eigenvalues();
    std::stable_sort(order.begin(), order.end(), [&mu](Eigen::Index i, Eigen::Index j) { return std::abs(std::log(mu[i])) > std::abs(std::log(mu[j])); });
    double log_det = f.scale.array().log().sum();
    for (Eigen::Index j = 0; j < rank; ++j) {
      const Eigen::Index e = order[static_cast<std::size_t>(j)];
      f.basis.col(j) = eigen.eigenvectors().col(e);
      f.stretch[j] = std::sqrt(mu[e]) - 1.0;
      log_det += 0.5 * std::log(mu[e]);
    }
    f.scale *= std::exp(-log_det / static_cast<double>(d));  // det S = ∏ s_i · ∏ √μ_j = 1
  }
  /// S fixed from the warm-up; the chain re-expressed in φ = S⁻¹θ with θ unchanged.
  void fix(State& s) const {
    s.factor.apply(s.inner.x, s.theta, s.scratch_k);
    factor_from(s, s.factor);  // reads the sums only
    s.factor.solve(s.theta, s.inner.x);
  }

  /// A resume's check of a saved state (SamplerWithStateCheck): its factor must be the one this sampler
  /// has after `steps_done` steps — the initial one until the warm-up ends (or without one), then the one
  /// of its collected statistics (the same code, so the same bits) — and its squares non-negative.
  /// Empty when it is; else what is wrong.
  std::string check_state(const State& s, std::uint64_t steps_done) const {
    if (!(s.square_sum.array() >= 0).all()) return "square_sum: expected non-negative numbers (a sum of squares)";
    if (kind != Kind::diagonal && !(s.draw_m2.diagonal().array() >= 0).all())
      return "draw_m2: expected a non-negative diagonal (sums of squares)";
    const bool fixed = adapt_steps > 0 && steps_done >= adapt_steps && s.collected > 0;
    Factor expected;
    if (fixed) {
      try {
        factor_from(s, expected);
      } catch (const Error& e) {
        return e.what();
      }
    } else {
      expected = initial();
      const auto d = s.theta.size();
      if (kind == Kind::diagonal && !expected.scale.size()) expected.scale = Eigen::VectorXd::Ones(d);
      if (kind == Kind::dense && !expected.lower.size()) expected.lower = Eigen::MatrixXd::Identity(d, d);
      if (kind == Kind::low_rank) expected = Factor::identity(kind, d, rank);
    }
    const char* what = kind == Kind::diagonal ? "scale" : "factor";
    if (kind == Kind::diagonal && expected.scale.size() != s.factor.scale.size())
      return fmt::format("scale: expected {} numbers, got {}", expected.scale.size(), s.factor.scale.size());
    const double off = s.factor.distance_to(expected);
    if (!(off <= 1e-12))
      return fmt::format("{}: not the {} {} (off by {:.3g} relative): the {} or the warm-up's sums were edited", what, what,
                         !fixed                   ? "the chain starts with until its warm-up ends"
                         : kind == Kind::diagonal ? "the warm-up's collected squares give"
                                                  : "the warm-up's collected draws give",
                         off, what);
    return {};
  }
};

}  // namespace sgmcmc::preconditioned
