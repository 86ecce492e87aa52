#pragma once
// The double well U(θ) = θ⁴ - 2θ² (complete recipe Fig. 2; the SGHMC paper's Fig. 1 writes it
// -2θ² + θ⁴). Minima at ±1, barrier U(0) = 0; Z = 5.365160 (docs/math.md#double-well), so value() returns the
// normalised U + log Z.
#include <cmath>

#include <Eigen/Core>

namespace sgmcmc::models {

struct DoubleWell {
  static constexpr double log_z = 1.6799688585389383;  // log 5.365160 (docs/math.md#double-well)
  Eigen::Index dim() const { return 1; }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    const double t = x[0];
    g.resize(1);
    g[0] = 4.0 * t * t * t - 4.0 * t;
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const {
    const double t2 = x[0] * x[0];
    return t2 * t2 - 2.0 * t2 + log_z;
  }
};

}  // namespace sgmcmc::models
