#pragma once
// Potentials: U(x) = -log π(x) w.r.t. the Hausdorff measure of the embedded manifold (docs/math.md#setting).
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

/// A potential whose `gradient(x, g, rng)` takes the engine type R a chain drives it with: what every
/// gradient sampler's `step` requires, so a potential with the wrong signature fails `Sampler<S, P, R>`
/// at the chain's declaration with one concept error naming this requirement (GCC shows it from
/// -fconcepts-diagnostics-depth=2, which the exported target sets), not pages from inside the step.
/// (Potential is this for any engine; a potential written for one engine type is PotentialFor it only.)
template <class P, class R, class Point = Eigen::VectorXd>
concept PotentialFor = requires(const P p, const Point& x, Point& g, R& rng) {
  p.gradient(x, g, rng);
};

/// A potential whose exact value is available: needed by Metropolis–Hastings corrected samplers (HMC,
/// GMC) and by tests. `exact_gradient(x, g)` is the full-data, noise-free gradient.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithValue = Potential<P, Point> && requires(const P p, const Point& x, Point& g) {
  { p.value(x) } -> std::convertible_to<double>;
  p.exact_gradient(x, g);
};

/// Optional: the pointwise log-likelihood of a data target, log p(y_i | x) for its `examples()`
/// examples i, written into `out` (size examples()), every constant included: what PSIS-LOO and WAIC
/// read (docs/run-format.md, "Pointwise log-likelihood"). Not scaled by a temperature.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithPointwiseLikelihood = Potential<P, Point> && requires(const P p, const Point& x, Eigen::Ref<Eigen::VectorXd> out) {
  { p.examples() } -> std::convertible_to<Eigen::Index>;
  p.log_likelihood(x, out);
};

/// Optional: a potential sampled on one scale and reported on another (Stan's unconstrained and
/// constrained parameters: the glm target samples log σ and reports σ, and its centred intercept as
/// the original design's). `reported(x)` maps a sampled point to the draw every output holds (the run
/// record, Stan CSV, NetCDF, `summary`); `sampled(y)` is its inverse, for what reads draws back as
/// points of the potential (a resume's checks, Stein diagnostics and thinning, the pointwise
/// log-likelihood of draws read back) and for an `init` given on the reported scale. It throws an
/// Error saying which coordinate is outside the reported domain (σ ≤ 0). Both keep the dimension.
template <class P, class Point = Eigen::VectorXd>
concept ReparametrisedPotential = Potential<P, Point> && requires(const P p, const Point& x) {
  { p.reported(x) } -> std::same_as<Point>;
  { p.sampled(x) } -> std::same_as<Point>;
};

/// Optional: U(x) and ∇U(x) together (`value_and_gradient(x, g)` returns U and writes ∇U), for a
/// potential that gets both from one evaluation — a data target's full-data pass reads the data once
/// instead of twice. The mode search (modules/optimize/mode.hpp) takes it when offered.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithValueAndGradient = PotentialWithValue<P, Point> && requires(const P p, const Point& x, Point& g) {
  { p.value_and_gradient(x, g) } -> std::convertible_to<double>;
};

/// A Dirichlet-type potential for SCIR's exact CIR transition (samplers/scir.hpp; Baker et al. 2018):
/// `concentration(rng)` returns the Gamma shapes a_k (the prior's α plus the scaled minibatch counts,
/// drawn from `rng`). What SCIR's `step` requires in place of a gradient.
template <class P, class R = detail::ArchetypeEngine>
concept ConcentrationPotential = requires(const P p, R& rng) {
  { p.concentration(rng) } -> std::convertible_to<const Eigen::VectorXd&>;
};

/// A potential that can estimate the variance of its own stochastic gradient: `gradient_and_variance`
/// writes ∇Ũ(x) into g and, per coordinate, V̂ = Var(∇Ũ) from the minibatch's per-example gradients
/// (the empirical Fisher; SGHMC paper §3.2). Samplers use it when asked for `empirical_fisher`.
template <class P, class Point = Eigen::VectorXd>
concept PotentialWithNoiseEstimate = requires(const P p, const Point& x, Point& g, Point& var, detail::ArchetypeEngine& rng) {
  p.gradient_and_variance(x, g, var, rng);
};

/// A potential that may be separable: when `is_separable()` holds (a run-time property, e.g. an
/// isotropic Gaussian), ∂_i U(x) depends on x_i alone and `gradient` draws nothing from the engine.
/// `partial(begin, end, x, g)` then writes g[k] = ∂_{begin+k} U for k < end - begin, reading only
/// x[k] = x_{begin+k} (both pointers at the chunk's first coordinate): the same doubles `gradient`
/// writes there. It is only called when `is_separable()` holds. A sampler's chunk kick
/// (modules/splitting/kick.hpp) computes the gradient chunk by chunk inside its sweep; the chunk form
/// means one call per chunk, so a type-erased potential can forward it through one virtual call.
/// @code
///   void partial(Eigen::Index begin, Eigen::Index end, const double* x, double* g) const {
///     for (Eigen::Index k = 0; k < end - begin; ++k) g[k] = precision * (x[k] - mean[begin + k]);
///   }
/// @endcode
template <class P>
concept SeparablePotential = requires(const P p, Eigen::Index begin, Eigen::Index end, const double* x, double* g) {
  { p.is_separable() } -> std::convertible_to<bool>;
  p.partial(begin, end, x, g);
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

/// A potential that changes with the step count (a temperature schedule: U/T_t, modules/schedule/
/// temperature.hpp). The driver calls `at_step(t)` before step t (0-based, global: a resumed chain
/// continues the schedule), so the sampler sees the step's potential throughout the step — an MH
/// sampler's value and gradients alike.
template <class P>
concept ScheduledPotential = requires(P& p, std::uint64_t t) { p.at_step(t); };

}  // namespace sgmcmc
