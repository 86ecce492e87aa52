#pragma once
// Registry entry for SGNHT (Ding et al. 2014) — gSGNHT on a geodesic manifold (Liu, Zhu & Song 2016) —
// (samplers/sgnht.hpp).
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

namespace sgmcmc::run {

/// {"name": "sgnht" | "gsgnht", "step_size": h, "diffusion": A, "noise_estimate": V̂ | "empirical_fisher", "scheme": aboba | baoab | obabo | euler}
/// (lm_baoab refused: no exact OU step with a thermostat friction)
inline SamplerEntry sgnht_sampler() {
  return {{"sgnht", "gsgnht"}, "stochastic gradient Nosé–Hoover thermostat (gSGNHT on a manifold)",
          [](Fields& f, const ManifoldChoice&, const TargetChoice& target, const RunLength& run) {
            refuse_singular_dirichlet(f, target);
            json out = {{"name", f.string("name")}};
            const auto step = read_step_size(f, out, run);
            const auto noise = read_noise_estimate(f, out, target, true);
            const double diffusion = f.number("diffusion", 1.0, Range::positive);
            out["diffusion"] = diffusion;
            const auto scheme = read_scheme(f, out, /*exact_ou=*/false);
            return SamplerChoice{"sgnht", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(sgnht::Sampler<AnyManifold>{{m, diffusion, noise.value, noise.empirical_fisher}, scheme, step},
                                                   t, std::move(x0), rng);
                                 }, step};
          },
          TuningFacts{TuningFacts::Method::stein, true, false}};
}

}  // namespace sgmcmc::run
