#pragma once
// The Sampler concept: `init` + `step` over a plain state (as BlackJAX's base.py; the state is a plain
// value, so copying it forks a chain), with every step reporting its statistics in a StepInfo (Stan's
// sampler parameters: accept_stat__, stepsize__, divergent__, energy__, and any of its own). A sampler
// declares which statistics it has (concepts/statistics.hpp); the driver records only those.
#include <concepts>
#include <cstdint>
#include <limits>

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

}  // namespace sgmcmc
