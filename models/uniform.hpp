#pragma once
// The uniform target on a compact manifold: U = 0, density constant w.r.t. the Hausdorff measure
// (uniform sphere, Dirichlet(1), Haar Stiefel: docs/math.md#uniform-on-the-sphere, #simplex-targets,
// #stiefel-targets). With U = 0 an HMC/GMC
// trajectory is pure geodesic flow and every proposal is accepted, so sampling it checks that the
// manifold's flow preserves its uniform law (the conformance kit's statistical law).
// value() is 0, not the normalised log volume: only differences of U matter to the samplers.
#include <Eigen/Core>

namespace sgmcmc::models {

struct Uniform {
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { g.setZero(x.size()); }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(x, g); }
  double value(const Eigen::VectorXd& /*x*/) const { return 0.0; }
};

}  // namespace sgmcmc::models
