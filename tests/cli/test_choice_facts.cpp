// Sampler entries, the config parser and the Stein report ask a target how its gradient is formed
// (run/registry.hpp, GradientFacts) and a sampler how it balances noise and steps (SamplerChoice's
// step_size and noise_balance), never the other's JSON. Catches: an entry that reads
// `with_replacement` or `estimator` from the target's section (a user's target, whose section has
// neither, would silently get a correction that makes its posterior too narrow), a fact a shipped
// target forgets to state, a diagnostic that reads a sampler's record back.
#include <doctest/doctest.h>

#include <string>

#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>

namespace test_choice_facts {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::json;

namespace {

using Estimator = run::GradientFacts::Estimator;

// A user's target: a unit Gaussian whose facts are set by hand, as a user's minibatch target states
// them. Its section has no `with_replacement` or `estimator` for an entry to find.
run::TargetEntry user_target(std::string name, run::GradientFacts facts) {
  return {{name}, "a unit Gaussian with a user's gradient facts", [name, facts](run::Fields& f, const run::ManifoldChoice& m) {
            run::TargetChoice c = run::builtin_registry().target("gaussian", f.at("name")).parse(f, m);
            c.kind = name;
            c.gradient = facts;
            return c;
          }};
}

run::Registry registry() {
  run::Registry r = run::builtin_registry();
  r.add(user_target("my_epochs", {.estimator = Estimator::minibatch, .independent_batches = false}))
      .add(user_target("my_svrg", {.estimator = Estimator::svrg}))
      .add(user_target("my_independent", {.estimator = Estimator::minibatch}));
  return r;
}

json config(json target, json sampler, json manifold = {{"name", "euclidean"}, {"dim", 2}}) {
  return {{"manifold", std::move(manifold)}, {"target", std::move(target)}, {"sampler", std::move(sampler)}, {"steps", 100},
          {"burn_in", 10}};
}

std::string error_of(const json& c) {
  try {
    run::parse_config(c, registry(), {});
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const json torus = {{"name", "product"}, {"factors", {{{"name", "sphere"}, {"n", 2}}, {{"name", "sphere"}, {"n", 2}}}}};

}  // namespace

TEST_CASE("sampler entries refuse noise corrections by the target's facts, whatever its section holds") {
  const json epochs = {{"name", "my_epochs"}, {"cov", 1}};
  // Dependent batches: a noise estimate would narrow the posterior; AMAGOLD's test would not be exact.
  CHECK(has(error_of(config(epochs, {{"name", "sgld"}, {"step_size", 0.01}, {"noise_estimate", 0.5}})), "without replacement"));
  CHECK(has(error_of(config(epochs, {{"name", "amagold"}, {"step_size", 0.01}})), "without replacement"));
  CHECK(error_of(config(epochs, {{"name", "sgld"}, {"step_size", 0.01}})) == "");
  // The same target with independent batches takes both.
  const json independent = {{"name", "my_independent"}, {"cov", 1}};
  CHECK(error_of(config(independent, {{"name", "sgld"}, {"step_size", 0.01}, {"noise_estimate", 0.5}})) == "");
  CHECK(error_of(config(independent, {{"name", "amagold"}, {"step_size", 0.01}})) == "");
  // An estimator whose noise depends on the chain's past, and one that is not the plain minibatch.
  const json svrg = {{"name", "my_svrg"}, {"cov", 1}};
  CHECK(has(error_of(config(svrg, {{"name", "amagold"}, {"step_size", 0.01}})), "the svrg estimator's depend on it"));
  CHECK(has(error_of(config(svrg, {{"name", "sghmc"}, {"step_size", 0.01}, {"noise_estimate", "empirical_fisher"}})),
            "uses the svrg estimator"));
}

TEST_CASE("shipped targets state their facts") {
  const json gauss = {{"name", "gaussian"}, {"cov", 1}, {"grad_noise", 0.5}};
  const run::RunConfig analytic = run::parse_config(config(gauss, {{"name", "sgld"}, {"step_size", 0.01}}), registry(), {});
  CHECK(analytic.target.gradient.estimator == Estimator::exact);
  CHECK(analytic.target.gradient.independent_batches);
  CHECK(analytic.target.gradient.added_noise_sd == 0.5);
  CHECK(!analytic.target.gradient.centre);

  for (const bool replace : {false, true}) {
    const json vmf = {{"name", "vmf_mixture_posterior"}, {"n_data", 40}, {"with_replacement", replace}, {"estimator", "svrg"}};
    const run::RunConfig c = run::parse_config(config(vmf, {{"name", "sgld"}, {"step_size", 0.01}}, torus), registry(), {});
    CHECK(c.target.gradient.estimator == Estimator::svrg);
    CHECK(c.target.gradient.depends_on_past());
    CHECK(c.target.gradient.independent_batches == replace);
  }
  // saga draws with replacement whatever the target's default (its batches must not depend on its
  // table: run/targets/estimator.hpp), so its batches are independent, and an explicit false is refused.
  const json saga = {{"name", "vmf_mixture_posterior"}, {"n_data", 40}, {"estimator", "saga"}};
  const run::RunConfig sg = run::parse_config(config(saga, {{"name", "sgld"}, {"step_size", 0.01}}, torus), registry(), {});
  CHECK(sg.target.gradient.estimator == Estimator::saga);
  CHECK(sg.target.gradient.depends_on_past());
  CHECK(sg.target.gradient.independent_batches);
  CHECK(sg.resolved["target"]["with_replacement"] == true);
  json saga_without = saga;
  saga_without["with_replacement"] = false;
  CHECK(has(error_of(config(saga_without, {{"name", "sgld"}, {"step_size", 0.01}}, torus)),
            "/target/with_replacement: the saga estimator draws its batches with replacement"));
  const json centred = {{"name", "vmf_mixture_posterior"}, {"n_data", 40}, {"estimator", "control_variate"},
                        {"centre", {1, 0, 0, 1}}};
  const run::RunConfig cv = run::parse_config(config(centred, {{"name", "sgld"}, {"step_size", 0.01}}, torus), registry(), {});
  REQUIRE(cv.target.gradient.centre);
  CHECK(cv.target.gradient.centre->isApprox(Eigen::Vector4d(1, 0, 0, 1)));
  CHECK(!cv.target.gradient.depends_on_past());
}

TEST_CASE("samplers state their step size and noise balance; the run's retention follows the schedule") {
  const json gauss = {{"name", "gaussian"}, {"cov", 1}};
  const auto parse = [&](json sampler) { return run::parse_config(config(gauss, std::move(sampler)), registry(), {}); };
  const run::RunConfig sgld = parse({{"name", "sgld"}, {"step_size", 0.01}, {"noise_estimate", 0.25}});
  REQUIRE(sgld.sampler.noise_balance);
  CHECK(sgld.sampler.noise_balance->step_size == 0.01);
  CHECK(sgld.sampler.noise_balance->friction == 1.0);
  CHECK(sgld.sampler.noise_balance->noise_estimate == 0.25);
  // A preconditioner rescales the injected noise: no balance to state.
  CHECK(!parse({{"name", "sgld"}, {"step_size", 0.01}, {"preconditioner", {{"scale", {1, 2}}}}}).sampler.noise_balance);
  // SGHMC's momentum form states the (h, C, V̂) it maps to (the SGHMC paper, Eq. 15: h = √η, C = α/√η).
  const run::RunConfig momentum = parse({{"name", "sghmc"}, {"learning_rate", 0.01}, {"momentum_decay", 0.1}});
  REQUIRE(momentum.sampler.noise_balance);
  CHECK(momentum.sampler.noise_balance->step_size == doctest::Approx(0.1));
  CHECK(momentum.sampler.noise_balance->friction == doctest::Approx(1.0));
  CHECK(!parse({{"name", "sghmc"}, {"step_size", 0.01}, {"friction", {1, 2}}}).sampler.noise_balance);
  CHECK(!parse({{"name", "sgnht"}, {"step_size", 0.01}}).sampler.noise_balance);

  const run::RunConfig cyclical = parse({{"name", "sgld"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycles", 4}, {"explore", 0.5}}}});
  CHECK(cyclical.sampler.step_size.kind == schedule::StepSize::Kind::cyclical);
  CHECK(cyclical.sampler.step_size.cycle == 25);
  CHECK(cyclical.retention.cycle == 25);
  CHECK(cyclical.retention.explore_steps == cyclical.sampler.step_size.explore_steps());
  CHECK(!cyclical.sampler.noise_balance);
}

TEST_CASE("SGRLD on the simplex refuses the fields its expanded mean would ignore") {
  const json simplex = {{"name", "simplex"}, {"n", 3}};
  const json dirichlet = {{"name", "dirichlet"}, {"alpha", {1, 2, 3}}};
  const auto error = [&](json sampler) { return error_of(config(dirichlet, std::move(sampler), simplex)); };
  CHECK(error({{"name", "sgrld"}, {"step_size", 0.01}}) == "");
  // What records written before the check hold: the values that mean "none".
  CHECK(error({{"name", "sgrld"}, {"step_size", 0.01}, {"noise_estimate", 0.0}, {"noise_policy", "error"}}) == "");
  CHECK(has(error({{"name", "sgrld"}, {"step_size", 0.01}, {"noise_estimate", 0.5}}), "/sampler/noise_estimate"));
  CHECK(has(error({{"name", "sgrld"}, {"step_size", 0.01}, {"noise_policy", "clip"}}), "/sampler/noise_policy"));
  CHECK(has(error({{"name", "sgrld"}, {"step_size", 0.01}, {"metric", {{"name", "level_set"}}}}), "/sampler/metric"));
}

}  // namespace test_choice_facts
