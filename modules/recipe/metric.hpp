#pragma once
// Riemannian metrics G(θ) for SGRLD and (g)SGRHMC (Patterson & Teh 2013; Ma, Chen & Fox 2015 §3.3).
// A metric evaluates, at θ, the inverse metric G⁻¹, its symmetric square root G^{-1/2}, and their row
// divergences (∇·G⁻¹)_i = Σ_j ∂_j (G⁻¹)_ij and (∇·G^{-1/2})_i = Σ_j ∂_j (G^{-1/2})_ij — the recipe's Γ
// for SGRLD (D = G⁻¹) and for gSGRHMC (Q_rθ = G^{-1/2}, docs/math.md#the-samplers-as-h-d-q).
//
// The metric must be a deterministic function of θ: it is part of the process's D(z), Q(z), and a
// minibatch-estimated metric would change Γ's meaning. The level-set metric therefore uses the exact
// U (`value`, `exact_gradient`), never the stochastic gradient.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/recipe/checks.hpp>
#include <sgmcmc/modules/recipe/gamma.hpp>

namespace sgmcmc::recipe::metric {

/// G⁻¹, G^{-1/2} and their divergences at one θ. Diagonal metrics fill the `_diag` vectors only.
struct Value {
  bool diagonal = true;
  Eigen::VectorXd inv_diag, inv_sqrt_diag;  ///< diagonal case
  Eigen::MatrixXd inv, inv_sqrt;            ///< dense case
  Eigen::VectorXd div_inv;                  ///< Σ_j ∂_j (G⁻¹)_ij
  Eigen::VectorXd div_inv_sqrt;             ///< Σ_j ∂_j (G^{-1/2})_ij
  Eigen::MatrixXd dense_inv() const { return diagonal ? Eigen::MatrixXd(inv_diag.asDiagonal()) : inv; }
  Eigen::MatrixXd dense_inv_sqrt() const { return diagonal ? Eigen::MatrixXd(inv_sqrt_diag.asDiagonal()) : inv_sqrt; }
};

/// G(θ)⁻¹ = scale·sqrt(|U(θ) + offset|)·I, the complete recipe's synthetic-experiment metric (Fig. 2
/// left, with scale 1.5 and offset 0.5). U must be the *normalised* negative log density (log Z
/// included, as models' `value` returns it) so that U + offset > 0; where U + offset vanishes the
/// metric is singular and Γ ∝ |U + offset|^{-3/4} blows up (docs/math.md#gsgrhmc and
/// #gsgrhmc-in-one-dimension). So a state with |U + offset| < min_level is an error naming metric.offset.
struct LevelSet {
  double scale = 1.5;
  double offset = 0.5;
  double min_level = 1e-3;

  void validate() const {
    require(std::isfinite(scale) && scale > 0, "metric.scale: expected a positive number, got {}", scale);
    require(std::isfinite(offset), "metric.offset: expected a finite number, got {}", offset);
    require(std::isfinite(min_level) && min_level > 0,
            "metric.min_level: expected a positive number, got {}", min_level);
  }

  template <class P>
  void evaluate(const P& potential, const Eigen::VectorXd& theta, Value& out) const {
    static_assert(PotentialWithValue<P>, "metric::LevelSet needs the target's exact value and gradient");
    const double s = potential.value(theta) + offset;
    require(std::isfinite(s) && std::abs(s) >= min_level,
            "metric.offset: U(θ) + offset = {:.3g} at θ = {}: the level-set metric "
                        "scale·sqrt(|U + offset|) vanishes there and its Γ ∝ |U + offset|^(-3/4) is singular; choose "
                        "the offset so that U + offset > 0 everywhere (with U normalised, log Z included)",
                        s, recipe::detail::point_string(theta));
    potential.exact_gradient(theta, out.div_inv);  // ∇U, scaled below
    const double a = std::abs(s), sg = s > 0 ? 1.0 : -1.0;
    const double g = scale * std::sqrt(a);
    const Eigen::Index n = theta.size();
    out.diagonal = true;
    out.inv_diag.setConstant(n, g);
    out.inv_sqrt_diag.setConstant(n, std::sqrt(g));
    // ∂_i g = scale·sgn(s)·∂_iU / (2 sqrt|s|);  ∂_i sqrt(g) = sqrt(scale)·sgn(s)·∂_iU / (4 |s|^{3/4}).
    out.div_inv_sqrt = (std::sqrt(scale) * sg / (4.0 * std::pow(a, 0.75))) * out.div_inv;
    out.div_inv *= scale * sg / (2.0 * std::sqrt(a));
  }
};

/// G(θ) = diag(θ)⁻¹, the Fisher metric of the expanded-mean parametrisation (Patterson & Teh 2013):
/// G⁻¹ = diag(θ), ∇·G⁻¹ = 1, G^{-1/2} = diag(sqrt θ), ∇·G^{-1/2} = 1/(2 sqrt θ). Needs θ > 0.
struct FisherDiagonal {
  void validate() const {}
  template <class P>
  void evaluate(const P& /*potential*/, const Eigen::VectorXd& theta, Value& out) const {
    require((theta.array() > 0).all() && theta.allFinite(),
            "metric: fisher_diag needs θ > 0, got θ = {}", recipe::detail::point_string(theta));
    out.diagonal = true;
    out.inv_diag = theta;
    out.inv_sqrt_diag = theta.cwiseSqrt();
    out.div_inv.setOnes(theta.size());
    out.div_inv_sqrt = 0.5 * out.inv_sqrt_diag.cwiseInverse();
  }
};

/// A constant diagonal G⁻¹ (a preconditioner): Γ = 0.
struct ConstantDiagonal {
  Eigen::VectorXd inverse;  ///< the diagonal of G⁻¹
  void validate() const {
    require(inverse.size() > 0 && inverse.allFinite() && (inverse.array() > 0).all(),
            "metric.inverse: expected positive diagonal entries of G⁻¹");
  }
  template <class P>
  void evaluate(const P&, const Eigen::VectorXd& theta, Value& out) const {
    require(inverse.size() == theta.size(),
            "metric.inverse: expected {} entries, got {}", theta.size(), inverse.size());
    out.diagonal = true;
    out.inv_diag = inverse;
    out.inv_sqrt_diag = inverse.cwiseSqrt();
    out.div_inv.setZero(theta.size());
    out.div_inv_sqrt.setZero(theta.size());
  }
};

namespace detail {
inline Eigen::MatrixXd spd_sqrt(const Eigen::MatrixXd& m, const Eigen::VectorXd& theta) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(m);
  require(es.info() == Eigen::Success && es.eigenvalues().minCoeff() > 0,
          "metric: G(θ)⁻¹ is not positive definite at θ = {} (smallest eigenvalue {:.3g})",
                      recipe::detail::point_string(theta), es.eigenvalues().minCoeff());
  return es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() * es.eigenvectors().transpose();
}
}  // namespace detail

/// A constant dense G⁻¹: Γ = 0.
struct ConstantDense {
  Eigen::MatrixXd inverse;
  void validate() const {
    require(inverse.size() > 0 && inverse.rows() == inverse.cols() && inverse.allFinite() &&
                inverse.isApprox(inverse.transpose(), 1e-12),
            "metric.inverse: expected a symmetric square matrix G⁻¹");
    detail::spd_sqrt(inverse, Eigen::VectorXd::Zero(inverse.rows()));
  }
  template <class P>
  void evaluate(const P&, const Eigen::VectorXd& theta, Value& out) const {
    require(inverse.rows() == theta.size(),
            "metric.inverse: expected a {0}×{0} matrix, got {1}×{1}", theta.size(), inverse.rows());
    // G⁻¹ is constant: once `out` holds it (a chain's first step), its square root is already there.
    if (!out.diagonal && out.inv.rows() == inverse.rows() && out.inv_sqrt.rows() == inverse.rows() && out.inv == inverse)
      return;
    out.diagonal = false;
    out.inv = inverse;
    out.inv_sqrt = detail::spd_sqrt(inverse, theta);
    out.div_inv.setZero(theta.size());
    out.div_inv_sqrt.setZero(theta.size());
  }
};

/// A user diagonal metric: f(θ) returns the diagonal of G(θ)⁻¹ (all entries > 0). f must be a template
/// over the scalar (a generic lambda): the divergences come from one forward-mode autodiff pass,
/// ∂_i g_i and ∂_i sqrt(g_i) = ∂_i g_i / (2 sqrt g_i).
template <class F>
struct Diagonal {
  F inverse;
  void validate() const {}
  template <class P>
  void evaluate(const P&, const Eigen::VectorXd& theta, Value& out) const {
    const Eigen::Index n = theta.size();
    const DualVector g = inverse(seed(theta));
    require(g.size() == n, "metric: expected {} diagonal entries of G⁻¹, got {}", n, g.size());
    out.diagonal = true;
    out.inv_diag.resize(n), out.inv_sqrt_diag.resize(n), out.div_inv.resize(n), out.div_inv_sqrt.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double gi = g[i].value();
      require(std::isfinite(gi) && gi > 0, "metric: G(θ)⁻¹_{} = {} is not positive at θ = {}", i, gi,
                                                       recipe::detail::point_string(theta));
      const double dgi = g[i].derivatives().size() > i ? g[i].derivatives()[i] : 0.0;
      out.inv_diag[i] = gi;
      out.inv_sqrt_diag[i] = std::sqrt(gi);
      out.div_inv[i] = dgi;
      out.div_inv_sqrt[i] = dgi / (2.0 * std::sqrt(gi));
    }
  }
};
template <class F> Diagonal(F) -> Diagonal<F>;

/// A user dense metric: f(θ) returns G(θ)⁻¹ (symmetric positive definite), a template over the scalar.
/// ∇·G⁻¹ by autodiff; G^{-1/2} by the symmetric eigendecomposition and ∇·G^{-1/2} by central finite
/// differences of it (error ~1e-9 for a smooth metric of unit scale).
template <class F>
struct Dense {
  F inverse;
  double rel = 6e-6;
  void validate() const {}
  template <class P>
  void evaluate(const P&, const Eigen::VectorXd& theta, Value& out) const {
    const Eigen::Index n = theta.size();
    const DualMatrix gd = inverse(seed(theta));
    require(gd.rows() == n && gd.cols() == n, "metric: expected a {0}×{0} G⁻¹, got {1}×{2}", n, gd.rows(), gd.cols());
    out.diagonal = false;
    out.inv.resize(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) out.inv(i, j) = gd(i, j).value();
    divergence(gd, out.div_inv);
    out.inv_sqrt = detail::spd_sqrt(out.inv, theta);
    auto value_at = [&](const Eigen::VectorXd& t) {
      const DualMatrix m = inverse(seed(t));
      Eigen::MatrixXd v(n, n);
      for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) v(i, j) = m(i, j).value();
      return detail::spd_sqrt(v, t);
    };
    out.div_inv_sqrt.setZero(n);
    Eigen::VectorXd tp = theta, tm = theta;
    for (Eigen::Index j = 0; j < n; ++j) {
      const double dj = rel * std::max(1.0, std::abs(theta[j]));
      tp[j] = theta[j] + dj, tm[j] = theta[j] - dj;
      out.div_inv_sqrt += (value_at(tp).col(j) - value_at(tm).col(j)) / (tp[j] - tm[j]);
      tp[j] = theta[j], tm[j] = theta[j];
    }
  }
};
template <class F> Dense(F) -> Dense<F>;

}  // namespace sgmcmc::recipe::metric

namespace sgmcmc::recipe {

namespace detail {
struct ArchetypeExactPotential {
  void gradient(const Eigen::VectorXd&, Eigen::VectorXd&, sgmcmc::detail::ArchetypeEngine&) const;
  double value(const Eigen::VectorXd&) const;
  void exact_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) const;
};
}  // namespace detail

/// A Riemannian metric G(θ) for SGRLD and (g)SGRHMC: `validate()` throws on bad parameters, and
/// `evaluate(potential, θ, out)` writes G⁻¹, G^{-1/2} and their row divergences at θ into `out`
/// (metric::Value) — a deterministic function of θ (it may use the potential's exact value and
/// gradient, never the stochastic one, or Γ would lose its meaning).
/// @code
///   struct Unit { void validate() const {}
///     void evaluate(const auto&, const Eigen::VectorXd& t, metric::Value& out) const {
///       out.diagonal = true; out.inv_diag.setOnes(t.size()); out.inv_sqrt_diag.setOnes(t.size());
///       out.div_inv.setZero(t.size()); out.div_inv_sqrt.setZero(t.size()); } };
/// @endcode
template <class G, class P = detail::ArchetypeExactPotential>
concept Metric = std::copy_constructible<G> && requires(const G g, const P& potential, const Eigen::VectorXd& theta,
                                                        metric::Value& out) {
  g.validate();
  g.evaluate(potential, theta, out);
};

static_assert(Metric<metric::LevelSet> && Metric<metric::FisherDiagonal> && Metric<metric::ConstantDiagonal> &&
              Metric<metric::ConstantDense>);

}  // namespace sgmcmc::recipe
