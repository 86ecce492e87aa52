#pragma once
// The `sampler` section of a run config (DESIGN.md §5.1), validated once into a plain spec.
#include <string>

#include <fmt/format.h>

#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace sgmcmc::run {

struct SamplerSpec {
  std::string name;  ///< canonical: sgld, sghmc, sgnht, naive_sghmc, hmc
  schedule::StepSize step_size;
  sghmc::Friction friction{1.0};
  double noise_estimate = 0.0;
  bool empirical_fisher = false;  ///< noise_estimate: "empirical_fisher"
  splitting::StageList scheme = splitting::aboba;
  double diffusion = 1.0;
  int leapfrog_steps = 10;
  bool mh = true;
  // Riemannian samplers and the generic recipe (parsed here; the metric needs the dimension, so it is
  // kept as JSON and parsed with the manifold in config.hpp).
  json metric;
  recipe::Scheme recipe_scheme = recipe::Scheme::euler;
  recipe::NoisePolicy noise_policy = recipe::NoisePolicy::error;
  recipe::Augment augment = recipe::Augment::none;
  json D, Q, noise_matrix;
  double thermostat_a = 1.0;
  json resolved;  ///< the section with every default filled in, for the run record
};

inline std::string canonical_sampler_name(const std::string& name) {
  if (name == "sggmc") return "sghmc";
  if (name == "gsgnht") return "sgnht";
  if (name == "gmc") return "hmc";
  return name;
}

inline SamplerSpec parse_sampler(const json& j, const std::string& path = "/sampler") {
  Fields f(j, path);
  SamplerSpec s;
  const std::string given = f.string("name");
  s.name = canonical_sampler_name(given);
  json out = {{"name", given}};
  auto scheme = [&] {
    const std::string name = f.string("scheme", "aboba");
    try {
      s.scheme = splitting::scheme_by_name(name);
    } catch (const Error& e) {
      fail(f.at("scheme"), e.what());
    }
    out["scheme"] = name;
  };
  auto noise = [&] {
    const json* v = f.find("noise_estimate");
    if (v && v->is_string()) {
      if (*v != "empirical_fisher" || s.name == "sgld")
        fail(f.at("noise_estimate"), fmt::format("expected a number >= 0{}, got {}",
                                                 s.name == "sgld" ? "" : " or \"empirical_fisher\"", describe(*v)));
      s.empirical_fisher = true;
      out["noise_estimate"] = "empirical_fisher";
      return;
    }
    s.noise_estimate = v ? as_number(*v, f.at("noise_estimate"), Range::non_negative) : 0.0;
    out["noise_estimate"] = s.noise_estimate;
  };
  auto step = [&] {
    s.step_size = parse_step_size(f.get("step_size"), f.at("step_size"));
    out["step_size"] = step_size_json(s.step_size);
  };
  if (s.name == "sgld") {
    step();
    noise();
  } else if (s.name == "sghmc") {
    if (f.has("learning_rate") || f.has("momentum_decay")) {
      // The SGHMC paper's SGD-with-momentum parametrisation (Eq. 15): (η, α, β̂) -> (h, C, V̂).
      if (f.has("step_size") || f.has("friction") || f.has("noise_estimate"))
        fail(f.at("learning_rate"), "give either learning_rate/momentum_decay/beta_hat or step_size/friction/noise_estimate, not both");
      const double eta = f.number("learning_rate", Range::positive);
      const double alpha = f.number("momentum_decay", Range::unit_open);
      const double beta = f.number("beta_hat", 0.0, Range::non_negative);
      try {
        const auto p = sghmc::from_momentum(eta, alpha, beta);
        s.step_size = schedule::StepSize::constant(p.step_size);
        s.friction = sghmc::Friction(p.friction);
        s.noise_estimate = p.noise_estimate;
      } catch (const Error& e) {
        fail(path, e.what());
      }
      out["learning_rate"] = eta;
      out["momentum_decay"] = alpha;
      out["beta_hat"] = beta;
    } else {
      step();
      noise();
    }
    if (const json* c = f.find("friction")) {
      if (c->is_array()) {
        if (s.empirical_fisher) fail(f.at("friction"), "empirical_fisher needs a scalar friction");
        const Eigen::VectorXd d = as_vector(*c, f.at("friction"));
        if (d.size() == 0 || !(d.array() > 0).all()) fail(f.at("friction"), "expected positive diagonal entries");
        s.friction = sghmc::Friction(d);
        out["friction"] = *c;
      } else {
        s.friction = sghmc::Friction(as_number(*c, f.at("friction"), Range::positive));
        out["friction"] = s.friction.scalar;
      }
    } else if (!out.contains("learning_rate")) {
      out["friction"] = 1.0;
    }
    scheme();
  } else if (s.name == "sgnht") {
    step();
    noise();
    s.diffusion = f.number("diffusion", 1.0, Range::positive);
    out["diffusion"] = s.diffusion;
    scheme();
  } else if (s.name == "naive_sghmc") {
    step();
    s.leapfrog_steps = static_cast<int>(f.count("leapfrog_steps", 50, 1));
    s.mh = f.boolean("mh", false);
    out["leapfrog_steps"] = s.leapfrog_steps;
    out["mh"] = s.mh;
  } else if (s.name == "scir") {
    step();
  } else if (s.name == "sgrld" || s.name == "sgrhmc" || s.name == "naive_sgrhmc" || s.name == "recipe") {
    step();
    const std::string policy = f.string("noise_policy", "error");
    if (policy == "clip") s.noise_policy = recipe::NoisePolicy::clip;
    else if (policy != "error") fail(f.at("noise_policy"), fmt::format("expected \"error\" or \"clip\", got \"{}\"", policy));
    out["noise_policy"] = policy;
    if (s.name != "sgrld") {
      const std::string sch = f.string("scheme", "euler");
      if (sch == "semi_implicit") s.recipe_scheme = recipe::Scheme::semi_implicit;
      else if (sch != "euler") fail(f.at("scheme"), fmt::format("expected \"euler\" or \"semi_implicit\", got \"{}\"", sch));
      out["scheme"] = sch;
    }
    if (s.name == "recipe") {
      const std::string aug = f.string("augment", "none");
      if (aug == "momentum") s.augment = recipe::Augment::momentum;
      else if (aug == "thermostat") s.augment = recipe::Augment::thermostat;
      else if (aug != "none") fail(f.at("augment"), fmt::format("expected none, momentum or thermostat, got \"{}\"", aug));
      out["augment"] = aug;
      s.D = f.get("D");
      s.Q = f.get("Q");
      out["D"] = s.D;
      out["Q"] = s.Q;
      if (const json* b = f.find("noise_estimate")) s.noise_matrix = *b, out["noise_estimate"] = *b;
      s.thermostat_a = f.number("thermostat_a", 1.0, Range::positive);
      out["thermostat_a"] = s.thermostat_a;
    } else {
      noise();
      s.metric = f.has("metric") ? f.get("metric") : json{{"name", "level_set"}};
    }
  } else if (s.name == "hmc") {
    step();
    s.leapfrog_steps = static_cast<int>(f.count("leapfrog_steps", 10, 1));
    out["leapfrog_steps"] = s.leapfrog_steps;
  } else {
    fail(f.at("name"), fmt::format("unknown sampler '{}' (known: sgld, sghmc, sggmc, sgnht, gsgnht, naive_sghmc, hmc, gmc, scir, sgrld, sgrhmc, naive_sgrhmc, recipe)", given));
  }
  f.finish();
  s.resolved = out;
  return s;
}

}  // namespace sgmcmc::run
