// The glm model under the library's gradient estimators (models/control_variate.hpp, svrg.hpp,
// saga.hpp): each is a potential on it, and over one epoch of batches drawn without replacement the
// plain minibatch and the control-variate estimates average to the exact gradient (each example
// enters once), whatever the family's auxiliary parameters.
#include <cmath>
#include <random>

#include <doctest/doctest.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace glm_estimators {

using namespace sgmcmc;
using namespace sgmcmc::models::glm;

static_assert(Potential<models::Minibatch<Glm>, Eigen::VectorXd> && PotentialWithValue<models::Minibatch<Glm>, Eigen::VectorXd>);
static_assert(Potential<models::ControlVariate<Glm>, Eigen::VectorXd> && PotentialWithValue<models::ControlVariate<Glm>, Eigen::VectorXd>);
static_assert(Potential<models::Svrg<Glm>, Eigen::VectorXd> && PotentialWithAfterStep<models::Svrg<Glm>, random::Stream>);
static_assert(Potential<models::Saga<Glm>, Eigen::VectorXd>);
static_assert(!models::ControlVariate<Glm>::scalar_centre);  // aux parameters: a vector centre (model.hpp)

namespace {
GlmData regression(Eigen::Index N) {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> z;
  GlmData d;
  d.x.resize(2, N);
  d.y.resize(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    d.x(0, i) = 2 + z(gen), d.x(1, i) = z(gen);
    d.y[i] = 1 + 0.4 * d.x(0, i) - 0.3 * d.x(1, i) + 0.5 * z(gen);
  }
  return d;
}
}  // namespace

// Would catch: a batch scale that is not N/n for this model, the aux block's gradient dropped or
// double-counted on the batch path, a control variate whose correction does not cancel over an epoch.
// Tolerance: sums of 60 terms of size ≤ 50 in another order, 1e-11 relative to the gradient's scale.
TEST_CASE("glm estimators: one epoch of minibatch or control-variate gradients averages to the exact gradient") {
  const Eigen::Index N = 60;
  const std::size_t n = 15;  // 4 batches an epoch
  GlmPriors priors;
  priors.b = {parse_prior("normal(0, 3)"), parse_prior("normal(0, 3)")};
  priors.aux = {parse_prior("student_t(3, 0, 2)"), parse_prior("gamma(2, 0.1)")};
  const auto base = models::minibatch(make_glm(regression(N), make_family("student"), priors), n, models::Sampling::without_replacement);
  const Eigen::VectorXd theta{{0.9, 0.3, -0.2, -0.4, 1.1}};
  Eigen::VectorXd exact;
  base.exact_gradient(theta, exact);
  const auto cv = models::ControlVariate<Glm>::at(base, Eigen::VectorXd{{1.0, 0.4, -0.3, -0.6, 1.5}});
  Eigen::VectorXd mean_mb = Eigen::VectorXd::Zero(5), mean_cv = Eigen::VectorXd::Zero(5), g;
  random::Stream rng_mb(8, 0), rng_cv(8, 0);
  for (int b = 0; b < 4; ++b) {
    base.gradient(theta, g, rng_mb);
    mean_mb += g / 4;
    cv.gradient(theta, g, rng_cv);
    mean_cv += g / 4;
  }
  const double scale = 1e-11 * (1 + exact.cwiseAbs().maxCoeff());
  CHECK((mean_mb - exact).cwiseAbs().maxCoeff() <= scale);
  CHECK((mean_cv - exact).cwiseAbs().maxCoeff() <= scale);
  // SAGA's and SVRG's first gradients are finite and of the model's size.
  models::Saga<Glm> saga(models::minibatch(base.model, n, models::Sampling::with_replacement));  // saga's only order
  random::Stream rng_saga(8, 0);
  saga.gradient(theta, g, rng_saga);
  CHECK(g.size() == 5);
  CHECK(g.allFinite());
}

}  // namespace glm_estimators
