#pragma once
// A general per-example model written once over a generic scalar: the user gives ℓ_i(θ) = log p(x_i | θ)
// as a function of the whole parameter vector, and the log-prior; each example's gradient is taken by
// chunked forward mode (models/autodiff/forward.hpp: ⌈d/W⌉ evaluations of ℓ_i on Dual<W>). For models
// that no structure below covers (a mixture, a nonlinear mean, an ODE-free mechanistic likelihood) at a
// modest d: forward mode costs about d/W·W = d times one evaluation of ℓ_i per example, so a GLM is far
// better served by models/autodiff/linear_predictor.hpp and a net by models/autodiff/two_layer_net.hpp
// (docs/benchmarks.md, "Automatic differentiation", measures the three and Eigen's AutoDiffScalar).
//
// A models::DataModel with the exact U (prior_value, example_value) and the pointwise log-likelihood; no
// batch path (the minibatch base loops over the examples), so the control variate keeps its vector
// centre and SAGA d numbers per example.
#include <concepts>
#include <cstddef>

#include <Eigen/Core>

#include <sgmcmc/models/autodiff/dual.hpp>
#include <sgmcmc/models/autodiff/forward.hpp>
#include <sgmcmc/models/autodiff/prior.hpp>

namespace sgmcmc::models::autodiff {

/// `size()` examples and `log_likelihood(i, θ)`: log p(x_i | θ) for θ a Vector<double> and a
/// Vector<Dual<chunk>>, every constant included (it is also the pointwise log-likelihood).
/// @code
/// struct Mixture {  // x_i ~ ½ N(θ₀, 1) + ½ N(θ₁, 1)
///   std::vector<double> x;
///   std::size_t size() const { return x.size(); }
///   template <class T> T log_likelihood(std::size_t i, const Vector<T>& th) const {
///     using std::exp; using std::log;
///     const T a = th[0] - x[i], b = th[1] - x[i];
///     return autodiff::log_sum_exp(-0.5 * a * a, -0.5 * b * b) - std::log(2 * std::sqrt(2 * std::numbers::pi)); }
/// };
/// @endcode
template <class L>
concept LikelihoodOfParameters = requires(const L l, std::size_t i, const Vector<double>& x, const Vector<Dual<chunk>>& xd) {
  { l.size() } -> std::convertible_to<std::size_t>;
  { l.log_likelihood(i, x) } -> std::convertible_to<double>;
  { l.log_likelihood(i, xd) } -> std::same_as<Dual<chunk>>;
};

/// What a per-example model is written from: the likelihood of θ and the log-prior of θ.
template <class L>
concept ExampleModelSpec = LikelihoodOfParameters<L> && LogPrior<L>;

template <ExampleModelSpec L, int W = chunk>
struct ExampleModel {
  L spec;
  /// θ seeded for forward mode, reused (one model object per thread, as every data model's scratch).
  mutable Vector<Dual<W>> seeded{};
  mutable Vector<Dual<chunk>> prior_seeded{};

  std::size_t size() const { return spec.size(); }

  double prior_value(const Eigen::VectorXd& theta) const { return -log_prior_value(spec, theta); }
  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    add_negative_log_prior_gradient(spec, theta, g, prior_seeded);
  }
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const { return spec.log_likelihood(i, theta); }
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const { return -example_log_likelihood(theta, i); }
  /// g += scale · ∇(−ℓ_i)(θ).
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    add_forward_gradient<W>([&](const Vector<Dual<W>>& th) { return spec.log_likelihood(i, th); }, theta, g, -scale, seeded);
  }
};

}  // namespace sgmcmc::models::autodiff
