#pragma once
// The link functions of the glm target (McCullagh & Nelder 1989, Generalized Linear Models, §2.2.4):
// η = g(μ), the linear predictor η a function of the mean μ, so μ = g⁻¹(η). A link is a value type with
// static functions of η only (and `link(μ)` = g(μ), for the model's start point); a family (models/glm/family.hpp) is a template over its link, so the
// per-example loop is compiled once per (family, link) pair and calls no function through a pointer.
//
// Two kinds, by what the families need from them:
// - mean links (identity, log, sqrt, inverse) give μ = g⁻¹(η), log μ and their derivatives in η, and
//   say where μ > 0 (what the count and positive families need; `positive`);
// - probability links (logit, probit, cloglog) give log μ and log(1 − μ) with their derivatives in η,
//   each computed without cancellation in the tails (what bernoulli and binomial need).
// The links are brms's (brms::brmsfamily): sqrt is μ = η², inverse is μ = 1/η.
#include <cmath>
#include <limits>
#include <numbers>
#include <string_view>

#include <sgmcmc/models/glm/special.hpp>

namespace sgmcmc::models::glm {

/// μ = η.
struct Identity {
  static constexpr std::string_view name = "identity";
  static double mean(double eta) { return eta; }
  static double link(double mu) { return mu; }
  static double d_mean(double) { return 1; }
  static bool positive(double eta) { return eta > 0; }
  static double log_mean(double eta) { return std::log(eta); }
  static double d_log_mean(double eta) { return 1 / eta; }
};

/// μ = eᶯ (the canonical link of the Poisson family).
struct Log {
  static constexpr std::string_view name = "log";
  static double mean(double eta) { return std::exp(eta); }
  static double link(double mu) { return std::log(mu); }
  static double d_mean(double eta) { return std::exp(eta); }
  static bool positive(double eta) { return eta > -std::numeric_limits<double>::infinity(); }
  static double log_mean(double eta) { return eta; }
  static double d_log_mean(double) { return 1; }
};

/// μ = η² (brms's sqrt link: η = √μ; a negative η gives the same mean as −η).
struct Sqrt {
  static constexpr std::string_view name = "sqrt";
  static double mean(double eta) { return eta * eta; }
  static double link(double mu) { return std::sqrt(mu); }
  static double d_mean(double eta) { return 2 * eta; }
  static bool positive(double eta) { return eta != 0; }
  static double log_mean(double eta) { return 2 * std::log(std::abs(eta)); }
  static double d_log_mean(double eta) { return 2 / eta; }
};

/// μ = 1/η (the canonical link of the gamma family, up to sign; brms's default for it).
struct Inverse {
  static constexpr std::string_view name = "inverse";
  static double mean(double eta) { return 1 / eta; }
  static double link(double mu) { return 1 / mu; }
  static double d_mean(double eta) { return -1 / (eta * eta); }
  static bool positive(double eta) { return eta > 0; }
  static double log_mean(double eta) { return -std::log(eta); }
  static double d_log_mean(double eta) { return -1 / eta; }
};

/// μ = 1/(1 + e⁻ᶯ) (the canonical link of the Bernoulli and binomial families):
/// log μ = −softplus(−η), log(1 − μ) = −softplus(η), d log μ/dη = 1 − μ, d log(1 − μ)/dη = −μ.
struct Logit {
  static constexpr std::string_view name = "logit";
  static double mean(double eta) { return 1 / (1 + std::exp(-eta)); }
  static double link(double mu) { return std::log(mu) - std::log1p(-mu); }
  static double log_p(double eta) { return -softplus(-eta); }
  static double log_q(double eta) { return -softplus(eta); }
  static double d_log_p(double eta) { return 1 / (1 + std::exp(eta)); }
  static double d_log_q(double eta) { return -1 / (1 + std::exp(-eta)); }
};

/// μ = Φ(η): log μ = log Φ(η), log(1 − μ) = log Φ(−η), d log μ/dη = φ(η)/Φ(η), d log(1 − μ)/dη =
/// −φ(η)/Φ(−η) (models/glm/special.hpp computes both in the tails).
struct Probit {
  static constexpr std::string_view name = "probit";
  static double mean(double eta) { return 0.5 * std::erfc(-eta / std::numbers::sqrt2); }
  /// Φ⁻¹(μ) by Newton's method on Φ from 0 (Φ is convex below 0 and concave above, so the iterates
  /// approach the root monotonically after the first step); for a start point, μ in [10⁻⁶, 1 − 10⁻⁶].
  static double link(double mu) {
    double eta = 0;
    for (int k = 0; k < 60; ++k) {
      const double step = (mean(eta) - mu) / (std::exp(-0.5 * eta * eta) / std::sqrt(2 * std::numbers::pi));
      eta -= step;
      if (std::abs(step) < 1e-12 * (1 + std::abs(eta))) break;
    }
    return eta;
  }
  static double log_p(double eta) { return log_normal_cdf(eta); }
  static double log_q(double eta) { return log_normal_cdf(-eta); }
  static double d_log_p(double eta) { return normal_mills(eta); }
  static double d_log_q(double eta) { return -normal_mills(-eta); }
};

/// μ = 1 − exp(−eᶯ), the complementary log-log link: with t = eᶯ, log(1 − μ) = −t, log μ =
/// log(−expm1(−t)), d log μ/dη = t e⁻ᵗ/μ = t/expm1(t), d log(1 − μ)/dη = −t.
struct Cloglog {
  static constexpr std::string_view name = "cloglog";
  static double mean(double eta) { return -std::expm1(-std::exp(eta)); }
  static double link(double mu) { return std::log(-std::log1p(-mu)); }
  static double log_p(double eta) {
    // log(1 − e⁻ᵗ) = log t − t/2 + O(t²) for small t: below η = −20 (t < 2.1·10⁻⁹, the O(t²/24) term
    // under 2·10⁻¹⁹) that form, which keeps going where t = eᶯ underflows to 0 (η < −745); for large t,
    // log1p(−e⁻ᵗ) keeps the tiny complement.
    if (eta < -20) return eta - 0.5 * std::exp(eta);
    const double t = std::exp(eta);
    return t > 1 ? std::log1p(-std::exp(-t)) : std::log(-std::expm1(-t));
  }
  static double log_q(double eta) { return -std::exp(eta); }
  static double d_log_p(double eta) {
    const double t = std::exp(eta);
    // t/expm1(t) → 1 as t → 0 (t = 0 once eᶯ underflows), and is below 10⁻³⁰⁰ past t = 700, where expm1
    // nears its overflow at 710.
    if (t == 0) return 1.0;
    return t > 700 ? 0.0 : t / std::expm1(t);
  }
  static double d_log_q(double eta) { return -std::exp(eta); }
};

}  // namespace sgmcmc::models::glm
