#pragma once
// The Sampler concept: `init` + `step` over a plain state (as BlackJAX's base.py; the state is a plain
// value, so copying it forks a chain), with every
// step reporting its statistics by name (Stan's sampler parameters: accept_stat__, stepsize__,
// divergent__, energy__). A sampler declares which statistics it has; the driver records only those.
#include <concepts>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/potential.hpp>

namespace sgmcmc {

/// The statistics a step may report. A sampler's `statistics` lists the ones it fills.
enum class Statistic : std::uint32_t {
  acceptance = 1u << 0,      ///< Metropolis acceptance probability of the step (1 for an unadjusted step)
  divergent = 1u << 1,       ///< the step's energy or state became non-finite
  energy = 1u << 2,          ///< the Hamiltonian H = U(x) + vᵀv/2 at the step's end (MH samplers)
  kinetic_energy = 1u << 3,  ///< vᵀv/2 of the state (momentum samplers); its mean is m/2 at temperature 1
  thermostat = 1u << 4,      ///< the Nosé–Hoover thermostat ξ (SGNHT)
  step_size = 1u << 5,       ///< h of the step (a schedule's value at that step)
  gradient_evals = 1u << 6,  ///< stochastic or exact gradients the step evaluated
  reflections = 1u << 7,     ///< boundary reflections the step's flows made (simplex)
};

/// A set of statistics, written as `Statistic::acceptance | Statistic::step_size`.
struct Statistics {
  std::uint32_t bits = 0;
  constexpr bool has(Statistic s) const { return (bits & static_cast<std::uint32_t>(s)) != 0; }
  friend constexpr Statistics operator|(Statistics a, Statistic b) { return {a.bits | static_cast<std::uint32_t>(b)}; }
  friend constexpr bool operator==(Statistics, Statistics) = default;
};
constexpr Statistics operator|(Statistic a, Statistic b) { return Statistics{} | a | b; }

/// What one step reports. Fields a sampler does not declare keep their defaults.
struct StepInfo {
  double acceptance = 1.0;
  bool divergent = false;
  double energy = std::numeric_limits<double>::quiet_NaN();
  double kinetic_energy = std::numeric_limits<double>::quiet_NaN();  ///< filled by `describe`, for kept draws
  double thermostat = std::numeric_limits<double>::quiet_NaN();      ///< filled by `describe`, for kept draws
  double step_size = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t gradient_evals = 0;
  std::uint64_t reflections = 0;

  /// The value of one statistic as a double (for writers that go through the declared list).
  constexpr double get(Statistic s) const {
    switch (s) {
      case Statistic::acceptance: return acceptance;
      case Statistic::divergent: return divergent ? 1.0 : 0.0;
      case Statistic::energy: return energy;
      case Statistic::kinetic_energy: return kinetic_energy;
      case Statistic::thermostat: return thermostat;
      case Statistic::step_size: return step_size;
      case Statistic::gradient_evals: return static_cast<double>(gradient_evals);
      case Statistic::reflections: return static_cast<double>(reflections);
    }
    return std::numeric_limits<double>::quiet_NaN();
  }
  /// Sets one statistic from a double (a record read back).
  constexpr void set(Statistic s, double v) {
    switch (s) {
      case Statistic::acceptance: acceptance = v; break;
      case Statistic::divergent: divergent = v != 0.0; break;
      case Statistic::energy: energy = v; break;
      case Statistic::kinetic_energy: kinetic_energy = v; break;
      case Statistic::thermostat: thermostat = v; break;
      case Statistic::step_size: step_size = v; break;
      case Statistic::gradient_evals: gradient_evals = v >= 0 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; break;
      case Statistic::reflections: reflections = v >= 0 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; break;
    }
  }
};

/// Every statistic, in the order writers list them.
inline constexpr Statistic all_statistics[] = {Statistic::acceptance,     Statistic::divergent,  Statistic::energy,
                                               Statistic::kinetic_energy, Statistic::thermostat, Statistic::step_size,
                                               Statistic::gradient_evals, Statistic::reflections};

/// The statistic's name in run records and Stan-style outputs (without Stan's `__` suffix).
constexpr const char* statistic_name(Statistic s) {
  switch (s) {
    case Statistic::acceptance: return "accept_stat";
    case Statistic::divergent: return "divergent";
    case Statistic::energy: return "energy";
    case Statistic::kinetic_energy: return "kinetic_energy";
    case Statistic::thermostat: return "thermostat";
    case Statistic::step_size: return "stepsize";
    case Statistic::gradient_evals: return "n_grad";
    case Statistic::reflections: return "reflections";
  }
  return "";
}

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
///     static constexpr Statistics statistics{Statistics{} | Statistic::step_size};
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
