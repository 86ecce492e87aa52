#pragma once
// What several sampler entries share: the step size (a number or a schedule), the splitting scheme,
// the noise estimate V̂ (refused with batches drawn without replacement), the refusal of
// stochastic-gradient samplers on singular Dirichlet targets, and the JSON form of the momentum
// samplers' phase state.
#include <string>

#include <fmt/format.h>

#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

/// step_size: a positive number, {"schedule": "polynomial", "a": ..., "b": ..., "gamma": ...}, or
/// {"schedule": "cyclical", "a": h0, "cycle": L, "explore": β} — or, in place of the cycle length, the
/// number of cycles `cycles` M over the run's K steps, which becomes L = ⌈K/M⌉ (cSG-MCMC Eq. 1) and is
/// recorded as L, so a run resumed for more steps keeps its cycle. `explore` > 0 only where the sampler
/// can take noise-free steps (`sampler_name` null).
inline schedule::StepSize parse_step_size(const json& j, const std::string& path, const RunLength& run,
                                          const char* sampler_name = nullptr) {
  if (j.is_number()) return schedule::StepSize::constant(as_number(j, path, Range::positive));
  Fields f(j, path);
  const std::string kind = f.string("schedule");
  schedule::StepSize s;
  if (kind == "constant") {
    s = schedule::StepSize::constant(f.number("a", Range::positive));
  } else if (kind == "polynomial") {
    s = schedule::StepSize::polynomial(f.number("a", Range::positive), f.number("b", 1.0, Range::positive),
                                       f.number("gamma", 0.55, Range::non_negative));
  } else if (kind == "cyclical") {
    const double a = f.number("a", Range::positive);
    std::uint64_t cycle = 0;
    if (f.find("cycle")) {
      cycle = f.count("cycle", 1, 1);
      if (f.find("cycles")) (void)f.count("cycles", 1, 1);  // a record written before cycles became cycle in place
    } else {
      const std::uint64_t m = f.count("cycles", 1, 1);  // at least 1: the cycle's length divides by it
      if (run.steps > 0 && m > run.steps) fail(f.at("cycles"), fmt::format("{} cycles in a run of {} steps", m, run.steps));
      cycle = run.steps == 0 ? 1 : (run.steps + m - 1) / m;
    }
    const double explore = f.number("explore", 0.0, Range::non_negative);
    if (explore >= 1) fail(f.at("explore"), fmt::format("expected a fraction in [0, 1), got {}", explore));
    if (explore > 0 && sampler_name)
      fail(f.at("explore"), fmt::format("'{}' has no noise-free exploration stage (sgld, psgld and sghmc have)", sampler_name));
    s = schedule::StepSize::cyclical(a, cycle, explore);
    if (s.explore_steps() >= cycle)
      fail(f.at("explore"), fmt::format("{} of a cycle of {} steps leaves no step to sample", explore, cycle));
  } else {
    fail(f.at("schedule"), fmt::format("unknown schedule '{}' (known: constant, polynomial, cyclical)", printable(kind)));
  }
  f.finish();
  return s;
}

inline json step_size_json(const schedule::StepSize& s) {
  if (s.kind == schedule::StepSize::Kind::constant) return s.a;
  if (s.kind == schedule::StepSize::Kind::cyclical) {
    json j = {{"schedule", "cyclical"}, {"a", s.a}, {"cycle", s.cycle}};
    if (s.explore > 0) j["explore"] = s.explore;
    return j;
  }
  return {{"schedule", "polynomial"}, {"a", s.a}, {"b", s.b}, {"gamma", s.gamma}};
}

/// Whether a sampler can run a cyclical schedule's exploration stage (noise-free steps).
enum class Exploration { refused, supported };

/// Reads the required `step_size` into `out`'s record section.
inline schedule::StepSize read_step_size(Fields& f, json& out, const RunLength& run, Exploration e = Exploration::refused) {
  const std::string name = printable(f.string("name"));
  const schedule::StepSize s =
      parse_step_size(f.get("step_size"), f.at("step_size"), run, e == Exploration::supported ? nullptr : name.c_str());
  out["step_size"] = step_size_json(s);
  return s;
}

/// The splitting scheme (`scheme`, default aboba): aboba, baoab, obabo, euler in the seed papers' letters
/// (B friction, O noisy kick), or lm_baoab, Leimkuhler & Matthews's BAOAB (gradient-only kick, exact OU).
/// `exact_ou` false: the sampler's dynamics has no exact OU step (sgnht), and lm_baoab is refused here.
inline splitting::StageList read_scheme(Fields& f, json& out, bool exact_ou = true) {
  const std::string name = f.string("scheme", "aboba");
  splitting::StageList s;
  try {
    s = splitting::scheme_by_name(name);
  } catch (const Error& e) {
    fail(f.at("scheme"), e.what());
  }
  if (s.leimkuhler_matthews() && !exact_ou)
    fail(f.at("scheme"), fmt::format("'{}' (Leimkuhler & Matthews's BAOAB) needs an exact Ornstein-Uhlenbeck step, which '{}' has "
                                     "not: its friction is the thermostat ξ, a variable of the state (docs/samplers.md). Use "
                                     "sghmc, or a scheme in the seed papers' letters (aboba, baoab, obabo, euler)",
                                     name, printable(f.string("name"))));
  out["scheme"] = name;
  return s;
}

/// Refuses a gradient-noise correction (the number `value`, or `empirical_fisher`; the field at `path`)
/// on a target whose minibatches are drawn without replacement. The correction subtracts the noise of independent batches from the injected
/// noise; the batches of one epoch are not independent — their errors sum to zero — so the chain feels
/// far less noise than one batch's variance and the correction makes the posterior too narrow (sds
/// 10–20 % low on logistic regression and on a conjugate linear model: docs/samplers.md). Additive
/// `grad_noise` σ is independent from step to step, so a number up to σ² is still accepted for it.
inline void require_independent_batches(const std::string& path, const TargetChoice& target, double value,
                                        bool empirical_fisher) {
  if (target.gradient.independent_batches) return;
  const double sigma = target.gradient.added_noise_sd;
  if (!empirical_fisher && value <= sigma * sigma) return;
  fail(path, fmt::format("{} with minibatches drawn without replacement (/target/with_replacement is false): "
                         "the batches of an epoch are negatively correlated, so the gradient noise the chain "
                         "feels is far below one batch's variance and the correction would make the posterior "
                         "too narrow (docs/samplers.md). Set \"with_replacement\": true in the target to keep "
                         "the correction, or leave it out (0){}",
                         empirical_fisher ? "empirical_fisher" : fmt::format("a gradient-noise estimate of {}", value),
                         sigma > 0 ? fmt::format("; up to grad_noise² = {} covers the added noise", sigma * sigma) : ""));
}

/// The gradient-noise estimate V̂: a number >= 0 (default 0) or, where allowed, "empirical_fisher"
/// (estimated per coordinate from each minibatch; needs a target with per-example gradients, drawn
/// with replacement).
struct NoiseEstimate {
  double value = 0.0;
  bool empirical_fisher = false;
};
inline NoiseEstimate read_noise_estimate(Fields& f, json& out, const TargetChoice& target, bool fisher_allowed) {
  NoiseEstimate n;
  const json* v = f.find("noise_estimate");
  if (v && v->is_string()) {
    if (*v != "empirical_fisher" || !fisher_allowed)
      fail(f.at("noise_estimate"),
           fmt::format("expected a number >= 0{}, got {}", fisher_allowed ? " or \"empirical_fisher\"" : "", describe(*v)));
    if (const auto e = target.gradient.estimator; e != GradientFacts::Estimator::minibatch && e != GradientFacts::Estimator::exact)
      fail(f.at("noise_estimate"), fmt::format("empirical_fisher measures the plain minibatch gradient's spread, and target '{}' uses "
                                               "the {} estimator (give a number instead, or estimator minibatch)",
                                               target.kind, name_of(e)));
    if (!target.target.has_noise_estimate())
      fail(f.at("noise_estimate"), fmt::format("empirical_fisher needs a minibatch target with per-example gradients; "
                                               "target '{}' has none (give a number instead)",
                                               target.kind));
    n.empirical_fisher = true;
    require_independent_batches(f.at("noise_estimate"), target, 0.0, true);
    out["noise_estimate"] = "empirical_fisher";
    return n;
  }
  n.value = v ? as_number(*v, f.at("noise_estimate"), Range::non_negative) : 0.0;
  require_independent_batches(f.at("noise_estimate"), target, n.value, false);
  out["noise_estimate"] = n.value;
  return n;
}

/// Potentials singular at the simplex faces break stochastic-gradient samplers with reflection
/// (docs/math.md#singular-potentials-on-the-simplex: SGGMC on Dirichlet(2,3,5) gives mean
/// (0.244, 0.310, 0.446) for (0.2, 0.3, 0.5)).
inline void refuse_singular_dirichlet(Fields& f, const TargetChoice& target) {
  if (target.target.singular_at_faces())
    fail(f.at("name"), fmt::format("'{}' on a Dirichlet target with some alpha_i != 1: its force (alpha_i - 1)/x_i is "
                                   "unbounded at the simplex faces, and stochastic-gradient samplers with reflection "
                                   "are biased or unstable there (docs/samplers.md). Use scir (exact CIR transition), "
                                   "sgrld (expanded-mean) or gmc (Metropolis-corrected)",
                                   printable(f.string("name"))));
}

/// Requires flat space (the Riemannian samplers and the generic recipe are written in coordinates).
inline void require_euclidean(Fields& f, const ManifoldChoice& m, const std::string& name, const char* also = "") {
  if (!m.geometry.flat) fail("/manifold/name", fmt::format("'{}' runs on euclidean{}", name, also));
  (void)f;
}

/// Reads a counter field of a state.
inline std::uint64_t state_count(Fields& f, const char* key) { return as_count(f.get(key), f.at(key), 0); }

/// The momentum samplers' phase state (sghmc, sgnht, hmc): position, velocity, thermostat and counters.
template <>
struct StateJson<splitting::PhaseState> {
  static json write(const splitting::PhaseState& s) {
    return {{"x", vector_json(s.x)}, {"v", vector_json(s.v)}, {"xi", s.xi},
            {"reflections", s.reflections}, {"gradient_evals", s.gradient_evals}};
  }
  static void read_fields(splitting::PhaseState& s, Fields& f) {
    const auto n = s.x.size();
    s.x = as_vector(f.get("x"), f.at("x"), n);
    s.v = as_vector(f.get("v"), f.at("v"), n);
    s.xi = f.number("xi");
    s.reflections = state_count(f, "reflections");
    s.gradient_evals = state_count(f, "gradient_evals");
  }
  static void read(splitting::PhaseState& s, const json& j, const std::string& path) {
    Fields f(j, path);
    read_fields(s, f);
    f.finish();
  }
};

/// A PhaseState with Metropolis–Hastings counters (hmc, amagold): its JSON form.
template <class S>
json write_metropolis_state(const S& s) {
  json j = StateJson<splitting::PhaseState>::write(s);
  j["accepted"] = s.accepted;
  j["proposals"] = s.proposals;
  j["divergent"] = s.divergent;
  return j;
}
template <class S>
void read_metropolis_state(S& s, const json& j, const std::string& path) {
  Fields f(j, path);
  StateJson<splitting::PhaseState>::read_fields(s, f);
  s.accepted = state_count(f, "accepted");
  s.proposals = state_count(f, "proposals");
  s.divergent = state_count(f, "divergent");
  f.finish();
}

}  // namespace sgmcmc::run
