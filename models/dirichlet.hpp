#pragma once
// Dirichlet(α) on the probability simplex: U(x) = -Σ (α_i - 1) log x_i. Its force (α_i - 1)/x_i is
// unbounded at a face whenever α_i ≠ 1, which makes stochastic-gradient samplers with reflection
// biased or unstable (docs/math.md#singular-potentials-on-the-simplex): sample it with SCIR (exact CIR
// transition), expanded-mean SGRLD or MH-corrected GMC. `concentration()` is what SCIR uses.
#include <cmath>

#include <Eigen/Core>

namespace sgmcmc::models {

struct Dirichlet {
  Eigen::VectorXd alpha;

  Eigen::Index dim() const { return alpha.size(); }
  /// True when some α_i ≠ 1: the potential is singular at the faces.
  bool singular_at_faces() const { return ((alpha.array() - 1.0).abs() > 0.0).any(); }
  /// The Gamma shapes of the expanded-mean parametrisation (θ_k ~ Gamma(α_k), π = θ/Σθ).
  template <class R>
  const Eigen::VectorXd& concentration(R& /*rng*/) const { return alpha; }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    g = -(alpha.array() - 1.0) / x.array();
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  /// -log density w.r.t. the Hausdorff measure, up to a constant; +∞ off the open simplex's closure.
  double value(const Eigen::VectorXd& x) const {
    double u = 0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (alpha[i] == 1.0) continue;
      if (!(x[i] > 0)) return INFINITY;  // a face: density 0 (α > 1) or an integrable pole (α < 1); never accept it
      u -= (alpha[i] - 1.0) * std::log(x[i]);
    }
    return u;
  }
};

}  // namespace sgmcmc::models
