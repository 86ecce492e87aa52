#pragma once
// y_i ~ N(θ, I), prior θ ~ N(0, prior_sd²·I): a data model (models::DataModel) with per-example gradients
// only — no add_batch_gradient, so the minibatch base takes its per-example loop — and a closed-form
// posterior mode, Σ y_i / (N + 1/prior_sd²). For the tests of the minibatch base and its estimators.
#include <vector>

#include <Eigen/Core>

namespace sgmcmc::testing {

struct NormalMeans {
  std::vector<Eigen::VectorXd> y;
  double prior_sd = 1.0;

  std::size_t size() const { return y.size(); }
  void add_prior_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { g += x / (prior_sd * prior_sd); }
  void add_example_gradient(const Eigen::VectorXd& x, std::size_t i, Eigen::VectorXd& g, double s) const {
    g += s * (x - y[i]);
  }
  double prior_value(const Eigen::VectorXd& x) const { return 0.5 * x.squaredNorm() / (prior_sd * prior_sd); }
  double example_value(const Eigen::VectorXd& x, std::size_t i) const { return 0.5 * (x - y[i]).squaredNorm(); }
  /// Appends the 1-D example y.
  void add(double v) { y.push_back(Eigen::VectorXd::Constant(1, v)); }
};

}  // namespace sgmcmc::testing
