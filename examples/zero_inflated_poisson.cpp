// A model of your own written once, its gradients by automatic differentiation (models/autodiff/): a
// zero-inflated Poisson regression, which none of the shipped targets covers (the glm target's families
// have no zero inflation). A count is a structural zero with probability π, else Poisson(λ_i):
//   p(0 | x_i) = π + (1 − π) e^{−λ_i},   p(y | x_i) = (1 − π) λ_iʸ e^{−λ_i} / y!  (y ≥ 1),
//   log λ_i = η_i = x_iᵀβ,   π = σ(φ)   (Lambert 1992, "Zero-inflated Poisson regression").
// The user writes log p(y_i | η_i, φ) and log p(β, φ) once, generic over the scalar type; the library
// forms η for a batch by one matrix product and differentiates the log-likelihood by a dual number on
// (η_i, φ). SGHMC samples the posterior with the control-variate gradient (centred at the mode, found by
// L-BFGS on the exact U and ∇U the same model supplies).
//
// Checks its own result: the chain's posterior mean is within 4 Monte Carlo standard errors plus a
// tenth of a posterior sd of the mode (for N = 20,000 the posterior is close to Gaussian, so mean and
// mode differ by far less than that tenth), its sds within 25 % of the Laplace approximation's (the
// inverse Hessian of U at the mode, by central differences of the exact gradient), and the generating
// parameters within 4 posterior sds of the mean (coverage the posterior must have; a wrong gradient
// puts the chain elsewhere). Exits 1 otherwise.
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/autodiff/linear_predictor.hpp>
#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/diagnostics/ess.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

using namespace sgmcmc;
namespace ad = sgmcmc::models::autodiff;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The model, written once: θ = (β, φ) with one global parameter φ = logit π. `log_likelihood` is called
// with T = double (values, LOO) and with dual numbers (gradients); the library's helpers (softplus,
// log_sigmoid, log_sum_exp) take both and are exact in the tails.
struct ZeroInflatedPoisson {
  static constexpr int globals = 1;
  std::shared_ptr<const VectorXd> y;  ///< the counts (shared by every copy of the model)

  template <class T>
  T log_likelihood(std::size_t i, const T& eta, const std::array<T, 1>& phi) const {
    using std::exp;
    const double yi = (*y)[static_cast<Eigen::Index>(i)];
    const T log_pi = ad::log_sigmoid(phi[0]), log_not_pi = ad::log_sigmoid(-phi[0]);
    if (yi == 0) return ad::log_sum_exp(log_pi, log_not_pi - exp(eta));
    return log_not_pi + yi * eta - exp(eta) - std::lgamma(yi + 1);
  }
  // β_k ~ N(0, 5²), φ ~ N(0, 2.5²), independent (a CoordinatePrior: one dual per coordinate).
  template <class T>
  T log_prior(std::size_t k, const T& t) const {
    const double sd = k < 3 ? 5.0 : 2.5;
    return -0.5 * t * t / (sd * sd);
  }
};
static_assert(ad::LinearPredictorSpec<ZeroInflatedPoisson>);

constexpr double true_pi = 0.3;
const VectorXd true_beta{{0.5, 0.4, -0.3}};

/// N examples: an intercept and two N(0, 1) covariates; y a structural zero with probability π, else
/// Poisson(e^{x_iᵀβ}); from the library's counter-based stream (reproducible).
ad::LinearPredictorModel<ZeroInflatedPoisson> synthetic(Eigen::Index n) {
  random::Stream rng(/*seed=*/42, /*stream=*/0);
  MatrixXd x(3, n);
  VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x(0, i) = 1.0, x(1, i) = rng.normal(), x(2, i) = rng.normal();
    const double lambda = std::exp(x.col(i).dot(true_beta));
    y[i] = rng.uniform() < true_pi ? 0.0 : static_cast<double>(random::poisson(rng, lambda));
  }
  return ad::linear_predictor_model(ZeroInflatedPoisson{std::make_shared<const VectorXd>(std::move(y))}, std::move(x));
}

}  // namespace

int main() {
  const auto model = synthetic(20000);
  const auto base = models::minibatch(model, /*n=*/100, models::Sampling::with_replacement);

  // The mode (the control variate's centre) and the Laplace sds there.
  const optimize::Mode mode = optimize::find_mode(base, VectorXd::Zero(4));
  const double h_fd = 1e-5;
  MatrixXd hessian(4, 4);
  for (Eigen::Index k = 0; k < 4; ++k) {
    VectorXd a = mode.x, b = mode.x, ga(4), gb(4);
    a[k] += h_fd, b[k] -= h_fd;
    base.exact_gradient(a, ga), base.exact_gradient(b, gb);
    hessian.col(k) = (ga - gb) / (2 * h_fd);
  }
  const VectorXd laplace_sd = MatrixXd(hessian.inverse()).diagonal().cwiseSqrt();

  // SGHMC on the control-variate gradient: steps small next to the narrowest sd (about 0.01).
  const auto potential = models::ControlVariate<ad::LinearPredictorModel<ZeroInflatedPoisson>>::at(base, mode.x);
  const sghmc::Sampler<Euclidean> sampler{{Euclidean(4), sghmc::Friction(50.0)}, splitting::aboba, schedule::StepSize::constant(0.002)};
  Chain chain(sampler, potential, mode.x, random::Stream(/*seed=*/7, /*stream=*/0));
  Draws draws;
  const ChainStatus status = chain.advance(60'000, Retention{/*burn_in=*/2'000, /*thin=*/2}, draws);
  if (!status.ok()) {
    std::printf("the chain stopped: %s\n", status.error.c_str());
    return 1;
  }
  const MatrixXd d = draws.matrix();
  const VectorXd mean = d.colwise().mean();
  const VectorXd sd = ((d.rowwise() - mean.transpose()).colwise().squaredNorm() / double(d.rows() - 1)).cwiseSqrt();
  const VectorXd truth{{true_beta[0], true_beta[1], true_beta[2], std::log(true_pi / (1 - true_pi))}};

  const char* names[] = {"beta_intercept", "beta_1", "beta_2", "logit_pi"};
  std::printf("zero-inflated Poisson, N = %zu, SGHMC + control variates (%zu draws)\n", model.size(), static_cast<std::size_t>(d.rows()));
  std::printf("%-15s %9s %9s %9s %9s %9s %9s\n", "parameter", "truth", "mode", "mean", "mcse", "sd", "laplace");
  bool ok = true;
  for (Eigen::Index k = 0; k < 4; ++k) {
    const double mcse = diagnostics::mcse_mean({VectorXd(d.col(k))});
    std::printf("%-15s %9.4f %9.4f %9.4f %9.5f %9.4f %9.4f\n", names[k], truth[k], mode.x[k], mean[k], mcse, sd[k], laplace_sd[k]);
    ok &= std::abs(mean[k] - mode.x[k]) <= 4 * mcse + 0.1 * laplace_sd[k];
    ok &= std::abs(sd[k] / laplace_sd[k] - 1) <= 0.25;
    ok &= std::abs(mean[k] - truth[k]) <= 4 * sd[k];
  }
  std::printf(ok ? "the chain agrees with the mode, the Laplace sds and the generating parameters\n" : "ESTIMATES ARE OFF\n");
  return ok ? 0 : 1;
}
