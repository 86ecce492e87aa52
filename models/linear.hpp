#pragma once
// The linear potential U(x) = -⟨b, x⟩ (docs/config.md, target `linear`): von Mises–Fisher vMF(μ, κ) on the
// sphere with b = κμ, exp(bᵀx) on the simplex, matrix von Mises–Fisher etr(FᵀX) on Stiefel with
// b = vec(F) (column-major). Its gradient -b is constant, so it exercises reflections and projections.
#include <Eigen/Core>

namespace sgmcmc::models {

struct Linear {
  Eigen::VectorXd b;

  Eigen::Index dim() const { return b.size(); }
  void exact_gradient(const Eigen::VectorXd& /*x*/, Eigen::VectorXd& g) const { g = -b; }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const { return -b.dot(x); }
};

/// vMF(μ, κ) on S^{n-1}: U = -κ μᵀx (docs/math.md#von-mises-fisher).
inline Linear von_mises_fisher(const Eigen::VectorXd& mu, double kappa) { return Linear{kappa * mu}; }

/// Matrix vMF on V_{n,p}: U = -tr(FᵀX); F is n×p, points are flattened column-major.
inline Linear matrix_von_mises_fisher(const Eigen::MatrixXd& F) {
  return Linear{Eigen::Map<const Eigen::VectorXd>(F.data(), F.size())};
}

}  // namespace sgmcmc::models
