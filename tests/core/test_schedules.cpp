// Schedules the driver applies (cSG-MCMC's exploration and sampling stages, the temperature T and its
// annealing schedule, the diagonal preconditioner estimated in burn-in): which steps keep draws, which steps inject noise,
// what the config's names resolve to, and what is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/schedule/temperature.hpp>
#include <sgmcmc/modules/splitting/sampler.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/samplers/psgld.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>

using namespace sgmcmc;
using run::json;
using Eigen::VectorXd;

namespace {

std::string error_of(const json& c) {
  try {
    run::run(c, {.threads = 1});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

json gaussian_run(json sampler, std::uint64_t steps) {
  return {{"sampler", std::move(sampler)},
          {"target", {{"name", "gaussian"}, {"mean", {0.0, 0.0}}, {"cov", 1.0}}},
          {"steps", steps}, {"chains", 2}, {"seed", 5}};
}

}  // namespace

static_assert(splitting::NoiseScaledState<splitting::PhaseState>);
static_assert(!splitting::NoiseScaledState<sgld::State>);

TEST_CASE("Retention: kept_by and step_keeping agree with counting the kept steps one by one") {
  // Catches: an off-by-one in the cycle's phase (step t is schedule index t − 1), exploration steps
  // counted as kept, a wrong closed form (the record's draw count is checked against kept_by on resume,
  // and the streaming driver's rounds end at step_keeping).
  for (std::uint64_t burn_in : {0u, 1u, 7u, 30u})
    for (std::uint64_t thin : {1u, 2u, 3u, 7u})
      for (std::uint64_t cycle : {0u, 1u, 5u, 12u})
        for (std::uint64_t explore : {0u, 1u, 4u, 11u}) {
          if (cycle > 0 && explore >= cycle) continue;
          const Retention keep{burn_in, thin, cycle, explore};
          CAPTURE(burn_in);
          CAPTURE(thin);
          CAPTURE(cycle);
          CAPTURE(explore);
          std::uint64_t kept = 0;
          for (std::uint64_t t = 0; t <= 400; ++t) {
            if (t > 0 && keep.keeps(t)) ++kept;
            REQUIRE(keep.kept_by(t) == kept);
            if (t > 0 && keep.keeps(t)) REQUIRE(keep.step_keeping(kept) == t);
          }
        }
  // Far beyond a loop: thin 5, E = 5 of L = 10 keeps the even multiples of 5 only.
  const Retention far{0, 5, 10, 5};
  CHECK(far.kept_by(10'000'000'000'000) == 1'000'000'000'000);
  CHECK(far.step_keeping(1'000'000'000'000) == 10'000'000'000'000);
}

TEST_CASE("cyclical step size: the first ⌈βL⌉ steps of each cycle explore, noise-free") {
  const auto s = schedule::StepSize::cyclical(0.2, 10, 0.25);
  CHECK(s.explore_steps() == 3);
  for (std::uint64_t t = 0; t < 30; ++t) {
    CAPTURE(t);
    CHECK(s.explores(t) == (t % 10 < 3));
    CHECK(s.noise_at(t) == (t % 10 < 3 ? 0.0 : 1.0));
  }
  CHECK(!schedule::StepSize::cyclical(0.2, 10).explores(0));
  CHECK(!schedule::StepSize::constant(0.2).explores(0));
  CHECK_THROWS(schedule::StepSize::cyclical(0.2, 4, 0.9).validate());  // ⌈3.6⌉ = 4: nothing left to sample
}

TEST_CASE("exploration steps are the sampler's noise-free step: SGD, RMSprop, SGD with momentum") {
  // Catches: noise injected while exploring (the step would depend on the seed), or the noise left off
  // in the sampling stage (it would not). The Gaussian's gradient is exact, so only the noise draws.
  const models::Gaussian target = models::Gaussian::isotropic(VectorXd::Zero(2), 1.0);
  const VectorXd x0 = (VectorXd(2) << 1.5, -0.5).finished();
  const auto cyclical = schedule::StepSize::cyclical(0.1, 4, 0.5);  // steps 0, 1 explore; 2, 3 sample
  auto two_seeds = [&](const auto& sampler, auto position) {
    random::Stream a(1, 0), b(2, 0);
    auto sa = sampler.init(x0, a), sb = sampler.init(x0, b);
    VectorXd after[2][4];
    for (std::uint64_t t = 0; t < 4; ++t) {
      sampler.step(sa, target, a, t);
      sampler.step(sb, target, b, t);
      after[0][t] = position(sa), after[1][t] = position(sb);
    }
    CHECK(after[0][0] == after[1][0]);
    CHECK(after[0][1] == after[1][1]);
    CHECK(after[0][2] != after[1][2]);
  };
  auto x = [](const auto& s) { return VectorXd(s.x); };
  SUBCASE("sgld: x − h∇U") {
    const sgld::Sampler<Euclidean> s{Euclidean(2), cyclical};
    two_seeds(s, x);
    random::Stream r(1, 0);
    auto st = s.init(x0, r);
    s.step(st, target, r, 0);
    CHECK((st.x - (x0 - 0.1 * x0)).norm() < 1e-15);
  }
  SUBCASE("psgld") { two_seeds(psgld::Sampler{2, cyclical}, x); }
  SUBCASE("sghmc (velocity drawn at init: both seeds start from the same v)") {
    const splitting::Sampler<sghmc::Dynamics<Euclidean>> s{{Euclidean(2), sghmc::Friction{1.0}}, splitting::aboba, cyclical};
    random::Stream a(1, 0), b(2, 0);
    auto sa = s.init(x0, a), sb = s.init(x0, b);
    sb.v = sa.v;
    for (std::uint64_t t = 0; t < 3; ++t) {
      s.step(sa, target, a, t);
      s.step(sb, target, b, t);
      if (t < 2) CHECK(sa.x == sb.x);
      else CHECK(sa.x != sb.x);
    }
  }
}

TEST_CASE("run config: cycles and explore resolve to the cycle length, and exploring steps keep no draw") {
  // Catches: L computed from something other than the run's steps, exploration draws written, a resume
  // for more steps that changes L (the record keeps L, not M).
  json c = gaussian_run({{"name", "sghmc"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycles", 4}, {"explore", 0.3}}}}, 1000);
  const json full = run::run(c, {.threads = 1});
  REQUIRE(full["status"] == "ok");
  const json& h = full["config"]["sampler"]["step_size"];
  CHECK(h["cycle"] == 250);
  CHECK(h["explore"] == 0.3);
  CHECK(full["chains"][0]["samples"].size() == 4 * (250 - 75));
  // Every kept draw's step size is one of the sampling stage's: at most a/2 (cos(0.3π) + 1).
  const double largest = 0.05 * (std::cos(0.3 * std::acos(-1.0)) + 1);
  const json& steps = full["chains"][0]["sample_stats"]["stepsize"];
  REQUIRE(steps.size() == 4 * (250 - 75));
  for (const auto& s : steps) CHECK(s.get<double>() <= largest + 1e-15);
  json half = c;
  half["steps"] = 400;
  const json resumed = run::resume(run::run(half, {.threads = 1}), 600, {.threads = 1});
  REQUIRE(resumed["status"] == "ok");
  CHECK(resumed["config"]["sampler"]["step_size"]["cycle"] == 100);  // the first run's L: ⌈400/4⌉
  CHECK(resumed["chains"][0]["samples"].size() == 10 * (100 - 30));

  c["sampler"]["step_size"]["cycles"] = 2000;
  CHECK(error_of(c).find("/sampler/step_size/cycles: 2000 cycles in a run of 1000 steps") != std::string::npos);
  c["sampler"] = {{"name", "hmc"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycles", 4}, {"explore", 0.3}}}};
  CHECK(error_of(c).find("/sampler/step_size/explore: 'hmc' has no noise-free exploration stage") != std::string::npos);
  c["sampler"] = {{"name", "sgld"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycle", 4}, {"explore", 0.9}}}};
  CHECK(error_of(c).find("/sampler/step_size/explore: 0.9 of a cycle of 4 steps leaves no step to sample") != std::string::npos);
  // No cycle at all (found by fuzz_config: "cycles": 0 divided by zero, undefined behaviour; "cycle": 0
  // blamed explore).
  c["sampler"] = {{"name", "sgld"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycles", 0}}}};
  CHECK(error_of(c).find("/sampler/step_size/cycles: expected an integer >= 1, got 0") != std::string::npos);
  c["sampler"] = {{"name", "sgld"}, {"step_size", {{"schedule", "cyclical"}, {"a", 0.1}, {"cycle", 0}}}};
  CHECK(error_of(c).find("/sampler/step_size/cycle: expected an integer >= 1, got 0") != std::string::npos);
}

TEST_CASE("run config: preconditioner none | diagonal (estimated during burn-in)") {
  json c = gaussian_run({{"name", "sgld"}, {"step_size", 0.05}, {"preconditioner", "diagonal"}}, 600);
  c["burn_in"] = 200;
  const json r = run::run(c, {.threads = 1});
  REQUIRE(r["status"] == "ok");
  CHECK(r["config"]["sampler"]["preconditioner"] == json{{"adapt_steps", 200}});
  CHECK(r["chains"][0]["state"]["sampler"]["collected"] == 100);
  c["sampler"]["preconditioner"] = "none";
  const json plain = run::run(c, {.threads = 1});
  CHECK(!plain["config"]["sampler"].contains("preconditioner"));
  c["burn_in"] = 0;
  c["sampler"]["preconditioner"] = "diagonal";
  CHECK(error_of(c).find("/sampler/preconditioner: the diagonal preconditioner is estimated during burn-in, and burn_in is 0") !=
        std::string::npos);
  c["sampler"]["preconditioner"] = "full";
  CHECK(error_of(c).find("/sampler/preconditioner: expected \"none\", \"diagonal\"") != std::string::npos);
}

TEST_CASE("run config: preconditioner dense | low_rank — recorded, the factor in the state, and every new field's error naming its path") {
  // Catches: "dense" not estimated over the burn-in (or recorded as diagonal, which a resume would run),
  // a factor not normalised to det L = 1, a given Cholesky factor or covariance not used as given, and
  // bad input accepted or blamed on the wrong field (a non-PD or non-triangular factor, wrong sizes,
  // rank > d, a warm-up too short for a d×d covariance).
  json c = gaussian_run({{"name", "sghmc"}, {"step_size", 0.05}, {"preconditioner", "dense"}}, 600);
  c["burn_in"] = 200;
  json r = run::run(c, {.threads = 1});
  REQUIRE(r["status"] == "ok");
  CHECK(r["config"]["sampler"]["preconditioner"] == json{{"kind", "dense"}, {"adapt_steps", 200}});
  const json& state = r["chains"][0]["state"]["sampler"];
  CHECK(state["kind"] == "dense");
  CHECK(state["collected"] == 100);
  const double l00 = state["factor"][0][0], l11 = state["factor"][1][1];
  CHECK(state["factor"][0][1] == 0.0);
  CHECK(std::abs(std::log(l00 * l11)) < 1e-12);  // det L = 1

  c["sampler"]["preconditioner"] = {{"kind", "low_rank"}, {"rank", 1}};
  r = run::run(c, {.threads = 1});
  REQUIRE(r["status"] == "ok");
  CHECK(r["config"]["sampler"]["preconditioner"] == json{{"kind", "low_rank"}, {"adapt_steps", 200}, {"rank", 1}});
  CHECK(r["chains"][1]["state"]["sampler"]["basis"].size() == 2);
  CHECK(r["chains"][1]["state"]["sampler"]["stretch"].size() == 1);

  const json lower = {{2.0, 0.0}, {0.5, 0.25}};
  c["sampler"]["preconditioner"] = {{"cholesky", lower}};
  r = run::run(c, {.threads = 1});
  REQUIRE(r["status"] == "ok");
  CHECK(r["config"]["sampler"]["preconditioner"] == json{{"kind", "dense"}, {"cholesky", lower}});
  CHECK(r["chains"][0]["state"]["sampler"]["factor"] == lower);
  c["sampler"]["preconditioner"] = {{"cov", {{4.0, 1.0}, {1.0, 0.3125}}}};  // = LLᵀ of the L above
  r = run::run(c, {.threads = 1});
  REQUIRE(r["status"] == "ok");
  CHECK(r["chains"][0]["state"]["sampler"]["factor"] == lower);

  const auto error_with = [&c](const json& pre) {
    c["sampler"]["preconditioner"] = pre;
    return error_of(c);
  };
  const auto refuses = [&](const json& pre, const std::string& message) {
    CAPTURE(pre.dump());
    const std::string e = error_with(pre);
    CAPTURE(e);
    CHECK(e.find(message) != std::string::npos);
  };
  refuses({{"cholesky", {{1.0, 0.0}, {0.5, -1.0}}}}, "/sampler/preconditioner/cholesky: expected a positive diagonal");
  refuses({{"cholesky", {{1.0, 0.2}, {0.0, 1.0}}}}, "/sampler/preconditioner/cholesky: expected a lower triangular matrix");
  refuses({{"cholesky", {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}}}, "/sampler/preconditioner/cholesky: expected a 2×2 matrix, got 3×3");
  refuses({{"cov", {{1.0, 2.0}, {2.0, 1.0}}}}, "/sampler/preconditioner/cov: expected a positive definite matrix");
  refuses({{"cov", {{1.0, 0.5}, {0.4, 1.0}}}}, "/sampler/preconditioner/cov: expected a symmetric matrix");
  refuses({{"cov", {{1.0, 0.0}, {0.0, 1.0}}}, {"adapt_steps", 10}}, "/sampler/preconditioner/adapt_steps: give either adapt_steps or cov");
  refuses({{"kind", "low_rank"}, {"rank", 3}}, "/sampler/preconditioner/rank: expected at most d = 2, got 3");
  refuses({{"kind", "low_rank"}}, "/sampler/preconditioner/rank: required for kind low_rank");
  refuses({{"kind", "low_rank"}, {"rank", 0}}, "/sampler/preconditioner/rank: expected an integer >= 1, got 0");
  refuses({{"kind", "dense"}, {"adapt_steps", 5}}, "/sampler/preconditioner/adapt_steps: a dense preconditioner estimates a d×d covariance (d = 2)");
  refuses({{"kind", "full"}}, "/sampler/preconditioner/kind: expected \"diagonal\", \"dense\" or \"low_rank\", got \"full\"");
  refuses({{"kind", "dense"}, {"scale", {1.0, 1.0}}}, "/sampler/preconditioner/scale: scale is for kind diagonal");
  refuses({{"rank", 1}}, "/sampler/preconditioner/rank: rank is for kind low_rank");
  c["burn_in"] = 5;
  refuses("dense", "/sampler/preconditioner: the dense preconditioner is estimated during burn-in, and burn_in is 5 (at least 6");
  // A size the config sets is bounded before it is allocated: at d = 20000 each d×d matrix would be 3 GiB
  // per chain. Catches a dense or low-rank preconditioner that allocates whatever d asks.
  c["burn_in"] = 100000;
  c["target"] = {{"name", "gaussian"}};
  c["manifold"] = {{"name", "euclidean"}, {"dim", 20000}};
  refuses("dense", "/sampler/preconditioner: a dense preconditioner keeps d×d matrices (d = 20000: 2.98 GiB each, per chain)");
  refuses({{"kind", "low_rank"}, {"rank", 2}}, "/sampler/preconditioner/kind: a low_rank preconditioner keeps d×d matrices (d = 20000");
}

TEST_CASE("temperature: the sampler sees U/T; recorded; refused where a block would stay at T = 1") {
  // Catches: the gradient or the value left unscaled (the Metropolis test would sample T = 1), the
  // field dropped from the record (a resume would run at T = 1).
  json c = gaussian_run({{"name", "sgld"}, {"step_size", 0.05}, {"temperature", 4.0}}, 50);
  json one = c;
  one["sampler"].erase("temperature");
  const json hot = run::run(c, {.threads = 1}), cold = run::run(one, {.threads = 1});
  CHECK(hot["config"]["sampler"]["temperature"] == 4.0);
  CHECK(!cold["config"]["sampler"].contains("temperature"));
  CHECK(hot["chains"][0]["samples"] != cold["chains"][0]["samples"]);

  run::TargetChoice t;
  t.target = run::AnyTarget(models::Gaussian::isotropic(VectorXd::Zero(2), 1.0));
  const run::AnyTarget tempered = t.target.tempered(4.0);
  const VectorXd x = (VectorXd(2) << 2.0, -1.0).finished();
  VectorXd g, g4;
  random::Stream r(1, 0);
  t.target.gradient(x, g, r);
  tempered.gradient(x, g4, r);
  CHECK(g4 == g / 4.0);
  CHECK(tempered.value(x) == t.target.value(x) / 4.0);
  CHECK(tempered.temperature() == 4.0);

  c["sampler"]["temperature"] = 0.0;
  CHECK(error_of(c).find("/sampler/temperature") != std::string::npos);
  json d = {{"sampler", {{"name", "sggmc"}, {"step_size", 0.01}, {"temperature", 2.0}}},
            {"manifold", {{"name", "simplex"}, {"n", 3}}},
            {"target", {{"name", "dirichlet"}, {"alpha", {1.0, 1.0, 1.0}}}}};
  CHECK(error_of(d).find("/sampler/temperature: target 'dirichlet' gives samplers its concentrations") != std::string::npos);
}

TEST_CASE("temperature schedule: geometric annealing T_t = T0 (T1/T0)^(t/K), applied before each step, resumed mid-way") {
  // Catches: a schedule off by a step or keyed by the chunk's own step count (a resume would restart
  // the annealing: the resumed draws would differ from the uninterrupted run's), the gradient or value
  // not scaled by the step's 1/T_t, the final temperature not held after K steps, the record without
  // the resolved schedule (K defaults to the burn-in), bad fields accepted.
  const auto anneal = schedule::Temperature::geometric(8.0, 0.5, 100);
  CHECK(anneal.at(0) == 8.0);
  CHECK(anneal.at(50) == doctest::Approx(2.0).epsilon(1e-14));  // √(8 · 0.5)
  CHECK(anneal.at(100) == 0.5);
  CHECK(anneal.at(1000) == 0.5);
  for (std::uint64_t t = 1; t < 100; ++t) CHECK(anneal.at(t) < anneal.at(t - 1));
  CHECK(!schedule::Temperature::constant(3.0).varies());

  run::TargetChoice t;
  t.target = run::AnyTarget(models::Gaussian::isotropic(VectorXd::Zero(2), 1.0));
  run::AnyTarget annealed = t.target.tempered(anneal);
  const VectorXd x = (VectorXd(2) << 2.0, -1.0).finished();
  VectorXd g, gt;
  random::Stream r(1, 0);
  t.target.gradient(x, g, r);
  CHECK(annealed.temperature() == 0.5);  // between steps, and for analyses: the final temperature
  for (std::uint64_t step : {0u, 37u, 99u, 100u, 5000u}) {
    CAPTURE(step);
    annealed.at_step(step);
    annealed.gradient(x, gt, r);
    CHECK(gt == g * (1.0 / anneal.at(step)));
    CHECK(annealed.value(x) == (1.0 / anneal.at(step)) * t.target.value(x));
  }
  CHECK(t.target.tempered(2.0).tempered(anneal).temperature_schedule().from == 16.0);  // temperatures multiply

  json c = gaussian_run({{"name", "sgld"}, {"step_size", 0.05}, {"temperature", {{"schedule", "geometric"}, {"from", 10.0}}}}, 300);
  c["burn_in"] = 120;
  const json whole = run::run(c, {.threads = 1});
  CHECK(whole["config"]["sampler"]["temperature"] == json({{"schedule", "geometric"}, {"from", 10.0}, {"to", 1.0}, {"steps", 120}}));
  json part = c;
  part["steps"] = 60;  // stops in the middle of the annealing
  const json resumed = run::resume(run::run(part, {.threads = 1}), 240, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == whole["chains"][ch]["samples"]);
  json constant = c;
  constant["sampler"]["temperature"] = 1.0;
  CHECK(run::run(constant, {.threads = 1})["chains"][0]["samples"] != whole["chains"][0]["samples"]);

  c["sampler"]["temperature"] = {{"schedule", "linear"}, {"from", 10.0}};
  CHECK(error_of(c).find("/sampler/temperature/schedule: expected \"geometric\" (or a number: a constant T), got \"linear\"") !=
        std::string::npos);
  c["sampler"]["temperature"] = {{"schedule", "geometric"}, {"from", -1.0}};
  CHECK(error_of(c).find("/sampler/temperature/from: expected a positive number") != std::string::npos);
  c["sampler"]["temperature"] = {{"schedule", "geometric"}, {"from", 10.0}, {"steps", 0}};
  CHECK(error_of(c).find("/sampler/temperature/steps") != std::string::npos);
  c["sampler"]["temperature"] = {{"schedule", "geometric"}, {"from", 10.0}, {"tau", 3}};
  CHECK(error_of(c).find("/sampler/temperature/tau") != std::string::npos);
  c["sampler"]["temperature"] = {{"schedule", "geometric"}, {"from", 10.0}};
  c["burn_in"] = 0;
  CHECK(error_of(c).find("/sampler/temperature: an annealing schedule runs over the burn-in by default, and burn_in is 0") !=
        std::string::npos);
}

TEST_CASE("a plain number is a constant step size (issue #39: it gave \"cannot convert 'double' to 'StepSize::Kind'\")") {
  static_assert(std::is_convertible_v<double, schedule::StepSize>);
  const sgld::Sampler<Euclidean> sampler{Euclidean(2), 0.01};
  CHECK(sampler.step_size.kind == schedule::StepSize::Kind::constant);
  CHECK(sampler.step_size.at(7) == 0.01);
  schedule::StepSize h = schedule::StepSize::polynomial(0.1, 1.0, 0.55);
  h = 0.05;
  CHECK(h.kind == schedule::StepSize::Kind::constant);
  CHECK(h.at(100) == 0.05);
}
