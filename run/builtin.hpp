#pragma once
// The registry of everything the library ships: its manifolds, targets and samplers. A user's own CLI
// starts from it and adds entries (examples/custom_cli/).
#include <sgmcmc/run/manifolds.hpp>
#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/samplers/builtin.hpp>
#include <sgmcmc/run/targets/builtin.hpp>

namespace sgmcmc::run {

inline Registry builtin_registry() {
  Registry r;
  add_builtin_manifolds(r);
  add_builtin_targets(r);
  add_builtin_samplers(r);
  return r;
}

}  // namespace sgmcmc::run
