#pragma once
// The Sampler concept: `init` + `step` over a plain state (as BlackJAX's base.py; the state is a plain
// value, so copying it forks a chain), with every step reporting its statistics in a StepInfo (Stan's
// sampler parameters: accept_stat__, stepsize__, divergent__, energy__, and any of its own). A sampler
// declares which statistics it has (concepts/statistics.hpp); the driver records only those.
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/statistics.hpp>

namespace sgmcmc {

namespace detail {
struct ArchetypeSamplerPotential {  // everything a sampler may ask of its potential
  void gradient(const Eigen::VectorXd&, Eigen::VectorXd&, ArchetypeEngine&) const;
  double value(const Eigen::VectorXd&) const;
  void exact_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) const;
  const Eigen::VectorXd& concentration(ArchetypeEngine&) const;  // SCIR
};
}  // namespace detail

/// A sampler: a plain `State`, `init(x0, rng)`, `step(state, potential, rng, t)` returning the step's
/// `StepInfo` (t is the global step index, from 0, so schedules and resume agree), `position(state)`
/// (the point on the manifold, embedded coordinates), `describe(state, info)` filling the statistics
/// derived from the state (kinetic energy, ξ: computed only for kept draws, never in the hot loop),
/// and the `statistics` it reports.
/// @code
///   struct MyWalk {
///     struct State { Eigen::VectorXd x; };
///     static constexpr Statistics statistics{Statistics{} | stats::step_size};
///     State init(Eigen::VectorXd x0, auto&) const { return {std::move(x0)}; }
///     StepInfo step(State& s, const auto& potential, auto& rng, std::uint64_t) const;
///     const Eigen::VectorXd& position(const State& s) const { return s.x; }
///     void describe(const State&, StepInfo&) const {}
///   };
///   static_assert(sgmcmc::Sampler<MyWalk>);
/// @endcode
template <class S, class P = detail::ArchetypeSamplerPotential, class R = detail::ArchetypeEngine>
concept Sampler = std::copy_constructible<S> && std::copy_constructible<typename S::State> &&
                  requires(const S s, typename S::State& state, const typename S::State& cstate, Eigen::VectorXd x0,
                           const P& potential, R& rng, std::uint64_t t, StepInfo& info) {
                    { S::statistics } -> std::convertible_to<Statistics>;
                    { s.init(std::move(x0), rng) } -> std::same_as<typename S::State>;
                    { s.step(state, potential, rng, t) } -> std::same_as<StepInfo>;
                    { s.position(cstate) } -> std::same_as<const Eigen::VectorXd&>;
                    s.describe(cstate, info);
                  };

/// Optional: a sampler whose state holds what it learned on the way (a warm-up's estimate) says whether
/// a state is one it reaches in `steps_done` steps: an empty string, or what is wrong (built only
/// then). A resumed chain's saved state is checked with it (run/any_chain.hpp), so that an edited
/// estimate is an error naming the field rather than a chain that continues with another sampler.
/// @code
///   std::string check_state(const State& s, std::uint64_t steps_done) const;
/// @endcode
template <class S>
concept SamplerWithStateCheck = requires(const S s, const typename S::State& state, std::uint64_t steps_done) {
  { s.check_state(state, steps_done) } -> std::same_as<std::string>;
};

/// Optional: a sampler on a manifold says which (`manifold_of()`, the Manifold its points lie on). The
/// driver then checks every kept draw's `distance_to` and stops a chain that has left it (a flow or a
/// projection that does not keep points on M samples somewhere else without a word: issue #39), and the
/// checks know the space (the configurational temperature needs ℝᵈ; the kinetic temperature, the
/// intrinsic dimension).
template <class S>
concept SamplerOnManifold = requires(const S s) {
  requires Manifold<std::remove_cvref_t<decltype(s.manifold_of())>>;
};

}  // namespace sgmcmc
