#pragma once
// The shipped samplers' registry entries, one line each (the order is the order `--help` and "unknown
// sampler" messages list them in).
#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/samplers/amagold.hpp>
#include <sgmcmc/run/samplers/hmc.hpp>
#include <sgmcmc/run/samplers/psgld.hpp>
#include <sgmcmc/run/samplers/recipe.hpp>
#include <sgmcmc/run/samplers/riemannian.hpp>
#include <sgmcmc/run/samplers/scir.hpp>
#include <sgmcmc/run/samplers/sghmc.hpp>
#include <sgmcmc/run/samplers/sgld.hpp>
#include <sgmcmc/run/samplers/sgnht.hpp>

namespace sgmcmc::run {

inline void add_builtin_samplers(Registry& r) {
  r.add(sgld_sampler());
  r.add(sghmc_sampler());
  r.add(sgnht_sampler());
  r.add(naive_sghmc_sampler());
  r.add(hmc_sampler());
  r.add(amagold_sampler());
  r.add(scir_sampler());
  r.add(sgrld_sampler());
  r.add(sgrhmc_sampler(false));
  r.add(sgrhmc_sampler(true));
  r.add(recipe_sampler());
  r.add(psgld_sampler());
}

}  // namespace sgmcmc::run
