#pragma once
// The von Mises–Fisher normaliser on S^{V-1} for large V and κ (Mardia & Jupp 2000;
// docs/math.md#von-mises-fisher):
//   log C_V(κ) = (V/2 − 1) log κ − (V/2) log 2π − log I_{V/2−1}(κ),
//   d/dκ log C_V(κ) = −A_V(κ),  A_V(κ) = I_{V/2}(κ) / I_{V/2−1}(κ).
// The spherical admixture model (Reisinger et al. 2010; Liu, Zhu & Song 2016 §4 and appendix) needs
// them at V in the thousands and κ up to ~1e5, where I_ν(κ) over- or underflows a double
// (std::cyl_bessel_i(2499, 3e4) = inf). Everything here works with log I_ν(κ):
//
// - ν ≥ 25: the uniform asymptotic expansion of Debye (DLMF 10.41.3), with z = κ/ν, p = 1/√(1+z²),
//     log I_ν(νz) = νη − ½ log(2πν) + ½ log p + log Σ_{k=0}^{12} u_k(p)/ν^k,
//     νη = √(ν²+κ²) + ν log(κ / (ν + √(ν²+κ²))),
//   the polynomials u_k generated once by the recurrence DLMF 10.41.10,
//     u_{k+1}(p) = ½ p²(1−p²) u_k'(p) + ⅛ ∫_0^p (1−5s²) u_k(s) ds.
//   It is uniform in z (small and large κ alike); with 13 terms at ν ≥ 25 the truncation is far below
//   rounding (tests/sam/test_sam.cpp checks it against std::cyl_bessel_i to 1e-13 relative).
// - ν < 25 and std::cyl_bessel_i finite and normal: its logarithm.
// - ν < 25 otherwise: small κ by the power series in log form (DLMF 10.25.2); large κ by the downward
//   recurrence I_{n−1} = I_{n+1} + (2n/κ) I_n (DLMF 10.29.1), stable downwards, started from two Debye
//   values at order ν + n ≥ 25 and carried as the ratio ρ_n = I_{n+1}/I_n.
//
// The SGGMC authors' MyMath (changliu00/SG-Geod-MCMC, MCMC/MyMath.cpp, LogBesselI) switches between the
// power series and Hankel's large-argument expansion; Debye's expansion is accurate across the switch.
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::text {

namespace detail::bessel {

inline constexpr int debye_terms = 13;       // u_0 … u_12
inline constexpr double debye_min_order = 25.0;

/// Coefficients of u_k(p) = Σ_j c_{k,j} p^j (degree 3k), from the recurrence DLMF 10.41.10.
inline const std::vector<std::vector<double>>& debye_polynomials() {
  static const std::vector<std::vector<double>> u = [] {
    std::vector<std::vector<double>> r(debye_terms);
    r[0] = {1.0};
    for (int k = 0; k + 1 < debye_terms; ++k) {
      const auto& c = r[static_cast<std::size_t>(k)];
      std::vector<double> n(c.size() + 3, 0.0);
      for (std::size_t j = 0; j < c.size(); ++j) {
        const double jd = static_cast<double>(j);
        // ½ p²(1−p²) · j c_j p^{j−1} = ½ j c_j (p^{j+1} − p^{j+3})
        n[j + 1] += 0.5 * jd * c[j];
        n[j + 3] -= 0.5 * jd * c[j];
        // ⅛ ∫_0^p (1−5s²) c_j s^j ds = ⅛ c_j (p^{j+1}/(j+1) − 5p^{j+3}/(j+3))
        n[j + 1] += c[j] / (8.0 * (jd + 1.0));
        n[j + 3] -= 5.0 * c[j] / (8.0 * (jd + 3.0));
      }
      r[static_cast<std::size_t>(k) + 1] = std::move(n);
    }
    return r;
  }();
  return u;
}

/// log I_ν(κ) by Debye's uniform expansion (accurate for ν ≥ debye_min_order, any κ > 0).
inline double log_i_debye(double nu, double kappa) {
  const double root = std::hypot(nu, kappa);  // √(ν²+κ²) without overflow
  const double p = nu / root;                 // 1/√(1+z²)
  const double nu_eta = root + nu * std::log(kappa / (nu + root));
  const auto& u = debye_polynomials();
  double sum = 0.0, inv_pow = 1.0;
  for (int k = 0; k < debye_terms; ++k) {
    const auto& c = u[static_cast<std::size_t>(k)];
    double poly = 0.0;
    for (std::size_t j = c.size(); j-- > 0;) poly = poly * p + c[j];  // Horner
    sum += poly * inv_pow;
    inv_pow /= nu;
  }
  return nu_eta - 0.5 * std::log(2.0 * std::numbers::pi * nu) + 0.5 * std::log(p) + std::log(sum);
}

/// log I_ν(κ) by the power series Σ_m (κ²/4)^m / (m! Γ(ν+m+1)) · (κ/2)^ν, for small κ (κ² ≲ ν+1 or tiny).
inline double log_i_series(double nu, double kappa) {
  const double q = 0.25 * kappa * kappa;
  double term = 1.0, sum = 1.0;
  for (int m = 1; m < 500; ++m) {
    term *= q / (static_cast<double>(m) * (nu + static_cast<double>(m)));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return nu * std::log(0.5 * kappa) - std::lgamma(nu + 1.0) + std::log(sum);
}

}  // namespace detail::bessel

/// log I_ν(κ) for ν ≥ 0, κ > 0 (κ = 0 gives −∞ for ν > 0 and 0 for ν = 0).
inline double log_bessel_i(double nu, double kappa) {
  namespace b = detail::bessel;
  if (!(nu >= 0) || !std::isfinite(nu))
    throw Error(fmt::format("log_bessel_i: order must be a finite number >= 0, got {}", nu));
  if (!(kappa >= 0) || !std::isfinite(kappa))
    throw Error(fmt::format("log_bessel_i: argument must be a finite number >= 0, got {}", kappa));
  if (kappa == 0) return nu == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
  if (nu >= b::debye_min_order) return b::log_i_debye(nu, kappa);
  if (kappa * kappa < 1e-3 * (nu + 1.0)) return b::log_i_series(nu, kappa);  // few terms, no underflow
  if (kappa <= 600.0) {
    const double i = std::cyl_bessel_i(nu, kappa);
    if (std::isnormal(i)) return std::log(i);
    if (kappa * kappa < 4.0 * (nu + 1.0)) return b::log_i_series(nu, kappa);
  }
  // Downward recurrence from order N = ν + n ≥ 25 (same fractional part), in ratio form.
  const double n_steps = std::ceil(b::debye_min_order - nu);
  double order = nu + n_steps;
  double log_i = b::log_i_debye(order, kappa);
  double rho = std::exp(b::log_i_debye(order + 1.0, kappa) - log_i);  // I_{N+1}/I_N
  for (int s = 0; s < static_cast<int>(n_steps); ++s) {
    const double up = rho + 2.0 * order / kappa;  // I_{n−1}/I_n
    log_i += std::log(up);
    rho = 1.0 / up;
    order -= 1.0;
  }
  return log_i;
}

/// log C_V(κ), the log normaliser of vMF(μ, κ) on S^{V−1} w.r.t. surface measure; κ > 0
/// (docs/math.md#von-mises-fisher).
inline double log_vmf_normalizer(double V, double kappa) {
  if (!(V >= 2)) throw Error(fmt::format("log_vmf_normalizer: dimension V must be >= 2, got {}", V));
  if (!(kappa > 0) || !std::isfinite(kappa))
    throw Error(fmt::format("log_vmf_normalizer: kappa must be a positive finite number, got {}", kappa));
  const double nu = 0.5 * V - 1.0;
  if (nu == 0) return -std::log(2.0 * std::numbers::pi) - log_bessel_i(0.0, kappa);
  return nu * std::log(kappa) - 0.5 * V * std::log(2.0 * std::numbers::pi) - log_bessel_i(nu, kappa);
}

/// A_V(κ) = I_{V/2}(κ)/I_{V/2−1}(κ) = −d log C_V/dκ, the mean resultant length E[μᵀx] of vMF(μ, κ).
inline double vmf_mean_resultant(double V, double kappa) {
  if (!(V >= 2)) throw Error(fmt::format("vmf_mean_resultant: dimension V must be >= 2, got {}", V));
  if (!(kappa > 0) || !std::isfinite(kappa))
    throw Error(fmt::format("vmf_mean_resultant: kappa must be a positive finite number, got {}", kappa));
  const double nu = 0.5 * V - 1.0;
  return std::exp(log_bessel_i(nu + 1.0, kappa) - log_bessel_i(nu, kappa));
}

}  // namespace sgmcmc::text
