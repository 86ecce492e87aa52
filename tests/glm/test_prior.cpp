// The glm priors (models/glm/prior.hpp): densities against R's, derivatives against central finite
// differences, the half versions' normalisers, and the parser's errors.
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/prior.hpp>

#include "finite_difference.hpp"

namespace sgmcmc::test_glm {

using namespace sgmcmc::models::glm;

namespace {
bool near(double a, double b) { return std::abs(a - b) <= 1e-13 * std::max(1.0, std::abs(b)); }
}  // namespace

// Would catch: a dropped normalising constant or a parameter read in another order than brms's
// (student_t(nu, mu, sigma), gamma(shape, rate)). Values: R 4, sprintf("%.17g").
TEST_CASE("glm prior: log densities equal R's") {
  CHECK(near(log_density(parse_prior("normal(0.2, 1.5)"), 0.7), -1.3799591968683926));  // dnorm(0.7, 0.2, 1.5, log=TRUE)
  // dt((0.7-0.2)/2.5, df=3, log=TRUE) - log(2.5)
  CHECK(near(log_density(parse_prior("student_t(3, 0.2, 2.5)"), 0.7), -1.9436700349977061));
  CHECK(near(log_density(parse_prior("cauchy(0.5, 2)"), -1.3), -2.4312039116870796));   // dcauchy(-1.3, 0.5, 2, log=TRUE)
  CHECK(near(log_density(parse_prior("laplace(1.1, 1.5)"), 0.4), -1.5652789553347766)); // log(0.5/1.5) - abs(0.4-1.1)/1.5
  CHECK(near(log_density(parse_prior("exponential(2.5)"), 0.8), -1.0837092681258449));  // dexp(0.8, 2.5, log=TRUE)
  CHECK(near(log_density(parse_prior("gamma(2.5, 0.8)"), 1.7), -1.4065993721651879));   // dgamma(1.7, shape=2.5, rate=0.8, log=TRUE)
  CHECK(log_density(parse_prior("flat"), 123.0) == 0.0);
  CHECK(log_density(parse_prior("exponential(1)"), -0.1) == -std::numeric_limits<double>::infinity());
}

// Would catch: a half prior normalised by 2 whatever its location (right only at μ = 0), or by the
// wrong tail. Values: the density minus R's log P(X > 0).
TEST_CASE("glm prior: half versions on a positive parameter are normalised on (0, inf)") {
  const auto half = [](const char* text, double x) {
    const Prior p = parse_prior(text);
    return log_density(p, x) - log_upper_mass(p);
  };
  CHECK(near(half("normal(0, 2)", 1.3), -1.1301885332046728));  // dnorm(1.3, 0, 2, log=TRUE) + log(2)
  // dnorm(1.3, 0.5, 2, log=TRUE) - pnorm(0, 0.5, 2, lower.tail=FALSE, log.p=TRUE)
  CHECK(near(half("normal(0.5, 2)", 1.3), -1.1791016383551876));
  // dt((1.3-1)/2, df=3, log=TRUE) - log(2) - pt((0-1)/2, df=3, lower.tail=FALSE, log.p=TRUE)
  CHECK(near(half("student_t(3, 1, 2)", 1.3), -1.3148643295859332));
  // dcauchy(1.3, -1, 2, log=TRUE) - pcauchy(0, -1, 2, lower.tail=FALSE, log.p=TRUE)
  CHECK(near(half("cauchy(-1, 2)", 1.3), -1.6375793600531701));
  // log(0.5/1.5) - abs(1.3-0.4)/1.5 - log(1 - 0.5*exp(-0.4/1.5))
  CHECK(near(half("laplace(0.4, 1.5)", 1.3), -1.2157841045432582));
  CHECK(log_upper_mass(parse_prior("gamma(2, 1)")) == 0.0);
  // And numerically: ∫₀^∞ of the half density is 1 (trapezoid on u = log x, 40 000 panels over
  // [−30, 12]: error far below the 1e-6 asked; the tails beyond hold < 1e-7 for these scales).
  for (const char* text : {"normal(0.5, 2)", "student_t(4, -1, 1.5)", "laplace(-0.3, 0.7)"}) {
    CAPTURE(text);
    const Prior p = parse_prior(text);
    const double lo = -30, hi = 12;
    const int n = 40000;
    double s = 0;
    for (int k = 0; k <= n; ++k) {
      const double u = lo + (hi - lo) * k / n, w = (k == 0 || k == n) ? 0.5 : 1.0;
      s += w * std::exp(log_density(p, std::exp(u)) - log_upper_mass(p) + u);
    }
    CHECK(std::abs(s * (hi - lo) / n - 1) < 1e-6);
  }
}

// Would catch: a wrong sign or factor in a prior's derivative (the gradient the sampler follows).
TEST_CASE("glm prior: derivatives match central differences") {
  const std::vector<std::string> texts = {"normal(0.2, 1.5)", "student_t(3, 0.2, 2.5)", "cauchy(0.5, 2)", "laplace(1.1, 1.5)",
                                          "exponential(2.5)", "gamma(2.5, 0.8)", "flat"};
  for (const auto& text : texts) {
    const Prior p = parse_prior(text);
    for (double x : {0.3, 0.9, 2.7, 6.0}) {  // away from Laplace's kink at 1.1 by far more than 2δ
      CAPTURE(text);
      CAPTURE(x);
      const auto d = central_difference([&](double v) { return log_density(p, v); }, x);
      CHECK(std::abs(d_log_density(p, x) - d.derivative) <= d.tolerance);
    }
  }
}

// Would catch: a prior that cannot be written back as it was read (the run record keeps its text).
TEST_CASE("glm prior: to_string gives brms's text, which parses back to the same prior") {
  for (const char* text : {"normal(0, 10)", "student_t(3, 0, 2.5)", "cauchy(0, 2.5)", "laplace(-1, 0.5)", "exponential(1)",
                           "gamma(2, 0.1)", "flat"}) {
    CAPTURE(text);
    CHECK(to_string(parse_prior(text)) == text);
  }
  CHECK(to_string(parse_prior("  normal( 0 ,10 ) ")) == "normal(0, 10)");
  CHECK(to_string(parse_prior("normal(1e-3, 0.1)")) == "normal(0.001, 0.1)");
}

namespace {
std::string prior_error(const char* text) {
  try {
    parse_prior(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Would catch: a typo'd prior silently read as flat or as another distribution, and messages that do
// not say which text and what is wrong.
TEST_CASE("glm prior: parse errors name the text and the problem") {
  CHECK(prior_error("norml(0, 1)") ==
        "prior \"norml(0, 1)\": unknown distribution \"norml\" (expected normal, student_t, cauchy, laplace, exponential, gamma or flat)");
  CHECK(prior_error("normal(0)") == "prior \"normal(0)\": normal takes 2 arguments (mu, sigma), got 1");
  CHECK(prior_error("student_t(0, 1)") == "prior \"student_t(0, 1)\": student_t takes 3 arguments (nu, mu, sigma), got 2");
  CHECK(prior_error("normal(0, -1)") == "prior \"normal(0, -1)\": sigma must be positive, got -1");
  CHECK(prior_error("cauchy(0, 0)") == "prior \"cauchy(0, 0)\": sigma must be positive, got 0");
  CHECK(prior_error("exponential(-2)") == "prior \"exponential(-2)\": lambda must be positive, got -2");
  CHECK(prior_error("gamma(2, 0)") == "prior \"gamma(2, 0)\": beta must be positive, got 0");
  CHECK(prior_error("student_t(-3, 0, 1)") == "prior \"student_t(-3, 0, 1)\": nu must be positive, got -3");
  CHECK(prior_error("normal(0, x)") == "prior \"normal(0, x)\": argument 2 (\"x\") is not a finite number");
  CHECK(prior_error("normal(0, inf)") == "prior \"normal(0, inf)\": argument 2 (\"inf\") is not a finite number");
  CHECK(prior_error("normal 0, 1") == "prior \"normal 0, 1\": unknown distribution \"normal 0, 1\" (expected normal, student_t, cauchy, "
                                   "laplace, exponential, gamma or flat)");
  CHECK(prior_error("normal(0, 1") == "prior \"normal(0, 1\": expected normal(mu, sigma) with its arguments in parentheses");
  CHECK(prior_error("flat(1)") == "prior \"flat(1)\": flat takes no arguments (write flat)");
  CHECK(prior_error("") == "prior \"\": unknown distribution \"\" (expected normal, student_t, cauchy, laplace, exponential, gamma or flat)");
}

}  // namespace sgmcmc::test_glm
