#pragma once
// Registry entries for the complete recipe's Riemannian samplers (Ma, Chen & Fox 2015): SGRLD
// (Patterson & Teh 2013; on the simplex in the expanded-mean parametrisation), gSGRHMC and the naive
// SGRHMC counter-example (samplers/sgrld.hpp, samplers/sgrhmc.hpp), with a metric from run/metric_spec.hpp.
#include <sgmcmc/run/metric_spec.hpp>
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<sgrld::ExpandedState> {
  static json write(const sgrld::ExpandedState& s) {
    return {{"theta", vector_json(s.theta)}, {"gradient_evals", s.gradient_evals}, {"reflections", s.reflections}};
  }
  static void read(sgrld::ExpandedState& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.theta = as_vector(f.get("theta"), f.at("theta"), s.theta.size());
    if (!(s.theta.array() > 0).all()) fail(f.at("theta"), "expected positive entries");
    s.x = s.theta / s.theta.sum();
    s.gradient_evals = state_count(f, "gradient_evals");
    s.reflections = state_count(f, "reflections");
    f.finish();
  }
};
template <>
struct StateJson<sgrld::State> {
  static json write(const sgrld::State& s) {
    return {{"x", vector_json(s.x)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
  }
  static void read(sgrld::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
    s.gradient_evals = state_count(f, "gradient_evals");
    s.clipped = state_count(f, "clipped");
    f.finish();
  }
};
template <>
struct StateJson<sgrhmc::State> {
  static json write(const sgrhmc::State& s) {
    return {{"x", vector_json(s.x)}, {"r", vector_json(s.r)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
  }
  static void read(sgrhmc::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
    s.r = as_vector(f.get("r"), f.at("r"), s.r.size());
    s.gradient_evals = state_count(f, "gradient_evals");
    s.clipped = state_count(f, "clipped");
    f.finish();
  }
};

/// `noise_policy`: what to do when 2D − hB̂ is not positive semidefinite ("error" or "clip").
inline recipe::NoisePolicy read_noise_policy(Fields& f, json& out) {
  const std::string policy = f.string("noise_policy", "error");
  out["noise_policy"] = policy;
  if (policy == "clip") return recipe::NoisePolicy::clip;
  if (policy != "error") fail(f.at("noise_policy"), fmt::format("expected \"error\" or \"clip\", got \"{}\"", printable(policy)));
  return recipe::NoisePolicy::error;
}
/// `scheme` of the recipe's Euler discretisations: "euler" or "semi_implicit".
inline recipe::Scheme read_recipe_scheme(Fields& f, json& out) {
  const std::string sch = f.string("scheme", "euler");
  out["scheme"] = sch;
  if (sch == "semi_implicit") return recipe::Scheme::semi_implicit;
  if (sch != "euler") fail(f.at("scheme"), fmt::format("expected \"euler\" or \"semi_implicit\", got \"{}\"", printable(sch)));
  return recipe::Scheme::euler;
}
/// The expanded-mean SGRLD on the simplex (Patterson & Teh 2013, Eq. 10) has its own metric diag(θ) and
/// samples its Gamma-augmented coordinates without a noise correction or a clipped D: a `metric`, a
/// `noise_estimate` or a `noise_policy` would be ignored there, so each is refused, except the values
/// that mean "none" (noise_estimate 0, noise_policy "error"), which records written before this
/// check hold.
inline void refuse_expanded_mean_fields(Fields& f) {
  const char* why = "the expanded-mean SGRLD on the simplex has its own metric diag(θ) and no noise correction "
                    "(Patterson & Teh 2013): leave the field out";
  if (f.find("metric")) fail(f.at("metric"), why);
  if (const json* v = f.find("noise_estimate"); v && !(v->is_number() && v->get<double>() == 0.0)) fail(f.at("noise_estimate"), why);
  if (const json* v = f.find("noise_policy"); v && !(v->is_string() && *v == "error")) fail(f.at("noise_policy"), why);
}
/// The metric (default level_set) for a Riemannian sampler on euclidean space.
inline AnyMetric read_metric(Fields& f, json& out, const ManifoldChoice& manifold) {
  const json metric = f.has("metric") ? f.get("metric") : json{{"name", "level_set"}};
  json m;
  AnyMetric g = parse_metric(metric, f.at("metric"), *manifold.dim(), m);
  out["metric"] = m;
  return g;
}

/// {"name": "sgrld", "step_size": h, "metric": {...}, "noise_estimate": V̂, "noise_policy": ...}; on the simplex
/// the expanded-mean parametrisation (the record reports π).
inline SamplerEntry sgrld_sampler() {
  return {{"sgrld"}, "stochastic gradient Riemannian Langevin dynamics (expanded-mean on the simplex)",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) -> SamplerChoice {
            const std::string name = f.string("name");
            if (!manifold.geometry.flat && !manifold.geometry.simplex)
              fail("/manifold/name", fmt::format("'{}' runs on euclidean or simplex (expanded-mean)", name));
            json out = {{"name", name}};
            const auto step = read_step_size(f, out, run);
            if (manifold.geometry.simplex) {
              refuse_expanded_mean_fields(f);
              return {"sgrld", out, [=](const AnyManifold&, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                        return chain_of(sgrld::ExpandedMean{step}, t, std::move(x0), rng);
                      }, step};
            }
            const auto policy = read_noise_policy(f, out);
            const auto noise = read_noise_estimate(f, out, target, false);
            const AnyMetric metric = read_metric(f, out, manifold);
            return {"sgrld", out, [=](const AnyManifold&, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                      return chain_of(sgrld::Sampler<AnyMetric>{metric, step, noise.value, policy}, t, std::move(x0), rng);
                    }, step};
          }};
}

/// {"name": "sgrhmc" | "naive_sgrhmc", "step_size": h, "metric": {...}, "noise_estimate": V̂, "scheme": euler |
/// semi_implicit, "noise_policy": ...}
inline SamplerEntry sgrhmc_sampler(bool naive) {
  return {{naive ? "naive_sgrhmc" : "sgrhmc"},
          naive ? "SGRHMC without Γ (the complete recipe's counter-example)" : "generalised stochastic gradient Riemannian HMC",
          [naive](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) -> SamplerChoice {
            const std::string name = f.string("name");
            require_euclidean(f, manifold, name);
            json out = {{"name", name}};
            const auto step = read_step_size(f, out, run);
            const auto policy = read_noise_policy(f, out);
            const auto scheme = read_recipe_scheme(f, out);
            const auto noise = read_noise_estimate(f, out, target, false);
            const AnyMetric metric = read_metric(f, out, manifold);
            const auto variant = naive ? sgrhmc::Variant::naive : sgrhmc::Variant::generalized;
            return {naive ? "naive_sgrhmc" : "sgrhmc", out,
                    [=](const AnyManifold&, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                      return chain_of(sgrhmc::Sampler<AnyMetric>{metric, step, variant, noise.value, scheme, policy}, t, std::move(x0), rng);
                    }, step};
          }};
}

}  // namespace sgmcmc::run
