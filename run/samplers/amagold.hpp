#pragma once
// Registry entry for AMAGOLD (Zhang, Cooper & De Sa 2020; samplers/amagold.hpp): SGHMC with an
// amortised Metropolis–Hastings test every `mh_every` steps, on any manifold.
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/amagold.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<amagold::State> {
  static json write(const amagold::State& s) { return write_metropolis_state(s); }
  static void read(amagold::State& s, const json& j, const std::string& path) {
    read_metropolis_state(s, j, path);
    s.potential_at_x = std::numeric_limits<double>::quiet_NaN();  // recomputed from x: the same bits
  }
};

/// {"name": "amagold", "step_size": h, "friction": β (default 1), "mh_every": T (default 10)}
inline SamplerEntry amagold_sampler() {
  return {{"amagold"}, "SGHMC with an amortised Metropolis–Hastings test every mh_every steps (AMAGOLD): exact at any step size",
          [](Fields& f, const ManifoldChoice&, const TargetChoice& target, const RunLength& run) {
            refuse_singular_dirichlet(f, target);
            json out = {{"name", f.string("name")}};
            if (!target.target.has_value())
              fail(f.at("name"), fmt::format("amagold's Metropolis–Hastings test needs the target's exact value; target '{}' has none", target.kind));
            // The test compares the trajectory with its reverse, which meets the same gradients in reverse
            // order: as likely only when successive gradients are drawn independently of each other and
            // of the chain (batches with replacement, added grad_noise, a fixed control variate).
            if (!target.gradient.independent_batches)
              fail(f.at("name"), "amagold's Metropolis–Hastings test is exact only when successive stochastic gradients are "
                                 "independent; minibatches drawn without replacement are not (/target/with_replacement is false): "
                                 "set \"with_replacement\": true in the target");
            if (target.gradient.depends_on_past())
              fail(f.at("name"), fmt::format("amagold's Metropolis–Hastings test needs gradients independent of the chain's past; the {} "
                                             "estimator's depend on it (use minibatch or control_variate)", name_of(target.gradient.estimator)));
            const auto step = read_step_size(f, out, run);
            const double friction = f.number("friction", 1.0, Range::non_negative);
            const auto mh_every = f.count("mh_every", 10, 1);
            if (mh_every > 1'000'000) fail(f.at("mh_every"), fmt::format("expected at most 1000000, got {}", mh_every));
            out["friction"] = friction;
            out["mh_every"] = mh_every;
            return SamplerChoice{"amagold", out, [=](const AnyManifold& m, const AnyTarget& tg, Eigen::VectorXd x0, random::Stream rng) {
                                   return chain_of(amagold::Sampler<AnyManifold>{m, step, friction, static_cast<int>(mh_every)}, tg, std::move(x0), rng);
                                 }, step};
          },
          TuningFacts{TuningFacts::Method::dual_averaging, true, false}};
}

}  // namespace sgmcmc::run
