#pragma once
// Temperature schedules: step t samples ∝ exp(−U/T_t). A constant T, or geometric annealing from a hot
// start, T_t = T₀ (T₁/T₀)^(t/K) for t < K and T₁ after (equal ratios between steps: the usual cooling
// ladder of simulated annealing, Kirkpatrick, Gelatt & Vecchi 1983). A hot start flattens the barriers
// between modes, exp(−ΔU/T₀), while the chain finds its way; the draws kept once T = T₁ sample the
// target at T₁. The driver applies it (run/any_target.hpp, AnyTarget::at_step: U/T_t before step t).
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::schedule {

struct Temperature {
  double from = 1.0;         ///< T₀, the temperature of step 0
  double to = 1.0;           ///< T₁, the temperature from step K on
  std::uint64_t steps = 0;   ///< K, the annealing steps (0: constant T₁)

  static Temperature constant(double t) noexcept { return {t, t, 0}; }
  static Temperature geometric(double from, double to, std::uint64_t steps) noexcept { return {from, to, steps}; }

  void validate() const {
    require(std::isfinite(to) && to > 0, "temperature: expected a positive number, got {}", to);
    require(std::isfinite(from) && from > 0, "temperature.from: expected a positive number, got {}", from);
  }
  /// T changes during the run (the driver must set it step by step).
  bool varies() const { return steps > 0 && from != to; }
  /// T_t, the temperature of step t (t = 0 for the first step).
  double at(std::uint64_t t) const {
    if (t >= steps) return to;
    return from * std::pow(to / from, static_cast<double>(t) / static_cast<double>(steps));
  }
};

}  // namespace sgmcmc::schedule
