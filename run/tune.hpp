#pragma once
// The tuner (docs/tuning.md): a config that leaves the step size out (or says "auto") is tuned before
// its chains are built, and the record keeps every arm and the choice (the config's `tune` section),
// with the chosen settings in the sampler and target sections, so a resume never tunes again.
//   - stochastic-gradient samplers (TuningFacts::Method::stein): successive halving over a grid of step
//     size × batch size (× friction for SGHMC), each arm a short run from the same start that continues
//     from its own last state, scored by the kernel Stein discrepancy of the gradients it drew (MAMBA:
//     Coullon, South & Nemeth 2023); the budget is counted in gradient evaluations, so the same seed
//     makes the same choice on any machine, thread count and number of ranks.
//   - Metropolis–Hastings samplers (Method::dual_averaging): Stan's dual averaging of the step size to a
//     target acceptance (0.8 by default), each chain adapting on its own; the choice is their median.
// Compiled once into sgmcmc::run.
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

/// Tunes what `c.tune` leaves open, sets c's sampler, target and resolved config to the choice, and
/// returns the record's `tune` section (also put into c.resolved["tune"]). Throws an Error naming what
/// to change when no arm gives a usable run (every one diverged, or the budget is too small).
json tune(RunConfig& c, const Registry& registry, const Options& opt = {});

}  // namespace sgmcmc::run
