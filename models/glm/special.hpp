#pragma once
// Special functions the glm families and priors need and the standard library lacks: the digamma
// function ψ = (log Γ)′ (the shape parameters' derivatives), the standard normal's log CDF and its Mills
// ratio φ/Φ (the probit link, in the tails where Φ underflows), softplus, log-sum-exp of two terms, and
// the regularised incomplete beta function (the Student-t CDF: the half-Student-t prior's truncation).
// Plain double functions, each exact to a few ulps where tested (tests/glm/test_special.cpp).
#include <cmath>
#include <limits>
#include <numbers>

namespace sgmcmc::models::glm {

/// ψ(x) = d/dx log Γ(x), x > 0: the recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then the asymptotic
/// series ψ(x) ~ log x − 1/(2x) − Σ_k B_{2k}/(2k x^{2k}) (Abramowitz & Stegun 6.3.18) to k = 7, whose
/// first omitted term, 3617/(8160 x¹⁶), is below 5·10⁻¹⁷ at x = 10.
inline double digamma(double x) {
  if (!(x > 0)) return std::numeric_limits<double>::quiet_NaN();
  double r = 0;
  while (x < 10) r -= 1 / x, x += 1;
  const double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12))))));
}

/// log(1 + eˣ) without overflow.
inline double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

/// log(eᵃ + eᵇ) without overflow.
inline double log_add_exp(double a, double b) {
  const double m = a > b ? a : b;
  if (m == -std::numeric_limits<double>::infinity()) return m;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

/// Below this x the direct forms of Φ(x) and φ(x) near the bottom of the double range (Φ(−37.5) ≈
/// 5·10⁻³⁰⁸): the asymptotic series takes over.
inline constexpr double normal_tail = -37.5;

/// The first terms of Φ(x)·|x|/φ(x) = 1 − 1/x² + 3/x⁴ − 15/x⁶ + … (A&S 26.2.12), x → −∞; the first omitted
/// term, 105/x⁸, is below 2·10⁻¹¹ where it is used (x < −37.5).
inline double normal_tail_series(double x) {
  const double f = 1 / (x * x);
  return 1 - f * (1 - f * (3 - 15 * f));
}

/// log Φ(x), Φ the standard normal CDF: log1p(−Φ(−x)) above 0 (no rounding of Φ near 1), log(erfc/2)
/// down to the tail, the asymptotic series below.
inline double log_normal_cdf(double x) {
  if (x > 0) return std::log1p(-0.5 * std::erfc(x / std::numbers::sqrt2));
  if (x > normal_tail) return std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));
  return -0.5 * x * x - 0.5 * std::log(2 * std::numbers::pi) - std::log(-x) + std::log(normal_tail_series(x));
}

/// φ(x)/Φ(x) = d/dx log Φ(x), the inverse Mills ratio; −x/(series) in the far tail.
inline double normal_mills(double x) {
  if (x > normal_tail) {
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    return phi / (0.5 * std::erfc(-x / std::numbers::sqrt2));
  }
  return -x / normal_tail_series(x);
}

/// The continued fraction of the incomplete beta function (Numerical Recipes 3rd ed. §6.4, `betacf`, by
/// the modified Lentz method), converging fast for x < (a + 1)/(a + b + 2).
inline double incomplete_beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-16;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::abs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < eps) break;
  }
  return h;
}

/// I_x(a, b), the regularised incomplete beta function, a, b > 0, x ∈ [0, 1] (NR §6.4, `betai`).
inline double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1 - front * incomplete_beta_fraction(b, a, 1 - x) / b;
}

/// P(T > t) for T ~ Student-t with ν degrees of freedom: ½ I_{ν/(ν+t²)}(ν/2, ½) for t ≥ 0, by symmetry
/// for t < 0 (A&S 26.7.1 with 26.5.27).
inline double student_t_upper(double t, double nu) {
  const double tail = 0.5 * incomplete_beta(0.5 * nu, 0.5, nu / (nu + t * t));
  return t >= 0 ? tail : 1 - tail;
}

}  // namespace sgmcmc::models::glm
