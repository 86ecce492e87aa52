// The special functions of models/glm/special.hpp against R's values (R 4, sprintf("%.17g")).
#include <algorithm>
#include <cmath>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/special.hpp>

#include "finite_difference.hpp"

namespace sgmcmc::test_glm {

using namespace sgmcmc::models::glm;

// Would catch: a wrong Bernoulli coefficient or a recurrence off by one in ψ (the shape parameters'
// gradients), and ψ disagreeing with the derivative of std::lgamma it stands for.
TEST_CASE("glm special: digamma equals R's and the derivative of lgamma") {
  // Below 10, up to 10 recurrence terms 1/(x + k) are added, each sum rounded to half an ulp of a total
  // under |ψ(x)| + 2.5 (the terms 1/(x + k) beyond the first sum to < 2.5 here): 10 · 2⁻⁵³ · (|ψ| + 2.5)
  // bounds the rounding, below 1e-14 · max(1, |ψ|) for these points; the series' truncation is < 5e-17.
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-14 * std::max(1.0, std::abs(b)); };
  CHECK(near(digamma(1), -0.57721566490153231));  // digamma(1)
  CHECK(near(digamma(0.5), -1.9635100260214231));  // digamma(0.5)
  CHECK(near(digamma(3.7), 1.1671535393615113));   // digamma(3.7)
  CHECK(near(digamma(0.01), -100.56088545786866));  // digamma(0.01)
  CHECK(near(digamma(25), 3.198742512851974));     // digamma(25)
  for (double x : {0.3, 1.7, 9.99, 10.01, 140.0}) {
    CAPTURE(x);
    const auto d = central_difference([](double v) { return std::lgamma(v); }, x, 1e-4 * x);
    CHECK(std::abs(digamma(x) - d.derivative) <= d.tolerance);
  }
  CHECK(std::isnan(digamma(0)));
}

// Would catch: log Φ computed as log of a rounded Φ (−inf below −38, 0 above 8.3), and the asymptotic
// branch joining the direct one with a jump.
TEST_CASE("glm special: log normal CDF and Mills ratio in the body and the tails") {
  CHECK(std::abs(log_normal_cdf(-40) - -804.6084420137538) < 1e-13 * 804.6);  // pnorm(-40, log.p=TRUE)
  CHECK(std::abs(log_normal_cdf(-10) - -53.23128515051247) < 1e-13 * 53.2);   // pnorm(-10, log.p=TRUE)
  CHECK(std::abs(log_normal_cdf(5) - -2.8665161296376358e-07) < 1e-13 * 2.87e-7);  // pnorm(5, log.p=TRUE)
  CHECK(std::abs(normal_mills(-3) - 3.2830986549304368) < 1e-14 * 3.3);        // dnorm(-3)/pnorm(-3)
  CHECK(std::abs(normal_mills(-40) - 40.024968847206338) < 1e-9 * 40);         // exp(dnorm(-40,log=T) - pnorm(-40,log.p=T))
  // Either side of the switch at −37.5: the series' first omitted term (105/x⁸ ≈ 4·10⁻¹¹) bounds the gap.
  CHECK(std::abs(log_normal_cdf(std::nextafter(normal_tail, 0.0)) - log_normal_cdf(normal_tail)) < 1e-10 * 700);
  CHECK(std::abs(normal_mills(std::nextafter(normal_tail, 0.0)) / normal_mills(normal_tail) - 1) < 1e-10);
}

// Would catch: the continued fraction's two branches swapped or a wrong prefactor (the half-Student-t
// prior's normaliser).
TEST_CASE("glm special: incomplete beta and the Student-t upper tail") {
  CHECK(std::abs(incomplete_beta(2.5, 0.7, 0.3) - 0.029814024845250447) < 1e-14);  // pbeta(0.3, 2.5, 0.7)
  CHECK(std::abs(student_t_upper(0.7, 4.5) - 0.25921980115580906) < 1e-14);        // pt(0.7, 4.5, lower.tail=FALSE)
  CHECK(std::abs(student_t_upper(-1.9, 2.2) - 0.90693239926430702) < 1e-14);       // pt(-1.9, 2.2, lower.tail=FALSE)
  CHECK(student_t_upper(0, 3) == doctest::Approx(0.5).epsilon(1e-15));
}

}  // namespace sgmcmc::test_glm
