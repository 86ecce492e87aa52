// The `poisson` target (run/targets/poisson.hpp) and its model (models/poisson.hpp): Bayesian Poisson
// regression with the log link. The model's gradient against finite differences of its value, directly
// and through every estimator the registry wraps it in; the CSV's errors; the resolved record.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/poisson.hpp>
#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/runner.hpp>

#include "../support/scratch_folder.hpp"

namespace test_poisson {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::VectorXd;
using run::json;

namespace {

// n examples: an intercept and two features ~ U(−1, 1), counts ~ Poisson(exp(0.3 + 0.5 x1 − 0.2 x2)).
data::Dataset<double> counts(Eigen::Index n, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  data::Dataset<double> d;
  d.x.resize(3, n);
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    d.x(0, i) = 1.0;
    d.x(1, i) = 2 * rng.uniform() - 1;
    d.x(2, i) = 2 * rng.uniform() - 1;
    d.y[i] = static_cast<int>(random::poisson(rng, std::exp(0.3 + 0.5 * d.x(1, i) - 0.2 * d.x(2, i))));
  }
  return d;
}

// The same data as CSV with a header row; returns the path.
std::string write_csv(const sgmcmc_test::ScratchFolder& dir, const std::string& name, Eigen::Index n) {
  const auto d = counts(n, 11);
  const std::string path = dir.file(name);
  std::ofstream out(path);
  out << "intercept,x1,x2,count\n";
  for (Eigen::Index i = 0; i < n; ++i) out << fmt::format("{},{},{},{}\n", d.x(0, i), d.x(1, i), d.x(2, i), d.y[i]);
  return path;
}

json config(const std::string& path, const std::string& estimator = "minibatch") {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 1e-3}}},
          {"target", {{"name", "poisson"}, {"data", path}, {"batch_size", 10}, {"estimator", estimator}}},
          {"steps", 20}, {"chains", 1}, {"seed", 5}};
}

std::string error_of(const json& c) {
  try {
    (void)run::parse_config(c, run::shipped_registry());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Central differences of `value` against `gradient` at x, per coordinate.
template <class U, class G>
void check_gradient(const U& value, const G& gradient, const VectorXd& x) {
  VectorXd g(x.size());
  gradient(x, g);
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const double e = 1e-6;
    VectorXd a = x, b = x;
    a[k] += e, b[k] -= e;
    const double fd = (value(a) - value(b)) / (2 * e);
    CAPTURE(k);
    CHECK(g[k] == doctest::Approx(fd).epsilon(1e-6).scale(1.0));
  }
}

}  // namespace

TEST_CASE("poisson model: the gradient is the derivative of the value, and the value is the Poisson likelihood") {
  // Catches: a sign slip in ψ_i = exp(θᵀx_i) − y_i, a missing or doubled prior term, the gradient's
  // exp taken of the wrong argument, a value without its log(y!) (the absolute value would be off) or
  // with exp capped (the overflow would be hidden from the divergence check).
  const models::PoissonRegression model{std::make_shared<const data::Dataset<double>>(counts(40, 3)), 1.7};
  const auto pot = models::minibatch(model, 8, models::Sampling::without_replacement);
  for (const VectorXd& x : {VectorXd(VectorXd::Zero(3)), VectorXd((VectorXd(3) << 0.4, -0.6, 0.9).finished())}) {
    check_gradient([&](const VectorXd& t) { return pot.value(t); },
                   [&](const VectorXd& t, VectorXd& g) { pot.exact_gradient(t, g); }, x);
  }
  // U at θ against the closed form Σ [e^{θᵀx} − y θᵀx + log y!] + ‖θ‖²/(2σ²), summed here by hand.
  const VectorXd t = (VectorXd(3) << 0.2, 0.1, -0.3).finished();
  double u = 0.5 * t.squaredNorm() / (1.7 * 1.7);
  for (Eigen::Index i = 0; i < 40; ++i) {
    const double z = t.dot(model.data->x.col(i));
    double log_factorial = 0;
    for (int k = 2; k <= model.data->y[i]; ++k) log_factorial += std::log(static_cast<double>(k));
    u += std::exp(z) - model.data->y[i] * z + log_factorial;
  }
  CHECK(pot.value(t) == doctest::Approx(u).epsilon(1e-12));
  CHECK(model.example_coefficient(t, 5) == doctest::Approx(model.rate(t, model.data->x.col(5)) - model.data->y[5]).epsilon(1e-14));
  // Far out (θᵀx = 800 on the intercept), exp overflows: the value and the gradient are not finite,
  // for the chain's divergence check to report.
  const VectorXd far = (VectorXd(3) << 800.0, 0.0, 0.0).finished();
  VectorXd g = VectorXd::Zero(3);
  model.add_example_gradient(far, 0, g, 1.0);
  CHECK(!std::isfinite(model.example_value(far, 0)));
  CHECK(!g.allFinite());
}

TEST_CASE("poisson target: every estimator's exact gradient is the derivative of its value, and the estimator is recorded") {
  // Catches: an estimator that wraps the model without its exact U or ∇U, or with another U (gmc and
  // the mode search would refuse it or sample the wrong posterior), prior_sd not reaching the model
  // (U would not change by ‖θ‖²/2·(1/σ² − 1) between σ = 1 and 0.5), an estimator accepted but not
  // recorded, or refused by the sampler.
  const sgmcmc_test::ScratchFolder dir("test_poisson");
  const std::string path = write_csv(dir, "counts.csv", 60);
  const VectorXd x = (VectorXd(3) << 0.3, 0.4, -0.5).finished();
  double reference = 0;
  for (const std::string estimator : {"minibatch", "control_variate", "svrg", "saga"}) {
    CAPTURE(estimator);
    json c = config(path, estimator);
    c["target"]["prior_sd"] = 0.5;
    const run::RunConfig parsed = run::parse_config(c, run::shipped_registry());
    const run::AnyTarget& target = parsed.target.target;
    REQUIRE(target.has_value());
    check_gradient([&](const VectorXd& t) { return target.value(t); },
                   [&](const VectorXd& t, VectorXd& g) { target.exact_gradient(t, g); }, x);
    // Every estimator's U is the same full-data U.
    if (estimator == "minibatch") reference = target.value(x);
    CHECK(target.value(x) == doctest::Approx(reference).epsilon(1e-12));
    CHECK(parsed.target.resolved["estimator"] == estimator);
    CHECK(parsed.target.examples == std::optional<std::uint64_t>(60));
  }
  json c = config(path);
  const double u1 = run::parse_config(c, run::shipped_registry()).target.target.value(x);
  c["target"]["prior_sd"] = 0.5;
  const double u_half = run::parse_config(c, run::shipped_registry()).target.target.value(x);
  CHECK(u_half - u1 == doctest::Approx(0.5 * x.squaredNorm() * (4.0 - 1.0)).epsilon(1e-10));

  // A short run per estimator: accepted by the sampler and kept in the run record.
  for (const std::string estimator : {"minibatch", "control_variate", "svrg", "saga"}) {
    CAPTURE(estimator);
    const json record = run::run(config(path, estimator), {.threads = 1});
    REQUIRE(record["status"] == "ok");
    CHECK(record["config"]["target"]["estimator"] == estimator);
    CHECK(record["chains"][0]["samples"].size() == 20);
  }
}

TEST_CASE("poisson target: the resolved record holds every field with its default") {
  // Catches: a default missing from the record (a resume or a rerun from the record would differ), the
  // manifold's dimension not taken from the CSV's feature columns, batch_size's default not min(100, N).
  const sgmcmc_test::ScratchFolder dir("test_poisson");
  const std::string path = write_csv(dir, "counts.csv", 60);
  json c = config(path);
  c["target"] = {{"name", "poisson"}, {"data", path}};
  const json record = run::run(c, {.threads = 1});
  REQUIRE(record["status"] == "ok");
  const json& t = record["config"]["target"];
  CHECK(t["name"] == "poisson");
  CHECK(t["data"] == path);
  CHECK(t["prior_sd"] == 1.0);
  CHECK(t["batch_size"] == 60);  // min(100, N)
  CHECK(t["with_replacement"] == false);
  CHECK(t["estimator"] == "minibatch");
  CHECK(record["config"]["manifold"]["name"] == "euclidean");
  CHECK(record["config"]["manifold"]["dim"] == 3);
  // A rerun from the recorded config gives the same draws.
  json again = record["config"];
  CHECK(run::run(again, {.threads = 1})["chains"][0]["samples"] == record["chains"][0]["samples"]);
}

TEST_CASE("poisson target: bad data and fields are errors naming the field, the file and the row") {
  // Catches: a fractional or negative count accepted (or truncated to an int silently), an error that
  // does not say which file and row, a missing file found only when sampling starts, a batch larger
  // than the data, a manifold that is not flat or of another dimension accepted.
  const sgmcmc_test::ScratchFolder dir("test_poisson");
  std::string e = error_of(config(dir.file("absent.csv")));
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("absent.csv") != std::string::npos);

  std::ofstream(dir.file("fraction.csv")) << "a,b,count\n1,2,0\n3,4,7\n5,6,2.5\n";
  e = error_of(config(dir.file("fraction.csv")));
  CAPTURE(e);
  CHECK(e.find("/target/data") != std::string::npos);
  CHECK(e.find("fraction.csv: row 4: expected a count (a non-negative integer) in the last column") != std::string::npos);

  std::ofstream(dir.file("negative.csv")) << "1,2,0\n3,4,-1\n";
  e = error_of(config(dir.file("negative.csv")));
  CHECK(e.find("negative.csv: row 2: expected a count (a non-negative integer) in the last column") != std::string::npos);

  std::ofstream(dir.file("huge.csv")) << "1,2,0\n3,4,3e9\n";  // more than an int holds
  CHECK(error_of(config(dir.file("huge.csv"))).find("huge.csv: row 2: expected a count") != std::string::npos);

  std::ofstream(dir.file("nan.csv")) << "1,2,0\n3,4,nan\n";
  CHECK(error_of(config(dir.file("nan.csv"))).find("nan.csv") != std::string::npos);

  const std::string path = write_csv(dir, "counts.csv", 30);
  json c = config(path);
  c["target"]["batch_size"] = 31;
  CHECK(error_of(c).find("/target/batch_size: expected at most the 30 examples") != std::string::npos);
  c = config(path);
  c["target"]["prior_sd"] = 0;
  CHECK(error_of(c).find("/target/prior_sd: expected a positive number") != std::string::npos);
  c = config(path);
  c["manifold"] = {{"name", "euclidean"}, {"dim", 4}};
  CHECK(error_of(c).find("has 3 feature columns but the manifold has 4 coordinates") != std::string::npos);
  c = config(path);
  c["manifold"] = {{"name", "sphere"}, {"n", 3}};
  CHECK(error_of(c).find("/target") != std::string::npos);
  c = config(path);
  c["target"]["estimator"] = "sag";
  CHECK(error_of(c).find("/target/estimator: expected minibatch, control_variate, svrg or saga") != std::string::npos);
  c = config(path);
  c["target"]["unknown_field"] = 1;
  CHECK(error_of(c).find("unknown_field") != std::string::npos);
}

}  // namespace test_poisson
