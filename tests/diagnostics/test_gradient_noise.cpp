// The gradient noise a chain feels at its draws (run/stein.hpp, `sgmcmc summary --stein`), against
// closed forms: additive noise of known σ, the same seen at temperature T, and a logistic regression's
// minibatch noise N²/n · Var_i(∇u_i) over the full data (batches drawn with replacement).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/run/stein.hpp>

using namespace sgmcmc;
using run::json;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

/// Each chain's draws as draws × coordinates (as the summary holds them).
std::vector<MatrixXd> chains_of(const json& record) {
  std::vector<MatrixXd> out;
  for (const auto& ch : record["chains"]) {
    const auto& s = ch["samples"];
    MatrixXd m(s.size(), s[0].size());
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t j = 0; j < s[i].size(); ++j) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = s[i][j].get<double>();
    out.push_back(m);
  }
  return out;
}

json report_of(const json& config) {
  const json record = run::run(config, {.threads = 1});
  REQUIRE(record["status"] == "ok");
  return run::stein_report(record, chains_of(record));
}

// The estimate is a mean over 100 draws × d coordinates of sample variances of 32 batches. For normal
// batch gradients each has relative sd sqrt(2/31), so the mean has relative standard error
// sqrt(2/31 / (100 d)) (coordinates and draws nearly independent here).
double relative_se(int d) { return std::sqrt(2.0 / 31.0 / (100.0 * d)); }

}  // namespace

TEST_CASE("gradient noise: additive N(0, σ²) noise measured as σ², and as σ²/T² at temperature T") {
  // Catches: the variance of the wrong quantity (the untempered gradient, the batch's examples instead of
  // the batch gradient), a missing 1/(K − 1), the excess-temperature formula's h, C or V̂ misplaced.
  const double sigma = 0.7, h = 0.05, friction = 2.0;
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", h}, {"friction", friction}, {"noise_estimate", 0.2}}},
            {"target", {{"name", "gaussian"}, {"mean", {0.0, 0.0, 0.0}}, {"cov", 1.0}, {"grad_noise", sigma}}},
            {"steps", 3000}, {"burn_in", 1000}, {"chains", 2}, {"seed", 4}};
  for (double t : {1.0, 2.0}) {
    CAPTURE(t);
    c["sampler"]["temperature"] = t;
    const json r = report_of(c);
    for (const auto& ch : r["chains"]) {
      const json& n = ch["gradient_noise"];
      REQUIRE(n.is_object());
      const double v = n["variance"].get<double>(), exact = sigma * sigma / (t * t);
      CHECK(n["draws"] == 100);
      CHECK(std::abs(v - exact) < 4 * relative_se(3) * exact);
      CHECK(n["excess_temperature"].get<double>() == doctest::Approx(h * (v - 0.2) / (2 * friction)).epsilon(1e-12));
    }
  }
}

TEST_CASE("gradient noise: a logistic regression's minibatch noise is N²/n · Var_i ∇u_i(θ)") {
  // Catches: the N/n scaling of the minibatch gradient lost (off by (N/n)²), batches that are not
  // independent (a permutation's consecutive batches would read low).
  const std::size_t N = 400, n = 20;
  const auto s = data::synthetic_logistic(N, 3, 8);
  const std::filesystem::path dir = std::filesystem::path(SGMCMC_BINARY_DIR) / "tests" / "diagnostics_scratch";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "gradient_noise.csv").string();
  {
    std::ofstream out(path);
    out << "intercept,x1,x2,label\n";
    for (Eigen::Index i = 0; i < s.data.x.cols(); ++i)
      out << fmt::format("{},{},{},{}\n", s.data.x(0, i), s.data.x(1, i), s.data.x(2, i), s.data.y[i]);
  }
  const json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.002}}},
                  {"target", {{"name", "logistic"}, {"data", path}, {"batch_size", n}, {"with_replacement", true}}},
                  {"steps", 3000}, {"burn_in", 1000}, {"chains", 1}, {"seed", 6}};
  const json record = run::run(c, {.threads = 1});
  REQUIRE(record["status"] == "ok");
  const auto chains = chains_of(record);
  const json r = run::stein_report(record, chains);
  // The exact with-replacement variance at the same draws (every k-th, as the report picks them).
  const MatrixXd at = run::detail::every_kth(chains[0].transpose(), run::gradient_noise_draws);
  double exact = 0;
  for (Eigen::Index k = 0; k < at.cols(); ++k) {
    const VectorXd theta = at.col(k);
    MatrixXd grads(3, static_cast<Eigen::Index>(N));
    for (Eigen::Index i = 0; i < grads.cols(); ++i) {
      const double z = theta.dot(s.data.x.col(i));
      grads.col(i) = (1.0 / (1.0 + std::exp(-z)) - s.data.y[i]) * s.data.x.col(i);
    }
    const VectorXd mean = grads.rowwise().mean();
    const VectorXd var = (grads.colwise() - mean).array().square().rowwise().mean();
    exact += (double(N) * double(N) / double(n) * var).mean() / static_cast<double>(at.cols());
  }
  const double v = r["chains"][0]["gradient_noise"]["variance"].get<double>();
  CAPTURE(v);
  CAPTURE(exact);
  // Batch means of 20 examples are near normal (CLT); 5 standard errors for what is left of the tails.
  CHECK(std::abs(v - exact) < 5 * relative_se(3) * exact);
  CHECK(r["chains"][0]["gradient_noise"]["excess_temperature"].get<double>() == doctest::Approx(0.002 * v / 2).epsilon(1e-12));
}
