// The shipped registry, compiled once into the library `sgmcmc::run` (see builtin.hpp for why).
#include <sgmcmc/run/builtin.hpp>

#include <sgmcmc/run/manifolds.hpp>
#include <sgmcmc/run/samplers/builtin.hpp>
#include <sgmcmc/run/targets/builtin.hpp>

namespace sgmcmc::run {

Registry builtin_registry() {
  Registry r;
  add_builtin_manifolds(r);
  add_builtin_targets(r);
  add_builtin_samplers(r);
  return r;
}

const Registry& shipped_registry() {
  static const Registry registry = builtin_registry();
  return registry;
}

}  // namespace sgmcmc::run
