#pragma once
// The `preconditioner` field of the flat-space samplers (sgld, sghmc): a fixed diagonal
// preconditioner estimated during a warm-up (samplers/preconditioned.hpp), and its state's JSON form.
//   "preconditioner": "none"                (default)
//   "preconditioner": "diagonal"            estimated during burn-in: {"adapt_steps": burn_in}
//   "preconditioner": {"adapt_steps": K}    s estimated from ∇Ũ⊙∇Ũ over steps K/2 … K−1, then fixed;
//   "preconditioner": {"scale": [s_1, …]}   s given.
#include <cstdint>
#include <string>

#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>

namespace sgmcmc::run {

template <class Inner>
struct StateJson<preconditioned::State<Inner>> {
  static json write(const preconditioned::State<Inner>& s) {
    return {{"inner", StateJson<Inner>::write(s.inner)}, {"scale", vector_json(s.scale)}, {"square_sum", vector_json(s.square_sum)},
            {"collected", s.collected}};
  }
  static void read(preconditioned::State<Inner>& s, const json& j, const std::string& path) {
    Fields f(j, path);
    StateJson<Inner>::read(s.inner, f.get("inner"), f.at("inner"));
    const auto d = s.scale.size();
    s.scale = as_vector(f.get("scale"), f.at("scale"), d);
    if (!(s.scale.array() > 0).all()) fail(f.at("scale"), "expected positive numbers");
    s.square_sum = as_vector(f.get("square_sum"), f.at("square_sum"), d);
    s.collected = state_count(f, "collected");
    s.theta = s.scale.cwiseProduct(s.inner.x);
    f.finish();
  }
};

/// The parsed `preconditioner` section: none, a warm-up of K steps, or a given scale.
struct PreconditionChoice {
  bool enabled = false;
  std::uint64_t adapt_steps = 0;
  Eigen::VectorXd scale;  ///< given; empty when estimated
};

/// `preconditioner`: "none" (the default), "diagonal" (estimated during the run's burn-in: {"adapt_steps":
/// burn_in}), {"adapt_steps": K} or {"scale": [...]}; recorded as the object that runs.
inline PreconditionChoice read_precondition(Fields& f, json& out, const ManifoldChoice& manifold, const std::string& name,
                                            const RunLength& run) {
  PreconditionChoice p;
  const json* j = f.find("preconditioner");
  if (!j || (j->is_string() && *j == "none")) return p;
  if (!manifold.geometry.flat)
    fail(f.at("preconditioner"), fmt::format("a diagonal preconditioner rescales coordinates: '{}' takes it on euclidean only", name));
  p.enabled = true;
  if (j->is_string() && *j == "diagonal") {
    if (run.burn_in < 2)
      fail(f.at("preconditioner"), fmt::format("the diagonal preconditioner is estimated during burn-in, and burn_in is {}: set "
                                               "\"burn_in\" (e.g. a tenth of the steps), or give {{\"adapt_steps\": K}} or "
                                               "{{\"scale\": [...]}}", run.burn_in));
    p.adapt_steps = run.burn_in;
    out["preconditioner"] = {{"adapt_steps", p.adapt_steps}};
    return p;
  }
  if (!j->is_object())
    fail(f.at("preconditioner"), fmt::format("expected \"none\", \"diagonal\", {{\"adapt_steps\": K}} or {{\"scale\": [...]}}, got {}",
                                             describe(*j)));
  Fields pf(*j, f.at("preconditioner"));
  if (const json* s = pf.find("scale")) {
    if (pf.find("adapt_steps")) fail(pf.at("adapt_steps"), "give either adapt_steps or scale, not both");
    p.scale = as_vector(*s, pf.at("scale"), manifold.dim().value_or(-1));
    if (!(p.scale.array() > 0).all() || !p.scale.allFinite()) fail(pf.at("scale"), "expected positive numbers");
    out["preconditioner"] = {{"scale", vector_json(p.scale)}};
  } else {
    p.adapt_steps = pf.count("adapt_steps", 1);
    out["preconditioner"] = {{"adapt_steps", p.adapt_steps}};
  }
  pf.finish();
  return p;
}

/// What the recorded sampler's `preconditioner` (as read_precondition records it) means for the outputs:
/// Stan's metric line and adaptation block (output::MetricFacts). Here, beside the field's reader, so no
/// format reads the sampler's JSON.
inline output::MetricFacts metric_facts(const json& resolved_sampler, std::uint64_t burn_in) {
  output::MetricFacts m;
  m.burn_in = burn_in;
  if (!resolved_sampler.is_object() || !resolved_sampler.contains("preconditioner")) return m;
  const json& p = resolved_sampler["preconditioner"];
  if (!p.is_object()) return m;
  m.diagonal = true;
  if (p.contains("adapt_steps") && p["adapt_steps"].is_number_unsigned()) m.adapt_steps = p["adapt_steps"].get<std::uint64_t>();
  if (p.contains("scale") && p["scale"].is_array())
    for (const json& s : p["scale"]) m.given_inverse.push_back(s.is_number() ? s.get<double>() * s.get<double>() : std::nan(""));
  return m;
}

/// A chain's warm-up as the outputs see it, from its recorded state (chains[i].state, StateJson above):
/// a preconditioned sampler's scale s gives the inverse metric s²; any other state gives none.
inline output::WarmUp warm_up_of(const json& chain_state) {
  output::WarmUp w;
  if (!chain_state.is_object() || !chain_state.contains("sampler")) return w;
  const json& s = chain_state["sampler"];
  if (!s.is_object() || !s.contains("scale") || !s["scale"].is_array() || !s.contains("square_sum")) return w;
  for (const json& v : s["scale"]) w.inverse_metric.push_back(v.is_number() ? v.get<double>() * v.get<double>() : std::nan(""));
  return w;
}

/// The chain of `sampler`, preconditioned as `p` says.
template <class S>
std::unique_ptr<AnyChain> chain_preconditioned(const PreconditionChoice& p, S sampler, const AnyTarget& target, Eigen::VectorXd x0,
                                               random::Stream rng) {
  if (!p.enabled) return chain_of(std::move(sampler), target, std::move(x0), rng);
  if (p.scale.size() != 0 && p.scale.size() != x0.size())
    throw Error(fmt::format("/sampler/preconditioner/scale: expected {} numbers, got {}", x0.size(), p.scale.size()));
  return chain_of(preconditioned::Sampler<S>{std::move(sampler), p.adapt_steps, p.scale}, target, std::move(x0), rng);
}

}  // namespace sgmcmc::run
