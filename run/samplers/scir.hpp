#pragma once
// Registry entry for the stochastic Cox–Ingersoll–Ross sampler (SCIR; Baker, Fearnhead, Fox & Nemeth
// 2018) for Dirichlet-type targets on the simplex (samplers/scir.hpp).
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/scir.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<scir::State> {
  static json write(const scir::State& s) { return {{"theta", vector_json(s.theta)}, {"gradient_evals", s.gradient_evals}}; }
  static void read(scir::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.theta = as_vector(f.get("theta"), f.at("theta"), s.theta.size());
    if (!(s.theta.array() > 0).all()) fail(f.at("theta"), "expected positive entries");
    s.x = s.theta / s.theta.sum();
    s.gradient_evals = state_count(f, "gradient_evals");
    f.finish();
  }
};

/// {"name": "scir", "step_size": h}: manifold simplex, a Dirichlet-type target.
inline SamplerEntry scir_sampler() {
  return {{"scir"}, "stochastic CIR: exact transitions for Dirichlet-type targets on the simplex",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) {
            if (!(manifold.geometry.simplex && target.target.is_dirichlet_type()))
              fail(f.at("name"), "scir samples Dirichlet-type targets: it needs manifold simplex and target dirichlet");
            json out = {{"name", f.string("name")}};
            const auto step = read_step_size(f, out, run);
            return SamplerChoice{"scir", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(scir::Sampler{m.ambient_size(), step}, t, std::move(x0), rng);
                                 }, step};
          }};
}

}  // namespace sgmcmc::run
