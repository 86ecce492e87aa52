#pragma once
// Additive gradient noise: ∇Ũ(x) = ∇U(x) + N(0, σ²I), the synthetic stochastic gradient of the seed
// papers' experiments (SGHMC paper Fig. 1: σ = 2; Fig. 3: σ = 1). The exact value and gradient pass
// through, so MH-corrected references still see the true target.
#include <Eigen/Core>

#include <sgmcmc/concepts/potential.hpp>

namespace sgmcmc::models {

template <class P>
struct WithGradientNoise {
  P base;
  double sd = 0.0;  ///< σ

  Eigen::Index dim() const { return base.dim(); }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    base.gradient(x, g, rng);
    if (sd > 0) {
      for (Eigen::Index i = 0; i < g.size(); ++i) g[i] += sd * rng.normal();
    }
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const
    requires PotentialWithValue<P>
  { base.exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const
    requires PotentialWithValue<P>
  { return base.value(x); }
};

}  // namespace sgmcmc::models
