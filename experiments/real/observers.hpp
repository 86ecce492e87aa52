#pragma once
// Observers of the driver loop (run/chain.hpp) shared by the real-data experiments.
#include <cstdint>
#include <limits>

#include <sgmcmc/run/chain.hpp>

namespace sgmcmc::experiments {

/// Keeps no draw: the experiments evaluate the chain's current point and average their predictions
/// themselves, so the driver stores and describes nothing.
inline constexpr Retention keep_none{std::numeric_limits<std::uint64_t>::max(), 1};

/// Stops the chain at its first non-finite position, checked after every step (the driver checks only
/// every 16 steps and at kept draws), so a diverged run's record ends at the step where it diverged.
/// The observers after it still see that step: they skip it when `diverged`.
struct StopOnNonFinite {
  bool diverged = false;
  Control operator()(const StepEvent& e) {
    diverged = !e.position.allFinite();
    return diverged ? Control::stop : Control::proceed;
  }
};

}  // namespace sgmcmc::experiments
