#pragma once
// The kernel Stein discrepancy on the unit sphere S^{d−1} ⊂ R^d, for a density p ∝ exp(−U) with respect
// to the surface measure. The Stein operator on a closed Riemannian manifold, A f = div f + ⟨∇ log p, f⟩
// (E_p[A f] = 0 by the divergence theorem: Barp, Oates, Porcu & Girolami 2018, "A Riemann–Stein kernel
// method"; Xu & Matsuda 2020 on the sphere), applied to tangent fields f = P_x g, P_x = I − xxᵀ, g in
// the vector RKHS of a kernel k on R^d. On the unit sphere div(P g) = tr(P J_g) − (d − 1) xᵀg, so
//   A(P g)(x) = tr(P_x J_g(x)) + s̃(x)ᵀ g(x),   s̃(x) = P_x s(x) − (d − 1) x,   s = −∇U (ambient),
// and the Stein kernel is the Euclidean one with s̃ for s and every derivative of k projected:
//   k₀(x, y) = s̃_xᵀ s̃_y k + s̃_xᵀ P_y ∇_y k + s̃_yᵀ P_x ∇_x k + tr(P_x ∇_x∇_yᵀk P_y).
// For the IMQ kernel k = (c² + r²)^β, r = x − y, u = c² + r²:
//   tr(P_x ∇_x∇_yᵀk P_y) = −2β u^{β−1} (d − 2 + (xᵀy)²) − 4β(β − 1) u^{β−2} (P_x r)ᵀ(P_y r).
// Derivation and its test against exact vMF draws: docs/tuning.md, tests/core/test_tuning.cpp.
#include <cmath>

#include <Eigen/Core>

#include <sgmcmc/modules/diagnostics/stein.hpp>

namespace sgmcmc::diagnostics {

/// s̃(x) = P_x s − (d − 1) x: the sphere's score in the Stein kernel above (x a unit vector).
template <class X, class S>
Eigen::VectorXd sphere_score(const X& x, const S& s) {
  const double d = static_cast<double>(x.size());
  return s - x * x.dot(s) - (d - 1) * x;
}

/// k₀(x, y) on the unit sphere for the IMQ kernel, given the sphere scores s̃ (sphere_score).
template <class X, class SX, class Y, class SY>
double sphere_stein_kernel(const X& x, const SX& sx, const Y& y, const SY& sy, const ImqKernel& k = {}) {
  const double d = static_cast<double>(x.size());
  const Eigen::VectorXd r = x - y;
  const double r2 = r.squaredNorm();
  const double u = k.c * k.c + r2;
  const double b = k.beta;
  const double ub1 = std::pow(u, b - 1);
  const double xy = x.dot(y);
  // P_x r = r − x(xᵀr), P_y r = r − y(yᵀr); ∇_x k = 2β u^{β−1} r = −∇_y k.
  const Eigen::VectorXd px_r = r - x * x.dot(r), py_r = r - y * y.dot(r);
  const double grad_terms = 2 * b * ub1 * (sy.dot(px_r) - sx.dot(py_r));  // s̃_yᵀP_x∇_x k + s̃_xᵀP_y∇_y k
  const double trace = -2 * b * ub1 * (d - 2 + xy * xy) - 4 * b * (b - 1) * ub1 / u * px_r.dot(py_r);
  return sx.dot(sy) * u * ub1 + grad_terms + trace;
}

/// KSD² on the unit sphere as the U-statistic over the points (columns, unit vectors) with their
/// ambient scores s = −∇U: unbiased under independent noise in the scores, as the Euclidean one.
inline double sphere_stein_discrepancy_squared_u(const Eigen::MatrixXd& points, const Eigen::MatrixXd& scores, const ImqKernel& k = {}) {
  k.validate();
  check_sample(points, scores);
  const Eigen::Index n = points.cols();
  require(n >= 2, "Stein diagnostics: the U-statistic needs two draws or more, got {}", n);
  Eigen::MatrixXd tilde(points.rows(), n);
  for (Eigen::Index i = 0; i < n; ++i) tilde.col(i) = sphere_score(points.col(i), scores.col(i));
  double sum = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) sum += 2 * sphere_stein_kernel(points.col(i), tilde.col(i), points.col(j), tilde.col(j), k);
  return sum / (static_cast<double>(n) * static_cast<double>(n - 1));
}

}  // namespace sgmcmc::diagnostics
