// The glm families (models/glm/family.hpp): every (family, link) pair's derivatives against central
// finite differences of its log-likelihood, its log-likelihood against R's density functions, and the
// discrete families' probabilities summing to one (every constant kept).
#include <array>
#include <cmath>
#include <span>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/any_family.hpp>

#include "finite_difference.hpp"

namespace sgmcmc::test_glm {
namespace {

using namespace sgmcmc::models::glm;

struct Point {
  double y, trials, eta;
  std::array<double, 2> u;  ///< the unconstrained auxiliaries (those the family has)
};

/// Points inside each pair's support: responses of the family's kind, linear predictors in the link's
/// domain (η > 0 for identity and inverse means), auxiliaries on both sides of 0 (parameters below and
/// above 1).
template <class F>
std::vector<Point> points() {
  const std::string_view family = F::name, link = F::link_name;
  std::vector<double> ys, etas = {-2.3, -0.4, 0.7, 3.1};
  std::vector<double> trials = {1};
  if (link == "identity" && family != "gaussian" && family != "student") etas = {0.4, 2.5, 9.0};
  if (link == "inverse") etas = {0.2, 1.1, 3.0};
  if (link == "sqrt") etas = {-1.5, 0.6, 3.0};
  if (family == "bernoulli") ys = {0, 1};
  else if (family == "binomial") ys = {0, 3, 7}, trials = {7};
  else if (family == "poisson" || family == "negative_binomial") ys = {0, 3, 17};
  else if (family == "gamma") ys = {0.3, 1.7, 6.0};
  else ys = {-1.2, 0.3, 4.0};
  const std::vector<std::array<double, 2>> us = {{-0.7, 1.3}, {0.8, -0.4}, {1.9, 0.6}};
  std::vector<Point> out;
  for (double n : trials)
    for (double y : ys)
      for (double eta : etas)
        for (const auto& u : us) out.push_back({y, n, eta, u});
  return out;
}

}  // namespace

// Would catch: a wrong sign or factor in ∂ℓ/∂η (a link's chain rule, a residual's sign), a wrong
// auxiliary derivative (the log scale's factor aux, a ψ term), a probit tail formula off by a term.
TEST_CASE_TEMPLATE_DEFINE("glm family: derivatives match central differences of the log-likelihood", F, glm_family_fd) {
  constexpr std::size_t A = aux_count<F>;
  const F family{};
  for (const Point& pt : points<F>()) {
    CAPTURE(F::name);
    CAPTURE(F::link_name);
    CAPTURE(pt.y);
    CAPTURE(pt.trials);
    CAPTURE(pt.eta);
    CAPTURE(pt.u[0]);
    CAPTURE(pt.u[1]);
    const std::span<const double> u(pt.u.data(), A);
    const auto p = family.params(u);
    std::array<double, 2> d_aux{0, 0};
    const double d_eta = family.gradient(p, pt.y, pt.trials, pt.eta, std::span<double>(d_aux.data(), A));
    const auto by_eta = central_difference([&](double e) { return family.log_lik(p, pt.y, pt.trials, e); }, pt.eta);
    CHECK(std::isfinite(d_eta));
    CHECK(std::abs(d_eta - by_eta.derivative) <= by_eta.tolerance);
    for (std::size_t k = 0; k < A; ++k) {
      CAPTURE(k);
      const auto by_u = central_difference(
          [&](double v) {
            std::array<double, 2> w = pt.u;
            w[k] = v;
            return family.log_lik(family.params(std::span<const double>(w.data(), A)), pt.y, pt.trials, pt.eta);
          },
          pt.u[k]);
      CHECK(std::abs(d_aux[k] - by_u.derivative) <= by_u.tolerance);
    }
  }
}
template <class V>
struct AsTuple;
template <class... F>
struct AsTuple<std::variant<F...>> {
  using type = std::tuple<F...>;
};
TEST_CASE_TEMPLATE_APPLY(glm_family_fd, AsTuple<AnyFamily>::type);

namespace {
template <class F>
double log_lik(double y, double trials, double eta, std::array<double, 2> u = {0, 0}) {
  const F f{};
  return f.log_lik(f.params(std::span<const double>(u.data(), aux_count<F>)), y, trials, eta);
}
}  // namespace

// Would catch: a dropped constant (log y!, log C(n, y), ½ log 2π, the t's normaliser), a mean or scale
// parametrised differently from Stan's and brms's (the gamma's rate α/μ, neg_binomial_2's φ).
// Reference values: R 4 (stats), printed with sprintf("%.17g"); agreement to 1e-13 relative, the
// rounding of a few log/lgamma terms.
TEST_CASE("glm family: log-likelihoods equal R's densities") {
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-13 * std::max(1.0, std::abs(b)); };
  CHECK(near(log_lik<Bernoulli<Logit>>(1, 1, 0.3), -0.55435524446852702));      // dbinom(1, 1, plogis(0.3), log=TRUE)
  CHECK(near(log_lik<Bernoulli<Probit>>(0, 1, -1.2), -0.12224636048741773));    // dbinom(0, 1, pnorm(-1.2), log=TRUE)
  CHECK(near(log_lik<Bernoulli<Cloglog>>(1, 1, 0.4), -0.25484295219866177));    // dbinom(1, 1, 1-exp(-exp(0.4)), log=TRUE)
  CHECK(near(log_lik<Binomial<Logit>>(3, 7, -0.5), -1.2631908277713333));       // dbinom(3, 7, plogis(-0.5), log=TRUE)
  CHECK(near(log_lik<Binomial<Probit>>(2, 5, 0.7), -2.5083660761548119));       // dbinom(2, 5, pnorm(0.7), log=TRUE)
  CHECK(near(log_lik<Binomial<Cloglog>>(4, 6, -0.3), -1.3641687938360816));     // dbinom(4, 6, 1-exp(-exp(-0.3)), log=TRUE)
  CHECK(near(log_lik<Poisson<Log>>(4, 1, 1.1), -1.7822198542943788));           // dpois(4, exp(1.1), log=TRUE)
  CHECK(near(log_lik<Poisson<Identity>>(3, 1, 2.5), -1.5428872736055899));      // dpois(3, 2.5, log=TRUE)
  CHECK(near(log_lik<Poisson<Sqrt>>(5, 1, 1.3), -3.8538490981071352));          // dpois(5, 1.3^2, log=TRUE)
  // dnbinom(6, size=exp(0.7), mu=exp(1.2), log=TRUE)
  CHECK(near(log_lik<NegativeBinomial<Log>>(6, 1, 1.2, {0.7, 0}), -2.8382440549504091));
  CHECK(near(log_lik<Gaussian<Identity>>(1.4, 1, 0.3, {-0.2, 0}), -1.6214924752776412));  // dnorm(1.4, 0.3, exp(-0.2), log=TRUE)
  CHECK(near(log_lik<Gaussian<Log>>(1.4, 1, 0.3, {0.5, 0}), -1.4194009832625327));        // dnorm(1.4, exp(0.3), exp(0.5), log=TRUE)
  // dt((2.1-0.4)/exp(0.3), df=exp(1.5), log=TRUE) - 0.3
  CHECK(near(log_lik<Student<Identity>>(2.1, 1, 0.4, {0.3, 1.5}), -2.1047272605483789));
  // dgamma(2.2, shape=exp(0.8), rate=exp(0.8)*0.6, log=TRUE): mean 1/0.6, η = 0.6 on the inverse link
  CHECK(near(log_lik<Gamma<Inverse>>(2.2, 1, 0.6, {0.8, 0}), -1.438893065900317));
  // dgamma(0.7, shape=exp(-0.4), rate=exp(-0.4)/exp(0.9), log=TRUE): mean e^0.9 on the log link
  CHECK(near(log_lik<Gamma<Log>>(0.7, 1, 0.9, {-0.4, 0}), -1.242954387865753));
}

// Would catch: a missing normalising constant in a discrete family (the probabilities would sum to
// e^c ≠ 1). The tails left out are below 10⁻¹⁵: Poisson means ≤ 12 summed to 400; negative binomial
// means ≤ 12 with φ ≥ 0.5 summed to 3000, whose terms fall like (μ/(μ + φ))ʸ ≤ 0.957ʸ (e⁻¹³² at 3000).
TEST_CASE("glm family: the discrete families' probabilities sum to one") {
  const auto total = [](auto f, double n, double eta, std::array<double, 2> u, double top) {
    using F = decltype(f);
    double s = 0;
    for (double y = 0; y <= top; ++y) s += std::exp(log_lik<F>(y, n, eta, u));
    return s;
  };
  for (double eta : {-1.5, 0.2, 2.4}) {
    CAPTURE(eta);
    CHECK(std::abs(total(Bernoulli<Probit>{}, 1, eta, {}, 1) - 1) < 1e-14);
    CHECK(std::abs(total(Binomial<Cloglog>{}, 9, eta, {}, 9) - 1) < 1e-14);
    CHECK(std::abs(total(Poisson<Log>{}, 1, eta, {}, 400) - 1) < 1e-13);
    CHECK(std::abs(total(Poisson<Sqrt>{}, 1, eta, {}, 400) - 1) < 1e-13);
    for (double u : {-0.7, 0.0, 1.5}) CHECK(std::abs(total(NegativeBinomial<Log>{}, 1, eta, {u, 0}, 3000) - 1) < 1e-12);
  }
}

// Would catch: a count or positive family evaluated at a non-positive mean without notice (a finite ℓ
// there would let a chain wander outside the model).
TEST_CASE("glm family: outside the support the log-likelihood is -inf and the gradient NaN") {
  std::array<double, 2> d{};
  CHECK(log_lik<Poisson<Identity>>(2, 1, -0.5) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(Poisson<Identity>::gradient({}, 2, 1, -0.5, {})));
  CHECK(log_lik<Gamma<Inverse>>(1.5, 1, -0.2, {0.3, 0}) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(Gamma<Inverse>::gradient(Gamma<Inverse>::params(std::span<const double>(d.data(), 1)), 1.5, 1, -0.2,
                                            std::span<double>(d.data(), 1))));
}

// Would catch: a link whose tail evaluation overflows or cancels (log(1 − Φ(η)) as log of a rounded
// difference; e^{1000}): the log-likelihood and its derivative stay finite and right far out.
TEST_CASE("glm family: binary links stay finite in the tails") {
  // pnorm(-40, log.p=TRUE) = -804.6084420137538; dnorm(-40)/pnorm(-40) via logs = 40.024968847206338
  CHECK(std::abs(log_lik<Bernoulli<Probit>>(1, 1, -40) + 804.6084420137538) < 1e-12 * 804.6);
  CHECK(std::abs(Probit::d_log_p(-40) - 40.024968847206338) < 1e-9 * 40);
  CHECK(std::abs(log_lik<Bernoulli<Probit>>(0, 1, 40) + 804.6084420137538) < 1e-12 * 804.6);
  CHECK(std::abs(log_lik<Bernoulli<Logit>>(0, 1, 800) + 800) < 1e-12 * 800);
  CHECK(Logit::d_log_q(800) == -1.0);
  CHECK(log_lik<Bernoulli<Cloglog>>(1, 1, -800) == -800.0);  // log(1 − exp(−e^{−800})) = −800 − e^{−800}/2 + …
  CHECK(Cloglog::d_log_p(-800) == 1.0);
  CHECK(Cloglog::d_log_p(7) == 0.0);  // e^7 ≈ 1097 > 700: t/expm1(t) below 10⁻³⁰⁰
}

}  // namespace sgmcmc::test_glm

namespace sgmcmc::test_glm {

static_assert(BatchGlmFamily<Bernoulli<Logit>> && BatchGlmFamily<Binomial<Logit>> && BatchGlmFamily<Poisson<Log>> &&
              BatchGlmFamily<Gaussian<Identity>>);
static_assert(!BatchGlmFamily<Bernoulli<Probit>> && !BatchGlmFamily<Poisson<Sqrt>> && !BatchGlmFamily<Gaussian<Log>> &&
              !BatchGlmFamily<Student<Identity>>);

// Would catch: a vectorised batch derivative that is not the per-example one (a sign, the trials'
// factor, the aux sum's count of −1s). Tolerance: the same formula rounded in another order, 1e-14
// relative to the terms' size.
TEST_CASE_TEMPLATE("glm family: the vectorised batch derivative equals the per-example one", F, Bernoulli<Logit>, Binomial<Logit>,
                   Poisson<Log>, Gaussian<Identity>) {
  const std::vector<Point> pts = points<F>();
  const auto n = static_cast<Eigen::Index>(pts.size());
  Eigen::VectorXd y(n), t(n), eta(n), each(n);
  constexpr std::size_t A = aux_count<F>;
  const std::array<double, 2> u{0.4, 0};
  const F f{};
  const auto p = f.params(std::span<const double>(u.data(), A));
  std::array<double, 2> aux_each{0, 0}, aux_batch{0, 0};
  double aux_size = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    const Point& q = pts[static_cast<std::size_t>(j)];
    y[j] = q.y, t[j] = q.trials, eta[j] = q.eta;
    std::array<double, 2> one{0, 0};
    each[j] = f.gradient(p, q.y, q.trials, q.eta, std::span<double>(one.data(), A));
    aux_each[0] += one[0];
    aux_size += std::abs(one[0]) + 1;
  }
  f.gradient_batch(p, y, t, eta, std::span<double>(aux_batch.data(), A));
  CHECK(((eta - each).array().abs() <= 1e-14 * (1 + each.array().abs())).all());
  CHECK(std::abs(aux_batch[0] - aux_each[0]) <= 1e-14 * aux_size);
}

}  // namespace sgmcmc::test_glm
