// Statistical test of the glm model under a sampler: a Gaussian linear regression whose posterior is
// known in closed form, sampled by HMC with its Metropolis test (samplers/hmc.hpp; exact in
// distribution, so no discretisation allowance), on the unconstrained θ = (α_c, b, log σ) and reported
// through Glm::constrained. Checks the Jacobian of log σ and the centring together, as a run sees them.
// Fixed seed; tolerances are multiples of a batch-means Monte Carlo standard error, never tuned.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <doctest/doctest.h>

#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/diagnostics/testing.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/hmc.hpp>

namespace glm_posterior_stat {  // this file's names: its group compiles as one translation unit

using namespace sgmcmc;
using namespace sgmcmc::models::glm;

// y_i = α + β x_i + σ ε_i, n = 40, x with mean 3 (so that centring matters), flat priors on α_c, β and σ
// (brms's defaults but for σ's). With k = 2 coefficients, X the n × k design and the OLS fit θ̂, RSS:
//   p(θ, σ | y) ∝ σ⁻ⁿ exp(−(RSS + (θ − θ̂)ᵀXᵀX(θ − θ̂))/(2σ²)),
// θ integrates out to σᵏ, so p(σ | y) ∝ σ^{−(n−k)} exp(−RSS/(2σ²)): σ² ~ Inv-Gamma(a, b) with
// a = (n − k − 1)/2, b = RSS/2, and E[σ] = √b Γ(a − ½)/Γ(a); θ | y is a multivariate t centred at θ̂, so
// E[b_Intercept] = α̂ and E[b_x] = β̂ (the OLS fit on the original design). A Jacobian left out would give
// a = (n − k)/2 (E[σ] 1.3 % lower here: 20 MCSEs); an intercept reported on the centred design would be
// off by β̂·x̄ ≈ 1.5.
TEST_CASE("glm posterior (HMC): a Gaussian regression's sigma, intercept and slope have their closed-form means") {
  const Eigen::Index n = 40;
  std::mt19937_64 gen(2024);
  std::normal_distribution<double> z;
  GlmData d;
  d.x.resize(1, n);
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    d.x(0, i) = 3 + z(gen);
    d.y[i] = 1 + 0.5 * d.x(0, i) + 0.8 * z(gen);
  }
  d.predictors = {"x"};
  Eigen::MatrixXd X(n, 2);
  X.col(0).setOnes();
  X.col(1) = d.x.row(0).transpose();
  const Eigen::VectorXd ols = X.colPivHouseholderQr().solve(d.y);
  const double rss = (d.y - X * ols).squaredNorm();
  const double a = 0.5 * (static_cast<double>(n) - 2 - 1), b = 0.5 * rss;
  const double mean_sigma = std::sqrt(b) * std::exp(std::lgamma(a - 0.5) - std::lgamma(a));

  const auto potential = models::minibatch(make_glm(d, make_family("gaussian")), 10, models::Sampling::with_replacement);
  // The posterior sds are about 0.13 in α_c and β and 0.11 in log σ: 10 leapfrog steps of 0.04 cross
  // about three of them per trajectory, with a high acceptance rate.
  const hmc::Sampler<Euclidean> sampler{Euclidean(3), schedule::StepSize::constant(0.04), 10};
  Chain chain(sampler, potential, Eigen::VectorXd::Zero(3), random::Stream(17, 0));
  Draws draws;
  const long kept = 100'000;
  REQUIRE(chain.advance(1000 + kept, Retention{1000, 1}, draws).ok());
  REQUIRE(static_cast<long>(draws.values.size()) == 3 * kept);
  // Batch means over 50 batches of 2000 draws (each far longer than the chain's autocorrelation).
  std::vector<testing::BatchMeans> m(3, testing::BatchMeans(kept, 50));
  for (long t = 0; t < kept; ++t) {
    const Eigen::VectorXd theta = Eigen::Map<const Eigen::VectorXd>(draws.values.data() + 3 * t, 3);
    const Eigen::VectorXd r = potential.model.reported(theta);
    for (int j = 0; j < 3; ++j) m[static_cast<std::size_t>(j)].add(r[j]);
  }
  const double truth[3] = {ols[0], ols[1], mean_sigma};
  const std::string names[3] = {"b_Intercept", "b_x", "sigma"};
  for (int j = 0; j < 3; ++j) {
    const auto e = m[static_cast<std::size_t>(j)].result();
    MESSAGE(names[j], ": mean ", e.mean, " ± ", e.se, " (closed form ", truth[j], ")");
    CHECK(std::abs(e.mean - truth[j]) <= 4 * e.se);
  }
}

}  // namespace glm_posterior_stat
