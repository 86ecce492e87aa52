#pragma once
// Registry entry for SGHMC (Chen, Fox & Guestrin 2014) — SGGMC on a geodesic manifold (Liu, Zhu & Song
// 2016) — (samplers/sghmc.hpp). Also the SGD-with-momentum parametrisation of the SGHMC paper (Eq. 15):
// learning_rate η, momentum_decay α, beta_hat β̂ → (h, C, V̂).
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/run/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

namespace sgmcmc::run {

/// {"name": "sghmc" | "sggmc", "step_size": h, "friction": C (a number or a diagonal), "noise_estimate": V̂
///  | "empirical_fisher", "scheme": aboba | baoab | obabo | euler (the seed papers' letters) | lm_baoab
///  (Leimkuhler & Matthews's BAOAB)}, or learning_rate/momentum_decay/beta_hat.
inline SamplerEntry sghmc_sampler() {
  return {{"sghmc", "sggmc"}, "stochastic gradient HMC (SGGMC on a manifold)",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) {
            refuse_singular_dirichlet(f, target);
            json out = {{"name", f.string("name")}};
            schedule::StepSize step;
            sghmc::Friction friction{1.0};
            NoiseEstimate noise;
            if (f.has("learning_rate") || f.has("momentum_decay")) {
              if (f.has("step_size") || f.has("friction") || f.has("noise_estimate"))
                fail(f.at("learning_rate"), "give either learning_rate/momentum_decay/beta_hat or step_size/friction/noise_estimate, not both");
              const double eta = f.number("learning_rate", Range::positive);
              const double alpha = f.number("momentum_decay", Range::unit_open);
              const double beta = f.number("beta_hat", 0.0, Range::non_negative);
              try {
                const auto p = sghmc::from_momentum(eta, alpha, beta);
                step = schedule::StepSize::constant(p.step_size);
                friction = sghmc::Friction(p.friction);
                noise.value = p.noise_estimate;
              } catch (const Error& e) {
                fail(f.path(), e.what());
              }
              require_independent_batches(f.at("beta_hat"), target, noise.value, false);
              out.update({{"learning_rate", eta}, {"momentum_decay", alpha}, {"beta_hat", beta}});
            } else {
              step = read_step_size(f, out, run, Exploration::supported);
              noise = read_noise_estimate(f, out, target, true);
              if (const json* c = f.find("friction")) {
                if (c->is_array()) {
                  if (noise.empirical_fisher) fail(f.at("friction"), "empirical_fisher needs a scalar friction");
                  const Eigen::VectorXd d = as_vector(*c, f.at("friction"));
                  if (d.size() == 0 || !(d.array() > 0).all()) fail(f.at("friction"), "expected positive diagonal entries");
                  friction = sghmc::Friction(d);
                  out["friction"] = *c;
                } else {
                  friction = sghmc::Friction(as_number(*c, f.at("friction"), Range::positive));
                  out["friction"] = friction.scalar;
                }
              } else {
                out["friction"] = 1.0;
              }
            }
            const auto scheme = read_scheme(f, out);
            if (scheme.leimkuhler_matthews() && noise.empirical_fisher)
              fail(f.at("noise_estimate"), "empirical_fisher is not available with scheme lm_baoab (Leimkuhler & Matthews's BAOAB): "
                                           "give a number, or a scheme in the seed papers' letters");
            const auto pre = read_precondition(f, out, manifold, "sghmc", run);
            if (pre.enabled && noise.empirical_fisher)
              fail(f.at("preconditioner"), "empirical_fisher estimates the noise of the unscaled gradient: give a number with a preconditioner");
            SamplerChoice c{"sghmc", out, [=](const AnyManifold& m, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                              const sghmc::Sampler<AnyManifold> s{{m, friction, noise.value, noise.empirical_fisher}, scheme, step};
                              return chain_preconditioned(pre, s, t, std::move(x0), rng);
                            }, step};
            // The noise balance's excess temperature h(V̄ − V̂)/(2C) is the seed O's (one kick of h per step);
            // lm_baoab's two half kicks and exact OU balance otherwise (docs/math.md#leimkuhler-matthews-baoab).
            if (step.kind == schedule::StepSize::Kind::constant && !friction.is_diagonal() && !pre.enabled && !noise.empirical_fisher &&
                !scheme.leimkuhler_matthews())
              c.noise_balance = NoiseBalance{step.a, friction.scalar, noise.value};
            return c;
          },
          TuningFacts{TuningFacts::Method::stein, true, true}};
}

}  // namespace sgmcmc::run
