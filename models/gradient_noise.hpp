#pragma once
// Additive gradient noise: ∇Ũ(x) = ∇U(x) + N(0, σ²I), the synthetic stochastic gradient of the seed
// papers' experiments (SGHMC paper Fig. 1: σ = 2; Fig. 3: σ = 1). The exact value and gradient pass
// through, so MH-corrected references still see the true target.
#include <Eigen/Core>

#include <sgmcmc/concepts/potential.hpp>

namespace sgmcmc::models {

/// g += σ·ζ, ζ ~ N(0, I): one bulk fill of `scratch` (the engine's vectorised normals, the same values
/// as drawing them one at a time), then one vector update.
template <class R>
void add_gradient_noise(Eigen::VectorXd& g, double sd, R& rng, Eigen::VectorXd& scratch) {
  if (!(sd > 0)) return;
  scratch.resize(g.size());
  rng.normals(scratch);
  g += sd * scratch;
}

template <class P>
struct WithGradientNoise {
  P base;
  double sd = 0.0;  ///< σ
  mutable Eigen::VectorXd scratch{};  ///< the noise draws (derived, not state: one potential per chain)

  Eigen::Index dim() const { return base.dim(); }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    base.gradient(x, g, rng);
    add_gradient_noise(g, sd, rng, scratch);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const
    requires PotentialWithValue<P>
  { base.exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const
    requires PotentialWithValue<P>
  { return base.value(x); }
};

}  // namespace sgmcmc::models
