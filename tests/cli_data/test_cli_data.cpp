// The `logistic` target in run configs (docs/config.md), driven through sgmcmc::run::run / resume as
// the CLI does: a CSV written by the test, defaults resolved, resume bit-for-bit (the same batches),
// and errors naming the JSON path and the file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/run/record_schema.hpp>
#include <sgmcmc/run/runner.hpp>

namespace test_cli_data {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::json;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(SGMCMC_BINARY_DIR) / "tests" / "cli_data_scratch";
  fs::create_directories(dir);
  return dir / name;
}

// Synthetic logistic data (intercept + 2 features) as CSV with a header row; returns the path.
std::string write_csv(const std::string& name, std::size_t n) {
  const auto s = data::synthetic_logistic(n, 3, 4);
  const fs::path p = scratch(name);
  std::ofstream out(p);
  out << "intercept,x1,x2,label\n";
  for (Eigen::Index i = 0; i < s.data.x.cols(); ++i)
    out << fmt::format("{},{},{},{}\n", s.data.x(0, i), s.data.x(1, i), s.data.x(2, i), s.data.y[i]);
  return p.string();
}

json config(const std::string& path) {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}, {"friction", 20.0}}},
          {"target", {{"name", "logistic"}, {"data", path}, {"batch_size", 50}}},
          {"steps", 4000}, {"burn_in", 1000}, {"thin", 10}, {"chains", 2}, {"seed", 3}};
}

std::string error_of(const json& c) {
  try {
    run::run(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("logistic target: runs from a CSV, fills in defaults, and resumes to the same draws") {
  // Catches: the manifold's dimension not taken from the CSV, defaults missing from the record, a
  // resume that draws different batches (its draws would differ from the uninterrupted run's).
  const std::string path = write_csv("lr500.csv", 500);
  const json full = run::run(config(path), {.threads = 1});
  REQUIRE(full["status"] == "ok");
  const json& t = full["config"]["target"];
  CHECK(t["prior_sd"] == 1.0);
  CHECK(t["batch_size"] == 50);
  CHECK(t["with_replacement"] == false);
  CHECK(full["config"]["manifold"]["dim"] == 3);
  CHECK(full["chains"][0]["samples"].size() == 300);

  // The posterior mean is near the coefficients that generated the data (N = 500: sd ≈ 0.1–0.2).
  const auto truth = data::synthetic_logistic(500, 3, 4).theta;
  for (int k = 0; k < 3; ++k) {
    double m = 0;
    for (const auto& row : full["chains"][0]["samples"]) m += row[static_cast<std::size_t>(k)].get<double>() / 300.0;
    CHECK(std::abs(m - truth[k]) < 0.8);
  }

  json half_config = config(path);
  half_config["steps"] = 2500;
  const json half = run::run(half_config, {.threads = 1});
  const json resumed = run::resume(half, 1500, {.threads = 1});
  CHECK(resumed["chains"][0]["samples"] == full["chains"][0]["samples"]);
  CHECK(resumed["chains"][1]["samples"] == full["chains"][1]["samples"]);
}

TEST_CASE("logistic target: bad data and fields are errors naming the field and the file") {
  // Catches: a missing file found only when sampling starts, silent truncation of a ragged CSV.
  const std::string path = write_csv("lr50.csv", 50);
  json c = config(scratch("absent.csv").string());
  std::string e = error_of(c);
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("absent.csv") != std::string::npos);

  c = config(path);
  c["target"]["batch_size"] = 51;
  CHECK(error_of(c).find("/target/batch_size: expected at most the 50 examples") != std::string::npos);

  c = config(path);
  c["manifold"] = {{"name", "euclidean"}, {"dim", 4}};
  CHECK(error_of(c).find("has 3 feature columns but the manifold has 4 coordinates") != std::string::npos);

  c = config(path);
  c["target"]["prior_sd"] = -1;
  CHECK(error_of(c).find("/target/prior_sd: expected a positive number") != std::string::npos);

  std::ofstream(scratch("labels.csv")) << "1,2,0\n3,4,0.5\n";
  c = config(scratch("labels.csv").string());
  c["target"]["batch_size"] = 1;
  e = error_of(c);
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("labels.csv: row 2: expected a 0/1 label") != std::string::npos);
}

TEST_CASE("logistic target: a gradient-noise correction with batches drawn without replacement is refused") {
  // The batches of an epoch are negatively correlated, so subtracting one batch's noise variance from
  // the injected noise leaves the posterior too narrow (tests/data/logistic_stat.cpp measures it).
  // Catches: the combination accepted silently through any of the four fields that set a correction,
  // or refused without the way out (with_replacement, or no estimate).
  const std::string path = write_csv("lr200.csv", 200);
  auto refused = [&](json c, const std::string& field) {
    c["steps"] = 200, c["burn_in"] = 100;
    const std::string e = error_of(c);
    CAPTURE(e);
    CHECK(e.find(field + ":") != std::string::npos);
    CHECK(e.find("/target/with_replacement is false") != std::string::npos);
    CHECK(e.find("\"with_replacement\": true") != std::string::npos);
  };
  auto accepted = [&](json c) {
    c["steps"] = 200, c["burn_in"] = 100;
    return run::run(c, {.threads = 1});
  };

  json c = config(path);
  c["sampler"]["noise_estimate"] = "empirical_fisher";
  refused(c, "/sampler/noise_estimate");
  c["sampler"]["noise_estimate"] = 1.0;
  refused(c, "/sampler/noise_estimate");
  c["sampler"] = {{"name", "sgld"}, {"step_size", 1e-4}, {"noise_estimate", 10.0}};
  refused(c, "/sampler/noise_estimate");
  c["sampler"] = {{"name", "sghmc"}, {"learning_rate", 1e-4}, {"momentum_decay", 0.5}, {"beta_hat", 0.1}};
  refused(c, "/sampler/beta_hat");
  c["sampler"] = {{"name", "recipe"}, {"step_size", 1e-4}, {"D", json::array({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})},
                  {"Q", json::array({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}})},
                  {"noise_estimate", json::array({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})}};
  refused(c, "/sampler/noise_estimate");

  // What stays allowed: no estimate; an estimate up to grad_noise² (added noise is independent from
  // step to step); any estimate with batches drawn with replacement.
  c = config(path);
  c["sampler"]["noise_estimate"] = 0.0;
  CHECK(accepted(c)["config"]["sampler"]["noise_estimate"] == 0.0);
  c["target"]["grad_noise"] = 2.0;
  c["sampler"]["noise_estimate"] = 4.0;
  CHECK(accepted(c)["config"]["sampler"]["noise_estimate"] == 4.0);
  c["sampler"]["noise_estimate"] = 4.5;
  refused(c, "/sampler/noise_estimate");
  c = config(path);
  c["target"]["with_replacement"] = true;
  c["sampler"]["noise_estimate"] = "empirical_fisher";
  CHECK(accepted(c)["config"]["sampler"]["noise_estimate"] == "empirical_fisher");
}

TEST_CASE("logistic target: control variates centred at the mode found by L-BFGS, or at a given point") {
  // Catches: the found centre recorded with less than full precision (the run from the recorded point
  // would differ), a resume that searches again or loses the centre, the estimator's fields accepted
  // on the wrong estimator or with the wrong size.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["steps"] = 600, c["burn_in"] = 100;
  c["target"]["estimator"] = "control_variate";
  const json found = run::run(c, {.threads = 1});
  const json& t = found["config"]["target"];
  CHECK(t["estimator"] == "control_variate");
  REQUIRE(t["centre"].is_array());
  CHECK(t["centre"].size() == 3);
  CHECK(t["centre_search"]["method"] == "lbfgs");
  CHECK(t["centre_search"]["evaluations"].get<int>() > 0);
  CHECK(t["centre_search"]["gradient_norm"].get<double>() < 1e-4);

  json given = c;
  given["target"]["centre"] = t["centre"];
  const json again = run::run(given, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(again["chains"][ch]["samples"] == found["chains"][ch]["samples"]);

  json half = c;
  half["steps"] = 350;
  const json resumed = run::resume(run::run(half, {.threads = 1}), 250, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == found["chains"][ch]["samples"]);
  CHECK(resumed["config"]["target"]["centre"] == t["centre"]);

  // "init": "centre" starts every chain at the centre: the same draws as that point given as init.
  json from_centre = c;
  from_centre["init"] = "centre";
  json from_point = c;
  from_point["init"] = t["centre"];
  const json centred = run::run(from_centre, {.threads = 1});
  const json pointed = run::run(from_point, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(centred["chains"][ch]["samples"] == pointed["chains"][ch]["samples"]);
  CHECK(centred["chains"][0]["samples"] != found["chains"][0]["samples"]);  // not the random start
  CHECK(centred["config"]["init"] == "centre");
  from_centre["init"] = "center";
  CHECK(error_of(from_centre).find("/init: expected a point, a list of one point per chain, \"centre\" or \"mode\"") != std::string::npos);
  from_centre["init"] = "centre";
  from_centre["target"]["estimator"] = "svrg";
  CHECK(error_of(from_centre).find("/init: \"centre\" starts the chains at the control variate's centre: it needs target.estimator "
                                   "\"control_variate\" (estimator is svrg)") != std::string::npos);
  // "mode" with any estimator: the same L-BFGS search from 0 on the same U, recorded as the point (a
  // resume must not search again, and continues the same draws).
  json from_mode = from_centre;
  from_mode["init"] = "mode";
  const json moded = run::run(from_mode, {.threads = 1});
  REQUIRE(moded["config"]["init"].is_array());
  for (int k = 0; k < 3; ++k) CHECK(moded["config"]["init"][k].get<double>() == doctest::Approx(t["centre"][k].get<double>()).epsilon(1e-9));
  json from_mode_point = from_mode;
  from_mode_point["init"] = moded["config"]["init"];
  for (int ch = 0; ch < 2; ++ch) CHECK(run::run(from_mode_point, {.threads = 1})["chains"][ch]["samples"] == moded["chains"][ch]["samples"]);
  json mode_half = from_mode;
  mode_half["steps"] = 350;
  const json mode_resumed = run::resume(run::run(mode_half, {.threads = 1}), 250, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(mode_resumed["chains"][ch]["samples"] == moded["chains"][ch]["samples"]);
  json centre_as_mode = c;  // with a control variate, "mode" is its centre: no second search
  centre_as_mode["init"] = "mode";
  for (int ch = 0; ch < 2; ++ch) CHECK(run::run(centre_as_mode, {.threads = 1})["chains"][ch]["samples"] == centred["chains"][ch]["samples"]);

  c = config(path);
  c["target"]["estimator"] = "sag";
  CHECK(error_of(c).find("/target/estimator: expected minibatch, control_variate, svrg or saga, got \"sag\"") != std::string::npos);
  c["target"]["estimator"] = "minibatch";
  c["target"]["centre"] = json::array({0, 0, 0});
  CHECK(error_of(c).find("/target/centre: only the control_variate estimator has a centre") != std::string::npos);
  c["target"]["estimator"] = "control_variate";
  c["target"]["centre"] = json::array({0, 0});
  CHECK(error_of(c).find("/target/centre") != std::string::npos);
  c["target"]["centre"] = "mod";
  CHECK(error_of(c).find("/target/centre: expected \"mode\" or a point of 3 numbers") != std::string::npos);
}

TEST_CASE("logistic target: SVRG refreshes its centre at the chain's position; a resume continues it") {
  // Catches: the centre not saved with the chain (a resume mid-epoch would use the wrong centre and
  // differ), a refresh period other than refresh_every, the estimator's fields accepted elsewhere.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["steps"] = 600, c["burn_in"] = 100;
  c["target"]["estimator"] = "svrg";
  c["target"]["refresh_every"] = 7;
  const json full = run::run(c, {.threads = 1});
  CHECK(full["config"]["target"]["refresh_every"] == 7);
  CHECK(full["chains"][0]["state"]["target"]["centre"].size() == 3);
  json half = c;
  half["steps"] = 353;  // mid-way between two refreshes
  const json resumed = run::resume(run::run(half, {.threads = 1}), 247, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == full["chains"][ch]["samples"]);
  CHECK(resumed["chains"][0]["state"] == full["chains"][0]["state"]);

  json epoch = config(path);
  epoch["target"]["estimator"] = "svrg";
  epoch["steps"] = 200, epoch["burn_in"] = 100;
  CHECK(run::run(epoch, {.threads = 1})["config"]["target"]["refresh_every"] == 6);  // N/n = 300/50

  c["target"]["centre"] = "mode";
  CHECK(error_of(c).find("/target/centre: svrg's centre is the chain's own position") != std::string::npos);
  c["target"].erase("centre");
  c["target"]["refresh_every"] = 0;
  CHECK(error_of(c).find("/target/refresh_every") != std::string::npos);
  c["target"]["estimator"] = "minibatch";
  c["target"]["refresh_every"] = 5;
  CHECK(error_of(c).find("/target/refresh_every: only the svrg estimator refreshes") != std::string::npos);
}

TEST_CASE("svrg and saga: a record of 0 steps (no estimator state yet) resumes to the draws of one whole run") {
  // Catches: the restore of an absent estimator state reading a destroyed temporary (a
  // stack-use-after-scope under ASan, issue #40: Fields kept a reference to json::object()), and a
  // resume from the start that does not continue as one uninterrupted run would.
  const std::string path = write_csv("lr120.csv", 120);
  for (const char* estimator : {"svrg", "saga"}) {
    CAPTURE(estimator);
    json c = config(path);
    c["target"]["estimator"] = estimator;
    c["steps"] = 0, c["burn_in"] = 0;
    const json empty = run::run(c, {.threads = 1});
    REQUIRE(empty["status"] == "ok");
    c["steps"] = 60;
    const json whole = run::run(c, {.threads = 1});
    const json resumed = run::resume(empty, 60, {.threads = 1});
    REQUIRE(resumed["status"] == "ok");
    for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == whole["chains"][ch]["samples"]);
  }
}

TEST_CASE("logistic target: SAGA keeps one number per example with the chain; a resume continues it") {
  // Catches: the table or its sum not saved with the chain (a resume would refill or drift and differ),
  // a d-vector table where the model offers scalars, SAGA's table refused or its fields misnamed.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["steps"] = 600, c["burn_in"] = 100;
  c["target"]["estimator"] = "saga";
  const json full = run::run(c, {.threads = 1});
  CHECK(full["config"]["target"]["estimator"] == "saga");
  const json& state = full["chains"][0]["state"]["target"];
  CHECK(state["saga_table"].size() == 300);
  CHECK(state["saga_sum"].size() == 3);
  json half = c;
  half["steps"] = 353;
  const json resumed = run::resume(run::run(half, {.threads = 1}), 247, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == full["chains"][ch]["samples"]);
  CHECK(resumed["chains"][0]["state"] == full["chains"][0]["state"]);

  // A record whose table has the wrong size is refused, naming the field.
  json record = run::run(half, {.threads = 1});
  record["chains"][0]["state"]["target"]["saga_table"].erase(0);
  try {
    run::resume(record, 10, {.threads = 1});
    FAIL("a short saga_table was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("/chains/0/state/target/saga_table") != std::string::npos);
  }
  c["target"]["refresh_every"] = 5;
  CHECK(error_of(c).find("/target/refresh_every: only the svrg estimator refreshes (estimator is saga)") != std::string::npos);
  c["target"].erase("refresh_every");
  c["target"]["with_replacement"] = true;
  c["sampler"]["noise_estimate"] = "empirical_fisher";
  CHECK(error_of(c).find("/sampler/noise_estimate: empirical_fisher measures the plain minibatch gradient's spread, and target "
                         "'logistic' uses the saga estimator") != std::string::npos);
}

TEST_CASE("saga draws its batches with replacement: by default, and the other order refused in a config and in an old record") {
  // Catches: saga run on batches drawn without replacement (biased: a batch holds the examples whose
  // table entries are the oldest, and the chain runs cold; tests/data/logistic_stat.cpp), whether by the
  // target's default, by a config that asks for it, or by the resume of a record written before the
  // rule — which must be refused naming the field, not continued (biased) nor crash.
  const std::string path = write_csv("lr120.csv", 120);
  json c = config(path);
  c["target"]["estimator"] = "saga";
  c["steps"] = 200, c["burn_in"] = 0;
  const json record = run::run(c, {.threads = 1});
  REQUIRE(record["status"] == "ok");
  CHECK(record["config"]["target"]["with_replacement"] == true);
  c["target"]["with_replacement"] = true;  // said outright: the same run, draw for draw
  CHECK(run::run(c, {.threads = 1})["chains"][1]["samples"] == record["chains"][1]["samples"]);

  c["target"]["with_replacement"] = false;
  const std::string refused = error_of(c);
  CHECK(refused.find("/target/with_replacement: the saga estimator draws its batches with replacement") != std::string::npos);
  CHECK(refused.find("biased") != std::string::npos);
  CHECK(refused.find("docs/config.md") != std::string::npos);
  CHECK(refused.find("set \"with_replacement\": true or leave it out") != std::string::npos);

  // A record as the old rule wrote it: with_replacement false in its config, its digest matching.
  json old = record;
  old["config"]["target"]["with_replacement"] = false;
  old["config_digest"] = run::config_digest(old["config"]);
  try {
    run::resume(old, 50, {.threads = 1});
    FAIL("a saga record drawn without replacement was resumed");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("/config/target/with_replacement: the saga estimator draws its batches with replacement") !=
          std::string::npos);
    CHECK(std::string(e.what()).find("cannot be resumed") != std::string::npos);
  }
  // The rule is saga's: the other estimators keep the target's order.
  c["target"]["estimator"] = "svrg";
  const json svrg = run::run(c, {.threads = 1});
  REQUIRE(svrg["status"] == "ok");
  CHECK(svrg["config"]["target"]["with_replacement"] == false);
}

TEST_CASE("logistic target: AMAGOLD runs on independent batches, resumes to the same draws, and refuses the others") {
  // Catches: a state not saved whole (the velocity, or the cached U recomputed differently: a resume
  // would differ), the MH test run on batches whose reverse order is not as likely (without
  // replacement) or on estimators that depend on the chain's past.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["sampler"] = {{"name", "amagold"}, {"step_size", 0.02}, {"friction", 2.0}, {"mh_every", 5}};
  c["target"]["with_replacement"] = true;
  c["steps"] = 300, c["burn_in"] = 50, c["thin"] = 1;
  const json full = run::run(c, {.threads = 1});
  REQUIRE(full["status"] == "ok");
  CHECK(full["config"]["sampler"]["mh_every"] == 5);
  const double acceptance = full["chains"][0]["diagnostics"]["mean_accept_stat"].get<double>();
  CHECK(acceptance > 0.3);
  CHECK(full["chains"][0]["diagnostics"]["gradient_evals"] == 300 * 5);
  json half = c;
  half["steps"] = 170;
  const json resumed = run::resume(run::run(half, {.threads = 1}), 130, {.threads = 1});
  for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == full["chains"][ch]["samples"]);

  c["target"]["with_replacement"] = false;
  CHECK(error_of(c).find("/sampler/name: amagold's Metropolis–Hastings test is exact only when successive stochastic gradients are "
                         "independent") != std::string::npos);
  c["target"]["with_replacement"] = true;
  c["target"]["estimator"] = "svrg";
  CHECK(error_of(c).find("the svrg estimator's depend on it") != std::string::npos);
  c["target"]["estimator"] = "control_variate";
  CHECK(run::run(c, {.threads = 1})["status"] == "ok");
}

TEST_CASE("logistic target: a diagonal preconditioner from a warm-up, resumed before and after it is fixed") {
  // Catches: the scale or the warm-up's sums not saved (a resume inside the warm-up would fix another
  // scale; one after it would lose it), draws written in φ instead of θ (they would differ from the
  // unpreconditioned run's scale), the field accepted where it cannot apply.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["sampler"] = {{"name", "sgld"}, {"step_size", 0.002}, {"preconditioner", {{"adapt_steps", 200}}}};
  c["steps"] = 600, c["burn_in"] = 200, c["thin"] = 1;
  const json full = run::run(c, {.threads = 1});
  REQUIRE(full["status"] == "ok");
  CHECK(full["config"]["sampler"]["preconditioner"]["adapt_steps"] == 200);
  const json& state = full["chains"][0]["state"]["sampler"];
  REQUIRE(state["scale"].size() == 3);
  CHECK(state["collected"] == 100);
  for (std::uint64_t half_steps : {150u, 350u}) {  // inside the warm-up, and after it
    CAPTURE(half_steps);
    json half = c;
    half["steps"] = half_steps;
    const json resumed = run::resume(run::run(half, {.threads = 1}), 600 - half_steps, {.threads = 1});
    for (int ch = 0; ch < 2; ++ch) CHECK(resumed["chains"][ch]["samples"] == full["chains"][ch]["samples"]);
  }
  // Draws are θ: their mean is near the plain SGLD run's, not scaled by 1/s.
  json plain = c;
  plain["sampler"].erase("preconditioner");
  const json unscaled = run::run(plain, {.threads = 1});
  double a = 0, b = 0;
  for (const auto& x : full["chains"][0]["samples"]) a += x[1].get<double>() / 400;
  for (const auto& x : unscaled["chains"][0]["samples"]) b += x[1].get<double>() / 400;
  CHECK(std::abs(a - b) < 0.5 * std::abs(b) + 0.1);

  c["sampler"]["preconditioner"] = {{"scale", {1.0, 2.0}}};
  CHECK(error_of(c).find("/sampler/preconditioner/scale") != std::string::npos);
  c["sampler"]["preconditioner"] = {{"scale", {1.0, 2.0, 1.0}}, {"adapt_steps", 5}};
  CHECK(error_of(c).find("/sampler/preconditioner/adapt_steps: give either adapt_steps or scale, not both") != std::string::npos);
  c["sampler"] = {{"name", "sghmc"}, {"step_size", 0.01}, {"noise_estimate", "empirical_fisher"}, {"preconditioner", {{"adapt_steps", 10}}}};
  c["target"]["with_replacement"] = true;
  CHECK(error_of(c).find("/sampler/preconditioner: empirical_fisher estimates the noise of the unscaled gradient") != std::string::npos);
}

TEST_CASE("psgld on a data target: the damping defaults to Li et al.'s 1e-5 on the per-example mean, N·1e-5 here") {
  // Catches: the summed gradient's scale ignored (λ = 1e-5 lets G reach 1e5 where the gradient
  // vanishes — a chain started at the mode, where the control variate's gradient is zero, is thrown
  // far off by its first steps), a λ given in the config overridden, a non-data target scaled.
  const std::string path = write_csv("lr300.csv", 300);
  json c = config(path);
  c["sampler"] = {{"name", "psgld"}, {"step_size", 1e-3}, {"adapt_steps", 100}};
  c["steps"] = 400, c["burn_in"] = 100;
  c["target"]["estimator"] = "control_variate";
  c["init"] = "centre";
  const json r = run::run(c, {.threads = 1});
  CHECK(r["config"]["sampler"]["lambda"].get<double>() == 300 * 1e-5);
  // Started at the mode, the chains stay within the posterior's reach: |θ| below 10 (the default of
  // 1e-5 put the first steps' noise sd at √(2h/λ) ≈ 14 here).
  const auto largest = [](const json& record) {
    double m = 0;
    for (const auto& ch : record["chains"])
      for (const auto& draw : ch["samples"])
        for (const auto& v : draw) m = std::max(m, std::abs(v.get<double>()));
    return m;
  };
  CHECK(largest(r) < 10);
  c["sampler"]["lambda"] = 1e-5;  // the same run at the per-example damping: thrown off (measured 29)
  CHECK(largest(run::run(c, {.threads = 1})) > 10);
  c["sampler"]["lambda"] = 0.5;
  CHECK(run::run(c, {.threads = 1})["config"]["sampler"]["lambda"] == 0.5);
  const json g = run::run({{"sampler", {{"name", "psgld"}, {"step_size", 0.01}}},
                           {"target", {{"name", "gaussian"}, {"mean", {0.0}}, {"cov", 1.0}}}, {"steps", 10}},
                          {.threads = 1});
  CHECK(g["config"]["sampler"]["lambda"] == 1e-5);
}

}  // namespace test_cli_data
