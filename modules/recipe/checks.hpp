#pragma once
// Checks and noise factorisation for the complete recipe (Ma, Chen & Fox 2015, Theorem 1 and Eq. 9):
// D(z) must be symmetric positive semidefinite, Q(z) skew-symmetric, and the injected covariance
// h(2D - hB̂) positive semidefinite. Each check throws sgmcmc::Error naming the field and the state.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::recipe {

/// What to do when the injected covariance h(2D - hB̂) is not positive semidefinite (the gradient-noise
/// estimate B̂ exceeds what the diffusion can absorb at this step size, SGHMC paper §3.2).
enum class NoisePolicy : std::uint8_t {
  error,  ///< throw sgmcmc::Error naming the step size and the smallest eigenvalue
  clip,   ///< set negative eigenvalues to zero (counted in State::clipped): biased, but keeps running
};

namespace detail {
/// A point printed as "(z0, z1, ...)" when, and only when, an error message is formatted: passing it to
/// require() costs nothing on the success path.
template <class V>
struct PointText {
  const V& z;
};
template <class V>
PointText<V> point_string(const V& z) {
  return {z};
}
inline double scale_of(const Eigen::MatrixXd& m) { return std::max(1.0, m.cwiseAbs().maxCoeff()); }
}  // namespace detail
}  // namespace sgmcmc::recipe

template <class V>
struct fmt::formatter<sgmcmc::recipe::detail::PointText<V>> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  template <class Context>
  auto format(const sgmcmc::recipe::detail::PointText<V>& p, Context& ctx) const {
    auto out = fmt::format_to(ctx.out(), "(");
    for (Eigen::Index i = 0; i < p.z.size(); ++i) out = fmt::format_to(out, "{}{:.6g}", i ? ", " : "", p.z[i]);
    return fmt::format_to(out, ")");
  }
};

namespace sgmcmc::recipe {

/// Throws unless Q = -Qᵀ to `tol` (relative to max(1, max|Q_ij|)).
inline void check_skew(const Eigen::MatrixXd& q, const Eigen::VectorXd& z, double tol, std::string_view field = "Q") {
  require(q.rows() == z.size() && q.cols() == z.size(),
          "{}: expected a {}×{} matrix, got {}×{}", field, z.size(), z.size(), q.rows(), q.cols());
  const double asym = (q + q.transpose()).cwiseAbs().maxCoeff();
  require(std::isfinite(asym) && asym <= tol * detail::scale_of(q),
          "{}: not skew-symmetric at z = {}: max|Q + Qᵀ| = {:.3g}; the recipe needs Q(z) = -Q(z)ᵀ "
                      "(a symmetric part would change the stationary law)", field, detail::point_string(z), asym);
}

/// Throws unless D is symmetric and positive semidefinite to `tol`. `eigen` is scratch for a dense D's
/// eigenvalues: a sampler that checks every step keeps one in its state, so the check allocates nothing.
inline void check_psd(const Eigen::MatrixXd& d, const Eigen::VectorXd& z, double tol, std::string_view field,
                      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& eigen) {
  require(d.rows() == z.size() && d.cols() == z.size(),
          "{}: expected a {}×{} matrix, got {}×{}", field, z.size(), z.size(), d.rows(), d.cols());
  require(d.allFinite(), "{}: non-finite entry at z = {}", field, detail::point_string(z));
  const double scale = detail::scale_of(d);
  const double asym = (d - d.transpose()).cwiseAbs().maxCoeff();
  require(asym <= tol * scale, "{}: not symmetric at z = {}: max|D - Dᵀ| = {:.3g}", field,
                                           detail::point_string(z), asym);
  const double lo = d.isDiagonal(0.0) ? d.diagonal().minCoeff()  // every off-diagonal entry exactly 0
                                      : eigen.compute(d, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
  require(lo >= -tol * scale, "{}: not positive semidefinite at z = {}: smallest eigenvalue {:.3g} "
                                          "(the diffusion must be PSD)", field, detail::point_string(z), lo);
}

/// Draws N(0, cov) for a symmetric PSD `cov`, consuming one standard normal per *active* coordinate
/// (a coordinate whose row of cov is not identically zero), in index order. So a recipe with
/// D = diag(0, C·I) draws exactly the normals that SGHMC's kick draws, and trajectories can be
/// compared draw for draw. A diagonal block is factored by square roots, a dense one by Cholesky (or,
/// if only semidefinite, by its eigendecomposition). Returns the number of clipped eigenvalues.
class GaussianNoise {
 public:
  template <class R>
  int draw(const Eigen::MatrixXd& cov, NoisePolicy policy, double tol, std::string_view what, R& rng,
           Eigen::Ref<Eigen::VectorXd> out) {
    const Eigen::Index n = cov.rows();
    active_.clear();
    bool diagonal = true;
    for (Eigen::Index i = 0; i < n; ++i) {
      bool any = false;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (cov(i, j) != 0.0) {
          any = true;
          if (i != j) diagonal = false;
        }
      }
      if (any) active_.push_back(i);
    }
    out.setZero();
    const auto k = static_cast<Eigen::Index>(active_.size());
    if (k == 0) return 0;
    zeta_.resize(k);
    rng.normals(zeta_);
    const double scale = std::max(cov.cwiseAbs().maxCoeff(), 1e-300);
    int clipped = 0;
    if (diagonal) {
      for (Eigen::Index a = 0; a < k; ++a) {
        double v = cov(active_[a], active_[a]);
        if (v < 0) {
          check(policy, v, tol, scale, what);
          v = 0, ++clipped;
        }
        out[active_[a]] = std::sqrt(v) * zeta_[a];
      }
      return clipped;
    }
    block_.resize(k, k);
    for (Eigen::Index a = 0; a < k; ++a)
      for (Eigen::Index b = 0; b < k; ++b) block_(a, b) = cov(active_[a], active_[b]);
    llt_.compute(block_);
    if (llt_.info() == Eigen::Success) {
      y_.noalias() = llt_.matrixL() * zeta_;
    } else {  // semidefinite only: an eigendecomposition, which allocates (docs/architecture.md)
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(block_);
      Eigen::VectorXd lam = es.eigenvalues();
      for (Eigen::Index a = 0; a < k; ++a) {
        if (lam[a] < 0) {
          if (lam[a] < -tol * scale) check(policy, lam[a], tol, scale, what), ++clipped;
          lam[a] = 0;
        }
      }
      y_.noalias() = es.eigenvectors() * (lam.cwiseSqrt().asDiagonal() * zeta_);
    }
    for (Eigen::Index a = 0; a < k; ++a) out[active_[a]] = y_[a];
    return clipped;
  }

 private:
  static void check(NoisePolicy policy, double lam, double tol, double scale, std::string_view what) {
    if (policy == NoisePolicy::error && lam < -tol * scale)
      throw Error(fmt::format("{}: the injected covariance h(2D - hB̂) is not positive semidefinite (eigenvalue "
                              "{:.3g}): the noise estimate B̂ exceeds 2D/h; lower step_size or noise_estimate, or "
                              "choose noise_policy clip", what, lam));
  }
  // Scratch kept between draws, so a draw allocates nothing once sized.
  std::vector<Eigen::Index> active_;
  Eigen::VectorXd zeta_, y_;
  Eigen::MatrixXd block_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
};

}  // namespace sgmcmc::recipe

