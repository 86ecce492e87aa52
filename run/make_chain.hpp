#pragma once
// Builds chain i of a run config: the sampler named in the config, on the configured manifold, for
// the configured target, with random stream i of the run's seed (so chain i is the same whatever the
// number of threads).
#include <memory>
#include <variant>

#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/samplers/builtin.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

namespace sgmcmc::run {

inline std::unique_ptr<AnyChain> make_chain(const RunConfig& c, std::uint32_t index) {
  random::Stream rng(c.seed, index);
  const AnyTarget target(c.target);
  return std::visit(
      [&](const auto& m) -> std::unique_ptr<AnyChain> {
        using M = std::decay_t<decltype(m)>;
        Eigen::VectorXd x0 = c.init.empty() ? m.random_point(rng) : c.init[index];
        const SamplerSpec& s = c.sampler;
        if (s.name == "sgld") return chain_of(sgld::Sampler<M>{m, s.step_size, s.noise_estimate}, target, x0, rng);
        if (s.name == "sghmc")
          return chain_of(sghmc::Sampler<M>{{m, s.friction, s.noise_estimate, s.empirical_fisher}, s.scheme, s.step_size},
                          target, x0, rng);
        if (s.name == "sgnht")
          return chain_of(sgnht::Sampler<M>{{m, s.diffusion, s.noise_estimate, s.empirical_fisher}, s.scheme, s.step_size},
                          target, x0, rng);
        if (s.name == "hmc")
          return chain_of(hmc::Sampler<M>{m, s.step_size, s.leapfrog_steps, hmc::Gradient::exact, true}, target, x0, rng);
        if (s.name == "naive_sghmc")
          return chain_of(hmc::Sampler<M>{m, s.step_size, s.leapfrog_steps, hmc::Gradient::stochastic, s.mh}, target, x0, rng);
        if (s.name == "sgrld" && c.manifold.kind == "simplex") return chain_of(sgrld::ExpandedMean{s.step_size}, target, x0, rng);
        if constexpr (std::same_as<M, Euclidean>) {
          if (s.name == "sgrld")
            return chain_of(sgrld::Sampler<AnyMetric>{c.metric, s.step_size, s.noise_estimate, s.noise_policy}, target, x0, rng);
          if (s.name == "sgrhmc" || s.name == "naive_sgrhmc")
            return chain_of(sgrhmc::Sampler<AnyMetric>{c.metric, s.step_size,
                                                       s.name == "sgrhmc" ? sgrhmc::Variant::generalized : sgrhmc::Variant::naive,
                                                       s.noise_estimate, s.recipe_scheme, s.noise_policy},
                            target, x0, rng);
          if (s.name == "recipe") {
            recipe::Sampler<recipe::Constant> r{{c.D, c.Q}, s.augment, s.step_size, c.noise_matrix, s.noise_policy, s.recipe_scheme,
                                               s.thermostat_a};
            return chain_of(std::move(r), target, x0, rng);
          }
        }
        if (s.name == "scir") return chain_of(scir::Sampler{m.ambient_size(), s.step_size}, target, x0, rng);
        throw Error("/sampler/name: no chain builder for sampler '" + s.name + "'");
      },
      c.manifold.manifold);
}

}  // namespace sgmcmc::run
