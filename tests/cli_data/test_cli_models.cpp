// The `bnn` and `bpmf` targets in run configs (docs/config.md), driven through sgmcmc::run::run /
// resume as the CLI does, on small files the test writes itself: the manifold's dimension comes from
// the data and the model sizes, defaults are recorded, a resume gives the same draws, and bad data or
// fields are errors naming the field and the file.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/runner.hpp>

namespace test_cli_models {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::json;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(SGMCMC_BINARY_DIR) / "tests" / "cli_models_scratch";
  fs::create_directories(dir);
  return dir / name;
}

// 60 examples, 4 features, 3 classes (feature k of class c centred at 1 if k == c): header row.
std::string write_classes(const std::string& name) {
  random::Stream rng(2, 0);
  const fs::path p = scratch(name);
  std::ofstream out(p);
  out << "f1,f2,f3,f4,label\n";
  for (int i = 0; i < 60; ++i) {
    const int c = i % 3;
    for (int k = 0; k < 4; ++k) out << (k == c ? 1.0 : 0.0) + 0.3 * rng.normal() << ',';
    out << c << '\n';
  }
  return p.string();
}

// 200 ratings of 12 users × 9 items (ids not contiguous, as in MovieLens), with timestamps.
std::string write_ratings(const std::string& name) {
  random::Stream rng(3, 0);
  const fs::path p = scratch(name);
  std::ofstream out(p);
  out << "userId,movieId,rating,timestamp\n";
  for (int k = 0; k < 200; ++k)
    out << 10 + rng.below(12) << ',' << 100 * (1 + rng.below(9)) << ',' << 0.5 * double(1 + rng.below(10)) << ',' << 1000 + k << '\n';
  return p.string();
}

json config(const json& target) {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}, {"friction", 10.0}}},
          {"target", target}, {"steps", 400}, {"burn_in", 100}, {"thin", 10}, {"chains", 2}, {"seed", 5}};
}

std::string error_of(const json& c) {
  try {
    run::run(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void check_resume(const json& c, const json& full) {
  json half_config = c;
  half_config["steps"] = 250;
  const json resumed = run::resume(run::run(half_config, {.threads = 1}), 150, {.threads = 1});
  CHECK(resumed["chains"][0]["samples"] == full["chains"][0]["samples"]);
  CHECK(resumed["chains"][1]["samples"] == full["chains"][1]["samples"]);
}

}  // namespace

TEST_CASE("bnn target: sizes from the CSV, defaults recorded, resume gives the same draws") {
  // Catches: a dimension not matching d·H + H + H·K + K (the run would fail at init), defaults missing
  // from the record, batches or threads that make a resume differ from the uninterrupted run.
  const std::string path = write_classes("classes60.csv");
  const json c = config({{"name", "bnn"}, {"data", path}, {"hidden", 5}, {"batch_size", 20}, {"threads", 2}});
  const json full = run::run(c, {.threads = 1});
  REQUIRE(full["status"] == "ok");
  const json& t = full["config"]["target"];
  CHECK(t["classes"] == 3);
  CHECK(t["prior_precision"] == 1.0);
  CHECK(t["with_replacement"] == false);
  CHECK(full["config"]["manifold"]["dim"] == 4 * 5 + 5 + 5 * 3 + 3);
  CHECK(full["chains"][0]["samples"].size() == 30);
  for (const auto& row : full["chains"][0]["samples"])
    for (const auto& v : row) CHECK(std::isfinite(v.get<double>()));
  check_resume(c, full);
}

TEST_CASE("bpmf target: sizes from the ratings, defaults recorded, resume gives the same draws") {
  // Catches: ids not remapped to 0..users−1 (dimension wrong), the data mean not recorded as μ,
  // a resume that draws other batches.
  const std::string path = write_ratings("ratings200.csv");
  const json c = config({{"name", "bpmf"}, {"data", path}, {"latent", 3}, {"batch_size", 50}});
  const json full = run::run(c, {.threads = 1});
  REQUIRE(full["status"] == "ok");
  const json& t = full["config"]["target"];
  CHECK(t["tau"] == 3.0);
  CHECK(t["mean"].get<double>() > 0.5);
  CHECK(t["mean"].get<double>() < 5.0);
  CHECK(full["config"]["manifold"]["dim"] == (3 + 1) * (12 + 9));
  check_resume(c, full);
}

TEST_CASE("bnn and bpmf targets: bad data and fields are errors naming the field and the file") {
  // Catches: a fractional class label accepted as a class, too few classes for the labels, a batch
  // larger than the data, a missing file found only when sampling starts.
  std::ofstream(scratch("fraction.csv")) << "1,2,0\n3,4,1.5\n";
  std::string e = error_of(config({{"name", "bnn"}, {"data", scratch("fraction.csv").string()}}));
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("fraction.csv: row 2: expected a class label") != std::string::npos);

  const std::string classes = write_classes("classes60b.csv");
  e = error_of(config({{"name", "bnn"}, {"data", classes}, {"classes", 2}}));
  CHECK(e.find("/target/classes") != std::string::npos);
  e = error_of(config({{"name", "bnn"}, {"data", classes}, {"batch_size", 61}}));
  CHECK(e.find("/target/batch_size: expected at most the 60 examples") != std::string::npos);
  // Sizes and thread counts bounded before use (issue #40): a hidden layer of 2^62 units overflowed the
  // weight count in Eigen::Index (undefined behaviour); 100000 threads per chain filled the task table.
  e = error_of(config({{"name", "bnn"}, {"data", classes}, {"hidden", std::uint64_t{1} << 62}}));
  CHECK_MESSAGE(e.find("/target/hidden: a 4–4611686018427387904–3 net would have") != std::string::npos, e);
  e = error_of(config({{"name", "bnn"}, {"data", classes}, {"hidden", 1000}, {"classes", std::uint64_t{1} << 40}}));
  CHECK_MESSAGE(e.find("/target/classes: a 4–1000–1099511627776 net would have") != std::string::npos, e);
  e = error_of(config({{"name", "bnn"}, {"data", classes}, {"threads", 100000}}));
  CHECK_MESSAGE(e.find("/target/threads: expected at most 256 threads, got 100000") != std::string::npos, e);

  e = error_of(config({{"name", "bpmf"}, {"data", scratch("no_ratings.csv").string()}}));
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("no_ratings.csv") != std::string::npos);
  const std::string ratings = write_ratings("ratings200b.csv");
  e = error_of(config({{"name", "bpmf"}, {"data", ratings}, {"tau", 0}}));
  CHECK(e.find("/target/tau: expected a positive number") != std::string::npos);
}

TEST_CASE("bnn, bpmf and vmf_mixture_posterior: every estimator, with the Gibbs step, resumes to the same draws") {
  // Catches: an estimator that only the logistic target took; an estimator's state and the Gibbs
  // step's precisions not both saved (a resume mid-run would differ); the mode search run on a manifold
  // (it searches euclidean space: a control variate there needs its centre given); SAGA's d-vector table
  // allocated past its memory bound instead of refused.
  const json bnn = {{"name", "bnn"}, {"data", write_classes("classes60.csv")}, {"hidden", 5}, {"batch_size", 20}, {"gibbs_every", 7}};
  const json bpmf = {{"name", "bpmf"}, {"data", write_ratings("ratings200.csv")}, {"latent", 3}, {"batch_size", 40}, {"gibbs_every", 7}};
  for (const json& target : {bnn, bpmf}) {
    for (const char* estimator : {"control_variate", "svrg", "saga"}) {
      CAPTURE(target["name"].get<std::string>());
      CAPTURE(estimator);
      json c = config(target);
      c["target"]["estimator"] = estimator;
      const json full = run::run(c, {.threads = 1});
      REQUIRE(full["status"] == "ok");
      const json& state = full["chains"][0]["state"]["target"];
      CHECK(state.contains("precisions"));
      if (std::string(estimator) == "svrg") CHECK(state.contains("centre"));
      if (std::string(estimator) == "saga") CHECK(state.contains("saga_table"));
      if (std::string(estimator) == "control_variate") CHECK(full["config"]["target"]["centre"].is_array());
      check_resume(c, full);
    }
  }

  json huge = config(bnn);
  huge["target"]["hidden"] = 300000;  // 2.4 million weights × 60 examples: 1.1 GiB of table per chain
  huge["target"]["estimator"] = "saga";
  CHECK(error_of(huge).find("/target/estimator: saga's table of per-example gradients would hold 60 × 2400003") != std::string::npos);

  const json torus = {{"name", "product"}, {"factors", json::array({{{"name", "sphere"}, {"n", 2}}, {{"name", "sphere"}, {"n", 2}}})}};
  json vmf = {{"sampler", {{"name", "sggmc"}, {"step_size", 0.01}, {"friction", 10.0}}},
              {"manifold", torus},
              {"target", {{"name", "vmf_mixture_posterior"}, {"estimator", "control_variate"}}},
              {"steps", 400}, {"burn_in", 100}, {"thin", 10}, {"chains", 2}, {"seed", 5}};
  CHECK(error_of(vmf).find("/target/centre: required field is missing: the mode search (L-BFGS) runs on euclidean space") !=
        std::string::npos);
  vmf["target"]["centre"] = json::array({1, 0, 1, 0});
  const json given = run::run(vmf, {.threads = 1});
  REQUIRE(given["status"] == "ok");
  check_resume(vmf, given);
  for (const char* estimator : {"svrg", "saga"}) {
    CAPTURE(estimator);
    vmf["target"].erase("centre");
    vmf["target"]["estimator"] = estimator;
    const json full = run::run(vmf, {.threads = 1});
    REQUIRE(full["status"] == "ok");
    check_resume(vmf, full);
  }
}

}  // namespace test_cli_models
