#pragma once
// Potentials: U(x) = -log π(x) w.r.t. the Hausdorff measure of the embedded manifold (DESIGN.md §3).
#include <concepts>
#include <cstdint>
#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>

namespace sgmcmc {

/// A potential offers an unbiased stochastic gradient: `gradient(x, g, rng)` writes ∇Ũ(x) into g
/// (the Euclidean gradient of a smooth extension; samplers project it). The minibatch or gradient
/// noise is drawn from `rng`, which the driver owns: a potential keeps no generator of its own.
/// @code
///   struct Quadratic {
///     void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto& /*rng*/) const { g = x; }
///   };
/// @endcode
template <class P, class Point = Eigen::VectorXd>
concept Potential = requires(const P p, const Point& x, Point& g, detail::ArchetypeEngine& rng) {
  p.gradient(x, g, rng);
};

/// A potential whose exact value is available: needed by Metropolis–Hastings corrected samplers (HMC,
/// GMC) and by tests. `exact_gradient(x, g)` is the full-data, noise-free gradient.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithValue = Potential<P, Point> && requires(const P p, const Point& x, Point& g) {
  { p.value(x) } -> std::convertible_to<double>;
  p.exact_gradient(x, g);
};

/// A potential that can estimate the variance of its own stochastic gradient: `gradient_and_variance`
/// writes ∇Ũ(x) into g and, per coordinate, V̂ = Var(∇Ũ) from the minibatch's per-example gradients
/// (the empirical Fisher; SGHMC paper §3.2). Samplers use it when asked for `empirical_fisher`.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithNoiseEstimate = requires(const P p, const Point& x, Point& g, Point& var, detail::ArchetypeEngine& rng) {
  p.gradient_and_variance(x, g, var, rng);
};

/// A potential that may be separable: when `is_separable()` holds (a run-time property, e.g. an
/// isotropic Gaussian), ∇U(x)_i = `partial(i, x_i)` depends on x_i alone and `gradient` draws nothing
/// from the engine. Samplers may then inline the gradient into one sweep over memory.
template <class P>
concept SeparablePotential = requires(const P p, Eigen::Index i, double xi) {
  { p.is_separable() } -> std::convertible_to<bool>;
  { p.partial(i, xi) } -> std::convertible_to<double>;
};

/// A potential with a state of its own that changes between steps (a Gibbs step on prior precisions:
/// the bnn and bpmf targets). The driver calls `after_step(x, t, rng)` after every step t (1-based,
/// global) with the new position and the chain's engine, read-only: the hook draws from a substream
/// keyed by (seed, chain, t), never from the chain's own sequence, so the chain's draws do not depend
/// on whether the hook draws.
template <class P, class R>
concept PotentialWithAfterStep = requires(P& p, const Eigen::VectorXd& x, std::uint64_t t, const R& rng) {
  p.after_step(x, t, rng);
};

}  // namespace sgmcmc
