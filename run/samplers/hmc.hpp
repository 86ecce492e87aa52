#pragma once
// Registry entries for HMC — geodesic Monte Carlo on a manifold (Byrne & Girolami 2013) — the exact
// reference, and the SGHMC paper's naive stochastic-gradient HMC counter-example (its Eq. 15), which is
// the same code with the stochastic gradient (samplers/hmc.hpp).
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/hmc.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<hmc::State> {
  static json write(const hmc::State& s) { return write_metropolis_state(s); }
  static void read(hmc::State& s, const json& j, const std::string& path) {
    read_metropolis_state(s, j, path);
    s.x_start = s.x;
  }
};

/// {"name": "hmc" | "gmc", "step_size": h, "leapfrog_steps": L (default 10)}
inline SamplerEntry hmc_sampler() {
  return {{"hmc", "gmc"}, "HMC with Metropolis–Hastings (geodesic Monte Carlo on a manifold): the exact reference",
          [](Fields& f, const ManifoldChoice&, const TargetChoice& target, const RunLength& run) {
            json out = {{"name", f.string("name")}};
            if (!target.target.has_value())
              fail(f.at("name"), fmt::format("hmc needs the target's exact value and gradient; target '{}' has none "
                                             "(use a stochastic-gradient sampler)", target.kind));
            const auto step = read_step_size(f, out, run);
            const auto leapfrog = f.count("leapfrog_steps", 10, 1);
            if (leapfrog > 1'000'000) fail(f.at("leapfrog_steps"), fmt::format("expected at most 1000000, got {}", leapfrog));
            out["leapfrog_steps"] = leapfrog;
            return SamplerChoice{"hmc", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(hmc::Sampler<AnyManifold>{m, step, static_cast<int>(leapfrog), hmc::Gradient::exact, true},
                                                   t, std::move(x0), rng);
                                 }, step};
          },
          TuningFacts{TuningFacts::Method::dual_averaging, true, false}};
}

/// {"name": "naive_sghmc", "step_size": h, "leapfrog_steps": L (default 50), "mh": false}
inline SamplerEntry naive_sghmc_sampler() {
  return {{"naive_sghmc"}, "naive stochastic-gradient HMC (the SGHMC paper's counter-example)",
          [](Fields& f, const ManifoldChoice&, const TargetChoice& target, const RunLength& run) {
            refuse_singular_dirichlet(f, target);
            json out = {{"name", f.string("name")}};
            const auto step = read_step_size(f, out, run);
            const auto leapfrog = f.count("leapfrog_steps", 50, 1);
            if (leapfrog > 1'000'000) fail(f.at("leapfrog_steps"), fmt::format("expected at most 1000000, got {}", leapfrog));
            const bool mh = f.boolean("mh", false);
            out["leapfrog_steps"] = leapfrog;
            out["mh"] = mh;
            return SamplerChoice{"naive_sghmc", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(hmc::Sampler<AnyManifold>{m, step, static_cast<int>(leapfrog), hmc::Gradient::stochastic, mh},
                                                   t, std::move(x0), rng);
                                 }, step};
          }};
}

}  // namespace sgmcmc::run
