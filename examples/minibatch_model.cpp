// A data model of your own on the library's minibatch base (models/minibatch.hpp): Bayesian linear
// regression y_i = x_iᵀβ + ε_i, ε_i ~ N(0, σ²), prior β ~ N(0, τ²I). It is conjugate, so the exact
// posterior is N(m, S) with S = (XᵀX/σ² + I/τ²)⁻¹, m = S Xᵀy/σ² (Bishop 2006, Eq. 3.50–3.51). SGLD and
// SGHMC run on minibatches drawn without and with replacement; their posterior means and sds are printed
// beside the exact ones. Exits 1 if a chain reports an error or an estimate is absurd.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The model: what models::DataModel asks for is the number of examples, the prior's gradient and one
// example's gradient of -log p. The minibatch base turns these into the unbiased stochastic gradient
// ∇(-log p(β)) + (N/n) Σ_{i ∈ batch} ∇(-log p(y_i | x_i, β)) (Welling & Teh 2011, Eq. 3).
struct LinearRegression {
  MatrixXd x;  ///< d × N: example i is column i
  VectorXd y;  ///< N responses
  double noise_sd = 1.0;  ///< σ
  double prior_sd = 10.0; ///< τ

  std::size_t size() const { return static_cast<std::size_t>(y.size()); }
  void add_prior_gradient(const VectorXd& beta, VectorXd& g) const { g += beta / (prior_sd * prior_sd); }
  void add_example_gradient(const VectorXd& beta, std::size_t i, VectorXd& g, double scale) const {
    const auto xi = x.col(static_cast<Eigen::Index>(i));
    const double residual = xi.dot(beta) - y[static_cast<Eigen::Index>(i)];
    g += (scale * residual / (noise_sd * noise_sd)) * xi;
  }
  // Optional: the exact U = -log p(β | data) + const (MH references, lp in records).
  double prior_value(const VectorXd& beta) const { return 0.5 * beta.squaredNorm() / (prior_sd * prior_sd); }
  double example_value(const VectorXd& beta, std::size_t i) const {
    const double residual = x.col(static_cast<Eigen::Index>(i)).dot(beta) - y[static_cast<Eigen::Index>(i)];
    return 0.5 * residual * residual / (noise_sd * noise_sd);
  }
};
static_assert(models::DataModel<LinearRegression>);

// Synthetic data from β = (1, -2, 0.5), drawn from the library's counter-based stream (reproducible).
LinearRegression synthetic_data(Eigen::Index n_examples) {
  const VectorXd beta_true{{1.0, -2.0, 0.5}};
  random::Stream rng(/*seed=*/42, /*stream=*/0);
  LinearRegression model;
  model.x.resize(beta_true.size(), n_examples);
  for (Eigen::Index i = 0; i < n_examples; ++i)
    for (Eigen::Index k = 0; k < beta_true.size(); ++k) model.x(k, i) = rng.normal();
  model.y = model.x.transpose() * beta_true;
  for (Eigen::Index i = 0; i < n_examples; ++i) model.y[i] += model.noise_sd * rng.normal();
  return model;
}

struct Posterior {
  VectorXd mean, sd;
};

Posterior exact_posterior(const LinearRegression& m) {
  const double s2 = m.noise_sd * m.noise_sd, t2 = m.prior_sd * m.prior_sd;
  const MatrixXd precision = m.x * m.x.transpose() / s2 + MatrixXd::Identity(m.x.rows(), m.x.rows()) / t2;
  const MatrixXd covariance = precision.inverse();
  return {covariance * (m.x * m.y) / s2, covariance.diagonal().cwiseSqrt()};
}

void print_row(const std::string& name, const Posterior& p) {
  std::printf("%-48s", name.c_str());
  for (Eigen::Index k = 0; k < p.mean.size(); ++k) std::printf("  %8.4f ± %6.4f", p.mean[k], p.sd[k]);
  std::printf("\n");
}

// Runs one chain from β = 0 and reports the posterior mean and sd of its
// draws. Sane: ran to the end, means within 0.5 posterior sd, sds within 30% (a demonstration; the
// statistical tests are in tests/).
template <class S, class P>
bool run_and_report(const std::string& name, const S& sampler, const P& potential, const Posterior& exact) {
  Chain chain(sampler, potential, VectorXd::Zero(exact.mean.size()), random::Stream(/*seed=*/7, /*stream=*/0));
  Draws draws;
  const ChainStatus status = chain.advance(60'000, Retention{/*burn_in=*/5'000, /*thin=*/5}, draws);
  if (!status.ok()) {
    std::printf("%-48s stopped: %s\n", name.c_str(), status.error.c_str());
    return false;
  }
  const MatrixXd d = draws.matrix();
  const VectorXd mean = d.colwise().mean();
  const VectorXd sd = ((d.rowwise() - mean.transpose()).colwise().squaredNorm() / double(d.rows() - 1)).cwiseSqrt();
  print_row(name, {mean, sd});
  return ((mean - exact.mean).array().abs() < 0.5 * exact.sd.array()).all() &&
         ((sd.array() / exact.sd.array() - 1.0).abs() < 0.3).all();
}

}  // namespace

int main() {
  const LinearRegression model = synthetic_data(/*n_examples=*/1000);
  const Posterior exact = exact_posterior(model);
  std::printf("Bayesian linear regression, N = %zu examples, batches of 100; posterior mean ± sd of beta:\n",
              model.size());
  print_row("exact (conjugate)", exact);

  bool ok = true;
  for (const models::Sampling sampling : {models::Sampling::without_replacement, models::Sampling::with_replacement}) {
    // models::minibatch sets the members of models::Minibatch (its scratch buffers need no initialiser).
    const models::Minibatch<LinearRegression> potential = models::minibatch(model, /*n=*/100, sampling);
    const std::string how = sampling == models::Sampling::with_replacement ? "with replacement" : "without replacement";

    // SGLD: the step must be small next to 1/λ_max(posterior precision) ≈ 1e-3, and small enough that
    // the minibatch noise h²V (V ≈ (N²/n)·Var of one example's gradient ≈ 1e4) stays below the
    // injected 2h: at h = 1e-5 it is 5% of it.
    const sgld::Sampler<Euclidean> sgld{Euclidean(3), schedule::StepSize::constant(1e-5)};
    ok &= run_and_report("sgld, " + how, sgld, potential, exact);

    // SGHMC. With replacement, with the empirical-Fisher noise estimate: V̂ per coordinate from each
    // batch's per-example gradients (SGHMC paper §3.2; Minibatch::gradient_and_variance), subtracted
    // from the injected noise. Without replacement, with none: the batch errors of one epoch sum to
    // zero, consecutive batches' noise largely cancels, and subtracting V̂ at every step would
    // over-correct (sds 10-12 % low here), so the library refuses the estimate for such batches.
    sghmc::Dynamics<Euclidean> dynamics{Euclidean(3), sghmc::Friction(100.0)};
    dynamics.empirical_fisher = sampling == models::Sampling::with_replacement;
    const sghmc::Sampler<Euclidean> sghmc{dynamics, splitting::aboba, schedule::StepSize::constant(0.005)};
    ok &= run_and_report(std::string(dynamics.empirical_fisher ? "sghmc (empirical Fisher), " : "sghmc (no noise estimate), ") + how,
                         sghmc, potential, exact);
  }
  std::printf(ok ? "estimates agree with the exact posterior\n" : "ESTIMATES ARE OFF\n");
  return ok ? 0 : 1;
}
