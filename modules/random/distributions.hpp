#pragma once
// Non-Gaussian draws from any RandomEngine, deterministic given its stream: gamma (Marsaglia & Tsang
// 2000), Poisson (inversion for small means, Hörmann's PTRS 1993 for large), Dirichlet, and the
// noncentral chi-square as a Poisson mixture of gammas (for the exact CIR transition of SCIR).
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::random {

/// Gamma(shape, 1). For shape < 1, Gamma(shape + 1)·U^(1/shape) (Marsaglia & Tsang 2000, §6).
template <class R>
double gamma(R& rng, double shape) {
  require(shape > 0 && std::isfinite(shape), "gamma: shape must be positive and finite");
  if (shape < 1.0) {
    const double g = gamma(rng, shape + 1.0);
    return g * std::exp(std::log(rng.uniform()) / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

/// Poisson(mean).
template <class R>
std::uint64_t poisson(R& rng, double mean) {
  require(mean >= 0 && std::isfinite(mean), "poisson: mean must be finite and >= 0");
  if (mean == 0.0) return 0;
  if (mean < 10.0) {  // inversion by sequential search
    const double u = rng.uniform();
    double p = std::exp(-mean), cdf = p;
    std::uint64_t k = 0;
    while (u > cdf && k < 1000) {
      ++k;
      p *= mean / static_cast<double>(k);
      cdf += p;
    }
    return k;
  }
  // PTRS: transformed rejection with squeeze (Hörmann 1993), valid for mean >= 10.
  const double slam = std::sqrt(mean), loglam = std::log(mean);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = rng.uniform() - 0.5, v = rng.uniform(), us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -mean + k * loglam - std::lgamma(k + 1.0))
      return static_cast<std::uint64_t>(k);
  }
}

/// Dirichlet(α) by normalised gammas.
template <class R>
Eigen::VectorXd dirichlet(R& rng, const Eigen::VectorXd& alpha) {
  Eigen::VectorXd x(alpha.size());
  for (Eigen::Index i = 0; i < alpha.size(); ++i) x[i] = gamma(rng, alpha[i]);
  return x / x.sum();
}

/// Noncentral chi-square χ'²(k, λ) = 2·Gamma(k/2 + J), J ~ Poisson(λ/2).
template <class R>
double noncentral_chi_square(R& rng, double k, double lambda) {
  const auto j = poisson(rng, 0.5 * lambda);
  return 2.0 * gamma(rng, 0.5 * k + static_cast<double>(j));
}

/// An angle from the von Mises distribution VM(mu, kappa) on (-π, π] (Best & Fisher 1979).
template <class R>
double von_mises(R& rng, double mu, double kappa) {
  constexpr double pi = 3.14159265358979323846;
  if (kappa < 1e-8) return mu + pi * (2.0 * rng.uniform() - 1.0);
  // Past κ = 1e8 Best & Fisher's r − f cancels to nothing in doubles (at κ ≈ 1e16 r rounds to 1 and no
  // proposal is ever accepted: the loop never ends). There VM(μ, κ) is N(μ, 1/κ) to a relative 1/(2κ)
  // in the variance (Mardia & Jupp 2000, §3.5.4), far below anything a chain can resolve.
  if (kappa > 1e8) return std::remainder(mu + rng.normal() / std::sqrt(kappa), 2.0 * pi);
  const double tau = 1.0 + std::sqrt(1.0 + 4.0 * kappa * kappa);
  const double rho = (tau - std::sqrt(2.0 * tau)) / (2.0 * kappa);
  const double r = (1.0 + rho * rho) / (2.0 * rho);
  for (;;) {
    const double z = std::cos(pi * rng.uniform());
    const double f = (1.0 + r * z) / (r + z);
    const double c = kappa * (r - f);
    const double u2 = rng.uniform();
    if (c * (2.0 - c) > u2 || std::log(c / u2) + 1.0 >= c) {
      const double theta = (rng.uniform() > 0.5 ? 1.0 : -1.0) * std::acos(f);
      return std::remainder(mu + theta, 2.0 * pi);
    }
  }
}

}  // namespace sgmcmc::random
