#pragma once
// The complete recipe's 2-D target (Ma, Chen & Fox 2015, Fig. 2 right):
// U(θ) = θ₁⁴/10 + (4(θ₂ + 1.2) - θ₁²)²/2. Exactly: θ₁ ∝ exp(-θ₁⁴/10) and 4(θ₂+1.2) - θ₁² ~ N(0, 1)
// independently; Z = 2.020138 (docs/math.md#banana), so value() returns the normalised U + log Z.
#include <Eigen/Core>

namespace sgmcmc::models {

struct Banana {
  static constexpr double log_z = 0.7031656480786478;  // log 2.020138 (docs/math.md#banana)
  Eigen::Index dim() const { return 2; }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    const double a = x[0], r = 4.0 * (x[1] + 1.2) - a * a;
    g.resize(2);
    g[0] = 0.4 * a * a * a - 2.0 * a * r;
    g[1] = 4.0 * r;
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const {
    const double a = x[0], r = 4.0 * (x[1] + 1.2) - a * a;
    return a * a * a * a / 10.0 + 0.5 * r * r + log_z;
  }
};

}  // namespace sgmcmc::models
