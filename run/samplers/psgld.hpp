#pragma once
// Registry entry for preconditioned SGLD (Li, Chen, Carlson & Carin 2016) on flat space
// (samplers/psgld.hpp): name, config section, build, and its state's JSON form.
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/psgld.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<psgld::State> {
  static json write(const psgld::State& s) {
    return {{"x", vector_json(s.x)}, {"square_average", vector_json(s.square_average)}, {"gradient_evals", s.gradient_evals}};
  }
  static void read(psgld::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
    s.square_average = as_vector(f.get("square_average"), f.at("square_average"), s.x.size());
    if ((s.square_average.array() < 0).any()) fail(f.at("square_average"), "expected numbers >= 0");
    s.gradient_evals = state_count(f, "gradient_evals");
    f.finish();
  }
};

/// {"name": "psgld", "step_size": h, "alpha": α (default 0.99), "lambda": λ, "gamma_term": Γ added (default false), "adapt_steps": K
///  (default 0: V adapts throughout; K > 0: frozen after K steps, a fixed diagonal preconditioner)}
/// λ defaults to Li et al.'s 10⁻⁵ on the per-example mean gradient: N·10⁻⁵ on a data target, whose
/// gradient is the sum over its N examples (10⁻⁵ there lets G = 1/(λ + √V) reach 10⁵ where the
/// gradient vanishes — at the mode — and the first steps' noise throw the chain far off:
/// docs/benchmarks.md, "Preconditioning"); 10⁻⁵ on any other target.
inline SamplerEntry psgld_sampler() {
  return {{"psgld"}, "preconditioned SGLD (RMSprop diagonal preconditioner) on euclidean",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) {
            require_euclidean(f, manifold, "psgld");
            json out = {{"name", f.string("name")}};
            const auto step = read_step_size(f, out, run, Exploration::supported);
            const double alpha = f.number("alpha", 0.99, Range::non_negative);
            if (alpha >= 1) fail(f.at("alpha"), fmt::format("expected a number in [0, 1), got {}", alpha));
            const double lambda = f.number("lambda", 1e-5 * static_cast<double>(target.examples.value_or(1)), Range::positive);
            const auto adapt = f.count("adapt_steps", 0, 0);
            const bool gamma_term = f.boolean("gamma_term", false);
            out.update({{"alpha", alpha}, {"lambda", lambda}, {"adapt_steps", adapt}, {"gamma_term", gamma_term}});
            return SamplerChoice{"psgld", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(psgld::Sampler{m.ambient_size(), step, alpha, lambda, adapt, gamma_term}, t, std::move(x0), rng);
                                 }, step};
          }};
}

}  // namespace sgmcmc::run
