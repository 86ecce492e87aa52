#pragma once
// Registry entry for SGLD (Welling & Teh 2011) on any manifold (samplers/sgld.hpp): name, config
// section, build, and its state's JSON form.
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/run/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/sgld.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<sgld::State> {
  static json write(const sgld::State& s) {
    return {{"x", vector_json(s.x)}, {"reflections", s.reflections}, {"gradient_evals", s.gradient_evals}};
  }
  static void read(sgld::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
    s.reflections = state_count(f, "reflections");
    s.gradient_evals = state_count(f, "gradient_evals");
    f.finish();
  }
};

/// {"name": "sgld", "step_size": h, "noise_estimate": V̂, "preconditioner": {...} (run/samplers/preconditioned.hpp)}
inline SamplerEntry sgld_sampler() {
  return {{"sgld"}, "stochastic gradient Langevin dynamics (geodesic on a manifold)",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) {
            refuse_singular_dirichlet(f, target);
            json out = {{"name", f.string("name")}};
            const auto step = read_step_size(f, out, run, Exploration::supported);
            const auto noise = read_noise_estimate(f, out, target, false);
            const auto pre = read_precondition(f, out, manifold, "sgld", run);
            SamplerChoice c{"sgld", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                              return chain_preconditioned(pre, sgld::Sampler<AnyManifold>{m, step, noise.value}, t, std::move(x0), rng);
                            }, step};
            if (step.kind == schedule::StepSize::Kind::constant && !pre.enabled) c.noise_balance = NoiseBalance{step.a, 1.0, noise.value};
            return c;
          },
          TuningFacts{TuningFacts::Method::stein, false, false}};
}

}  // namespace sgmcmc::run
