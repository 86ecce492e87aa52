#pragma once
// A whole run config (docs/config.md): manifold, target, sampler — parsed once, in that order, through
// the registry's entries — then run length, chains, seed and init.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/modules/schedule/temperature.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/reported_scale.hpp>
#include <sgmcmc/run/samplers/common.hpp>

namespace sgmcmc::run {

/// What a config leaves to the tuner (run/tune.hpp): the sampler's step size ("auto" or left out), and
/// where the sampler and target allow it the friction and the batch size the config leaves out.
struct TuneRequest {
  TuningFacts facts;
  bool friction = false;  ///< choose SGHMC's friction C too
  bool batch = false;     ///< choose the data target's batch size too
  json sampler;           ///< the sampler section as given, its step_size left out
  json section;           ///< the config's `tune` section as given (null: none)
};

struct RunConfig {
  ManifoldChoice manifold;
  TargetChoice target;
  SamplerChoice sampler;
  std::uint64_t steps = 1000;
  std::uint64_t burn_in = 0;
  std::uint64_t thin = 1;
  Retention retention;                ///< burn_in, thin, and a cyclical schedule's exploration stages
  std::uint64_t chains = 1;
  std::uint64_t seed = 0;
  bool log_density = false;           ///< record lp = −U(x) with each kept draw (the target's exact value)
  bool log_likelihood = false;        ///< write log p(y_i | x) of every example with each kept draw (data targets)
  std::vector<Eigen::VectorXd> init;  ///< empty: a random point per chain; else one per chain
  std::uint64_t max_dimension = 10'000'000;  ///< the largest ambient dimension accepted (see below)
  int shards = 1;                     ///< `distributed.shards`: ranks per chain group (docs/distributed.md)
  std::uint64_t checkpoint_every = 0; ///< write the resumable record every this many steps (0: at the end only)
  json resolved;                      ///< the config with every default filled in
  /// Set when the config leaves a step size to the tuner: run() tunes before the chains are built and
  /// records the choice, so the record's config holds concrete settings and a resume never tunes again.
  std::optional<TuneRequest> tune;
  /// The wall time the tuner took (part of the run phase's setup_seconds; the record's
  /// timings.phases[0].tuning_seconds): measured, so kept out of `resolved`, which the same seed repeats.
  double tuning_seconds = 0;
};

/// How a config's `distributed` section is taken: by a run, its shards over the transport's ranks (a
/// plain process, with no transport, refuses shards > 1: it cannot continue a sharded run's bits); or
/// by an analysis of a record (summary --stein, thin, convert), the data whole in one process.
struct Placement {
  distributed::Transport* transport = nullptr;
  bool whole_data = false;
};

/// The default cap on a run's ambient dimension: 10⁷ coordinates, 80 MB per state vector, a few hundred
/// MB per chain with a sampler's scratch. Checked before anything of that size is allocated, so a typo
/// (`"dim": 1000000000`) is an error naming the field, not gigabytes taken and an abort; a run that
/// needs more says so with `"max_dimension"`.
inline constexpr std::uint64_t default_max_dimension = 10'000'000;

namespace detail {
inline void check_dimension(std::optional<Eigen::Index> dim, std::uint64_t cap, const char* path, const char* what) {
  if (dim && *dim < 1) fail(path, fmt::format("{} with no coordinates (dimension {})", what, *dim));
  if (dim && static_cast<std::uint64_t>(*dim) > cap)
    fail(path, fmt::format("{} of dimension {} is above max_dimension {} (each state vector would take {:.3g} GB per "
                           "chain); set \"max_dimension\" in the config if you mean it",
                           what, *dim, cap, 8e-9 * static_cast<double>(*dim)));
}

/// `"init": "mode"`: θ̂ = argmin U by L-BFGS from 0 on the target's exact U and ∇U (the same search a
/// control variate's centre takes: modules/optimize/mode.hpp), for a euclidean target with a value.
inline Eigen::VectorXd mode_of(const TargetChoice& target, const ManifoldChoice& manifold, Eigen::Index dim) {
  if (!manifold.geometry.flat)
    fail("/init", fmt::format("\"mode\": the mode search (L-BFGS) runs on euclidean space, and the manifold is {}; give a point", manifold.kind));
  if (!target.target.has_value())
    fail("/init", fmt::format("\"mode\": target '{}' has no exact value to minimise; give a point", target.kind));
  try {
    return optimize::find_mode(target.target, target.start.value_or(Eigen::VectorXd::Zero(dim))).x;
  } catch (const Error& e) {
    fail("/init", fmt::format("\"mode\": {}; give a point instead", e.what()));
  }
}

/// `sampler.temperature`: a number T, or {"schedule": "geometric", "from": T₀, "to": T₁ (default 1),
/// "steps": K (default: the burn-in)} (modules/schedule/temperature.hpp); `resolved` gets its full form.
inline schedule::Temperature parse_temperature(const json& j, const std::string& path, std::uint64_t burn_in, json& resolved) {
  if (!j.is_object()) {
    const double t = as_number(j, path, Range::positive);
    resolved = t;
    return schedule::Temperature::constant(t);
  }
  Fields f(j, path);
  const std::string kind = f.string("schedule");
  if (kind != "geometric") fail(f.at("schedule"), fmt::format("expected \"geometric\" (or a number: a constant T), got \"{}\"", printable(kind)));
  const double from = f.number("from", Range::positive), to = f.number("to", 1.0, Range::positive);
  if (!f.find("steps") && burn_in == 0)
    fail(path, "an annealing schedule runs over the burn-in by default, and burn_in is 0: give \"steps\" K (or set \"burn_in\")");
  const std::uint64_t steps = f.count("steps", burn_in, 1);
  f.finish();
  resolved = {{"schedule", "geometric"}, {"from", from}, {"to", to}, {"steps", steps}};
  return schedule::Temperature::geometric(from, to, steps);
}

/// Sets the target to temperature T, or its schedule (`sampler.temperature`: every sampler samples
/// ∝ exp(−U/T_t)). A target that resamples a block of its own by Gibbs steps (bnn, bpmf precisions)
/// would leave that block at T = 1, so it is refused there.
inline void temper(TargetChoice& target, const schedule::Temperature& temperature, const std::string& path) {
  if (target.target.is_dirichlet_type())
    fail(path, fmt::format("target '{}' gives samplers its concentrations, not a gradient to scale by 1/T", target.kind));
  if (target.gradient.gibbs_every > 0)
    fail(path, fmt::format("target '{}' resamples its precisions by Gibbs steps at temperature 1; set \"gibbs_every\": 0 in "
                           "the target (fixed precisions) to temper it", target.kind));
  target.target = target.target.tempered(temperature);
}
}  // namespace detail

/// Whether the sampler section leaves its step size to the tuner, and if so takes it out of `section`
/// (replaced by a placeholder the entry parses, so every other field is checked as usual) and says
/// what else is left: friction (SGHMC's, when not given), batch size (a data target's, when the
/// config's target section does not give one).
inline std::optional<TuneRequest> tune_request(json& section, const SamplerEntry& entry, const json& target_section,
                                               const TargetChoice& target, const json* tune_section, int shards) {
  const json* h = section.is_object() ? (section.contains("step_size") ? &section["step_size"] : nullptr) : nullptr;
  const bool momentum_form = section.is_object() && (section.contains("learning_rate") || section.contains("momentum_decay"));
  const bool left = !momentum_form && (h == nullptr || (h->is_string() && *h == "auto"));
  if (!left) {
    if (tune_section && !(tune_section->is_object() && tune_section->contains("chosen")))
      fail("/tune", "nothing to tune: the sampler's step_size is given (leave it out, or set it to \"auto\", to tune it)");
    return std::nullopt;
  }
  const std::string name = section.value("name", "");
  if (entry.tuning.method == TuningFacts::Method::none)
    fail("/sampler/step_size", fmt::format("required for '{}': it has no tuner (the stein tuner serves sgld, sghmc and sgnht, dual "
                                           "averaging hmc and amagold; docs/tuning.md)", printable(name)));
  if (shards > 1)
    fail("/sampler/step_size", "tuning runs each arm in one process and cannot split one over distributed.shards > 1 ranks: "
                               "tune on one machine (sgmcmc tune CONFIG prints the choice) and give the step size");
  // An adaptive preconditioner is estimated during the run's burn-in, which the tuner's short arms never
  // reach: they would tune the unpreconditioned sampler for a preconditioned run.
  if (const json* p = section.contains("preconditioner") ? &section["preconditioner"] : nullptr;
      p && ((p->is_string() && *p != "none") || (p->is_object() && !p->contains("scale") && !p->contains("cholesky") && !p->contains("cov"))))
    fail("/sampler/step_size", "required with a preconditioner estimated in burn-in: the tuner cannot tune in coordinates the run "
                               "has not estimated yet. Give a step size, or a fixed preconditioner (scale, cholesky or cov)");
  TuneRequest r;
  r.facts = entry.tuning;
  r.friction = entry.tuning.friction && !section.contains("friction");
  r.batch = entry.tuning.method == TuningFacts::Method::stein && static_cast<bool>(target.with_batch_size) &&
            !(target_section.is_object() && target_section.contains("batch_size"));
  r.section = tune_section ? *tune_section : json(nullptr);
  section.erase("step_size");
  r.sampler = section;
  section["step_size"] = 1.0;  // a placeholder: the entry checks every other field against it
  return r;
}

/// The embedded default demo: SGHMC on the SGHMC paper's ρ = 0.9 Gaussian (Fig. 3) with N(0, I) gradient
/// noise, corrected by the matching noise estimate V̂ = 1.
inline json default_config() {
  return json::parse(R"({
    "sampler":  {"name": "sghmc", "step_size": 0.05, "friction": 1.0, "noise_estimate": 1.0, "scheme": "aboba"},
    "manifold": {"name": "euclidean", "dim": 2},
    "target":   {"name": "gaussian", "mean": [0, 0], "cov": [[1, 0.9], [0.9, 1]], "grad_noise": 1.0},
    "steps": 200000, "burn_in": 1000, "thin": 10, "chains": 2, "seed": 7
  })");
}

namespace detail {
/// `distributed.shards` S ≥ 1 and this process's shard: S must divide the ranks; a plain process (no
/// transport) runs S = 1 only, unless the data are taken whole (Placement::whole_data).
inline distributed::Shard read_shards(Fields& f, const Placement& placement, int& shards) {
  shards = 1;
  if (const json* d = f.find("distributed")) {
    Fields df(*d, "/distributed");
    const std::uint64_t s = df.count("shards", 1, 1);
    if (s > 4096) fail(df.at("shards"), fmt::format("expected at most 4096 shards, got {}", s));
    shards = static_cast<int>(s);
    df.finish();
    if (shards > 1 && !placement.whole_data) {
      if (!placement.transport)
        fail(df.at("shards"), fmt::format("{} shards need {} or more MPI ranks: build with -DSGMCMC_MPI=ON and start the run with "
                                          "mpirun -np R (R a multiple of {}; docs/distributed.md)", shards, shards, shards));
      if (placement.transport->size() % shards != 0)
        fail(df.at("shards"), fmt::format("{} ranks do not split into chain groups of {} ranks (shards must divide the number of ranks)",
                                          placement.transport->size(), shards));
    }
  }
  if (placement.transport && !placement.whole_data) return placement.transport->shard(shards);
  return {};
}
}  // namespace detail

inline RunConfig parse_config(const json& j, const Registry& registry, const Placement& placement = {}) {
  Fields f(j, "");
  RunConfig c;
  c.max_dimension = f.count("max_dimension", default_max_dimension, 1);
  const distributed::Shard shard = detail::read_shards(f, placement, c.shards);
  if (const json* m = f.find("manifold")) {
    c.manifold = registry.parse_manifold(*m, "/manifold");
    detail::check_dimension(c.manifold.dim(), c.max_dimension, "/manifold", "a manifold");
  } else {
    c.manifold.kind = "euclidean";
    c.manifold.geometry.flat = true;
    c.manifold.deferred = true;  // resolved stays null: a missing dimension names /manifold
  }
  c.manifold.max_dimension = c.max_dimension;
  {
    Fields t(f.get("target"), "/target");
    const std::string name = t.string("name");
    const TargetEntry& entry = registry.target(name, t.at("name"));
    if (shard.sharded() && !entry.parse_sharded)
      fail("/distributed/shards", fmt::format("target '{}' cannot be sharded: only data targets read a part of their data (logistic)", name));
    c.target = shard.sharded() ? entry.parse_sharded(t, c.manifold, shard) : entry.parse(t, c.manifold);
    t.finish();
    detail::check_dimension(c.target.natural_dim, c.max_dimension, "/target", "a target");
  }
  if (c.manifold.deferred) {
    if (!c.target.natural_dim)
      fail(c.manifold.resolved.is_null() ? "/manifold" : "/manifold/dim", "required field is missing (the target does not fix a dimension)");
    c.manifold.manifold = Euclidean(*c.target.natural_dim);
    c.manifold.geometry.ambient = *c.target.natural_dim;
    c.manifold.resolved = {{"name", "euclidean"}, {"dim", *c.target.natural_dim}};
    c.manifold.deferred = false;
  }
  // The draw's named blocks must cover it exactly (a target's own do by construction; `names` may not).
  if (c.target.parameters)
    output::check_parameters(*c.target.parameters, c.manifold.manifold.ambient_size(),
                             c.target.resolved.contains("names") ? "/target/names" : "/target");
  c.steps = f.count("steps", 1000, 0);
  c.burn_in = f.count("burn_in", 0, 0);
  c.thin = f.count("thin", 1, 1);
  {
    json section = f.get("sampler");
    const json* tune_section = f.find("tune");
    if (section.is_object() && section.contains("name") && section["name"].is_string())
      c.tune = tune_request(section, registry.sampler(section["name"].get<std::string>(), "/sampler/name"), f.get("target"), c.target,
                            tune_section, c.shards);
    Fields s(section, "/sampler");
    const std::string name = s.string("name");
    json resolved_temperature;
    if (const json* t = s.find("temperature")) {
      const schedule::Temperature temperature = detail::parse_temperature(*t, s.at("temperature"), c.burn_in, resolved_temperature);
      if (temperature.to != 1.0 || temperature.varies()) detail::temper(c.target, temperature, s.at("temperature"));
      else resolved_temperature = nullptr;  // T = 1: the record reads as if none was given
    }
    c.sampler = registry.sampler(name, s.at("name")).parse(s, c.manifold, c.target, RunLength{c.steps, c.burn_in});
    s.finish();
    if (!resolved_temperature.is_null()) c.sampler.resolved["temperature"] = resolved_temperature;
    c.retention = Retention{c.burn_in, c.thin};
    // A cyclical schedule's exploration stages keep no draw (cSG-MCMC: draws only while sampling).
    if (const schedule::StepSize& h = c.sampler.step_size; h.kind == schedule::StepSize::Kind::cyclical) {
      c.retention.cycle = h.cycle;
      c.retention.explore_steps = h.explore_steps();
    }
  }
  const Eigen::Index dim = c.manifold.manifold.ambient_size();
  c.chains = f.count("chains", 1, 1);
  if (c.chains > 4096) fail("/chains", fmt::format("expected at most 4096 chains, got {}", c.chains));
  c.seed = f.count("seed", 0, 0);
  c.log_density = f.boolean("log_density", false);
  c.checkpoint_every = f.count("checkpoint_every", 0, 0);
  if (c.log_density && !c.target.target.has_value())
    fail(f.at("log_density"), fmt::format("target '{}' has no exact log density to record", c.target.kind));
  c.log_likelihood = f.boolean("log_likelihood", false);
  c.retention.save_warmup = f.boolean("save_warmup", false);
  if (c.log_likelihood && c.target.target.examples() == 0)
    fail(f.at("log_likelihood"), fmt::format("target '{}' has no pointwise log-likelihood to write (the data targets logistic, "
                                             "poisson, bnn and bpmf have one; a sharded run, distributed.shards > 1, has none)",
                                             c.target.kind));
  json resolved_init;
  if (const json* init = f.find("init")) {
    auto on_manifold = [&](Eigen::VectorXd x, const std::string& path) {
      const double off = c.manifold.manifold.distance_to(x);
      if (!(off <= 1e-8)) fail(path, fmt::format("point is off the manifold (distance {:.3g})", off));
      return x;
    };
    if (init->is_string()) {
      // Baker, Fearnhead, Fox & Nemeth 2019 (Algorithm 1) start the chain at the control variate's
      // centre θ̂: no run-in from a random point, whose large gradients also mislead an adaptive
      // preconditioner's warm-up (pSGLD's V, a diagonal scale). "mode" finds one for any estimator.
      if (*init != "centre" && *init != "mode")
        fail("/init", fmt::format("expected a point, a list of one point per chain, \"centre\" or \"mode\", got \"{}\"",
                                  printable(init->get<std::string>())));
      if (const auto& centre = c.target.gradient.centre) {
        c.init.assign(c.chains, on_manifold(*centre, "/init"));  // a mode already (or the given centre)
      } else if (*init == "centre") {
        fail("/init", fmt::format("\"centre\" starts the chains at the control variate's centre: it needs target.estimator "
                                  "\"control_variate\" (estimator is {}); use \"mode\", or give a point",
                                  name_of(c.target.gradient.estimator)));
      } else {
        c.init.assign(c.chains, detail::mode_of(c.target, c.manifold, dim));
        // The record keeps the point, on the reported scale as a given init is: no search again on resume.
        resolved_init = vector_json(c.target.target.reported(c.init.front()));
      }
    } else if (init->is_array() && !init->empty() && (*init)[0].is_array()) {
      if (init->size() != c.chains)
        fail("/init", fmt::format("expected one point per chain ({}), got {}", c.chains, init->size()));
      for (std::size_t i = 0; i < init->size(); ++i) {
        const std::string path = fmt::format("/init/{}", i);
        c.init.push_back(on_manifold(sampled_point(c.target.target, as_vector((*init)[i], path, dim), path), path));
      }
    } else {
      // A point on the reported scale (the glm target's sigma, not log sigma: run/reported_scale.hpp).
      const Eigen::VectorXd x = on_manifold(sampled_point(c.target.target, as_vector(*init, "/init", dim), "/init"), "/init");
      c.init.assign(c.chains, x);
    }
  }
  f.finish();
  c.resolved = {{"sampler", c.sampler.resolved}, {"manifold", c.manifold.resolved}, {"target", c.target.resolved},
                {"steps", c.steps}, {"burn_in", c.burn_in}, {"thin", c.thin}, {"chains", c.chains}, {"seed", c.seed}};
  if (c.log_density) c.resolved["log_density"] = true;
  if (c.log_likelihood) c.resolved["log_likelihood"] = true;
  if (c.retention.save_warmup) c.resolved["save_warmup"] = true;
  if (c.max_dimension != default_max_dimension) c.resolved["max_dimension"] = c.max_dimension;
  if (f.find("distributed")) c.resolved["distributed"] = {{"shards", c.shards}};
  if (c.checkpoint_every > 0) c.resolved["checkpoint_every"] = c.checkpoint_every;
  if (f.find("init")) c.resolved["init"] = resolved_init.is_null() ? j.at("init") : resolved_init;
  if (const json* t = f.find("tune"); t && !c.tune) c.resolved["tune"] = *t;  // a record's tuning, carried over
  return c;
}

}  // namespace sgmcmc::run
