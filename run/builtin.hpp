#pragma once
// The registry of everything the library ships: its manifolds, targets and samplers. A user's own CLI
// starts from it and adds entries (examples/custom_cli/).
//
// Compiled once, in the library `sgmcmc::run` (run/builtin.cpp): building every sampler on
// AnyManifold × AnyTarget takes about a minute and 2 GB of compiler memory, which a program that only
// runs a config should not pay. Declared here; link `sgmcmc::run` (or `sgmcmc::cli`) to use.
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

/// A new registry holding the shipped entries (to add one's own to).
Registry builtin_registry();

/// The registry of the shipped entries, built once (thread-safe).
const Registry& shipped_registry();

}  // namespace sgmcmc::run
