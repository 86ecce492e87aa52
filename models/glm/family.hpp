#pragma once
// The response families of the glm target, each a template over its link (models/glm/link.hpp): per
// example, the log-likelihood ℓ(y | η, aux) with every constant (a true log density, usable for LOO),
// its derivative in the linear predictor η, and its derivatives in the auxiliary parameters on the
// unconstrained scale u = log(aux) (σ, shape, ν > 0 are sampled as their logs: models/glm/constrain.hpp).
//
// A family is a plain value type (the GlmFamily concept below): `Params` holds what depends on the
// auxiliary parameters only (their values, their logs, log Γ and ψ of them) and is made once per batch
// by `params(u)`; `log_lik(p, y, trials, η)` and `gradient(p, y, trials, η, d_aux)` are then cheap per
// example. `gradient` returns ∂ℓ/∂η and adds ∂ℓ/∂u_k to d_aux[k]. `trials` is read by binomial only.
// Outside the support (a non-positive mean for a count or positive family) ℓ = −∞ and the gradient is
// NaN: the chain's divergence check then stops the step, as Stan rejects the proposal.
//
// The densities are Stan's, as brms writes its families into Stan (Stan Functions Reference, "Discrete
// distributions" and "Continuous distributions"; brms vignette "Parameterization of response
// distributions in brms"): bernoulli, binomial, poisson; negative_binomial as neg_binomial_2(μ, φ) with
// brms's `shape` φ; gaussian normal(μ, σ); student student_t(ν, μ, σ); gamma with shape α and mean μ,
// Stan's gamma(α, α/μ).
#include <array>
#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <Eigen/Core>

#include <sgmcmc/models/glm/link.hpp>
#include <sgmcmc/models/glm/special.hpp>

namespace sgmcmc::models::glm {

/// A response family for one link: its brms name, the names of its auxiliary parameters (as brms names
/// them: `sigma`, `shape`, `nu`), `params(u)` from their unconstrained values u_k = log(aux_k), and per
/// example `log_lik(p, y, trials, η)` = log p(y | η, aux) and `gradient(p, y, trials, η, d_aux)` =
/// ∂ℓ/∂η, with d_aux[k] += ∂ℓ/∂u_k. Opt in by shape:
/// @code
/// struct Exponential {  // y ~ Exponential(1/μ), log link: no auxiliary parameter
///   static constexpr std::string_view name = "exponential";
///   static constexpr std::array<std::string_view, 0> aux_names{};
///   struct Params {};
///   static Params params(std::span<const double>) { return {}; }
///   static double log_lik(const Params&, double y, double, double eta) { return -eta - y * std::exp(-eta); }
///   static double gradient(const Params&, double y, double, double eta, std::span<double>) { return y * std::exp(-eta) - 1; }
/// };
/// static_assert(GlmFamily<Exponential>);
/// @endcode
template <class F>
concept GlmFamily = requires(const F f, const typename F::Params p, double y, double n, double eta, std::span<const double> u,
                             std::span<double> g) {
  { F::name } -> std::convertible_to<std::string_view>;
  { F::aux_names.size() } -> std::convertible_to<std::size_t>;
  { F::aux_names[0] } -> std::convertible_to<std::string_view>;
  { f.params(u) } -> std::same_as<typename F::Params>;
  { f.log_lik(p, y, n, eta) } -> std::same_as<double>;
  { f.gradient(p, y, n, eta, g) } -> std::same_as<double>;
};

/// Optional: a family (for some links) that forms the batch's ∂ℓ/∂η in one vectorised pass,
/// `gradient_batch(p, y, trials, η, d_aux)`: η (an Eigen vector) in, ∂ℓ/∂η out, d_aux[k] += Σ ∂ℓ/∂u_k.
/// Equal to the per-example `gradient` up to rounding (tests/glm/test_family.cpp); the model's batch
/// and block passes take it where it exists (the canonical pairs whose derivative is an exp or a
/// product: a vectorised exp instead of one call per example).
template <class F>
concept BatchGlmFamily = GlmFamily<F> && requires(const F f, const typename F::Params p, const Eigen::VectorXd& y, Eigen::VectorXd& eta,
                                                  std::span<double> g) { f.gradient_batch(p, y, y, eta, g); };

/// The number of auxiliary parameters of F.
template <class F>
inline constexpr std::size_t aux_count = std::tuple_size_v<std::remove_cvref_t<decltype(F::aux_names)>>;

namespace detail {
inline constexpr double neg_inf = -std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double log_2pi = 1.8378770664093454836;  // log(2π)
}  // namespace detail

/// y ∈ {0, 1}, P(y = 1) = μ = g⁻¹(η): ℓ = y log μ + (1 − y) log(1 − μ) (Stan's bernoulli; L a
/// probability link).
template <class L>
struct Bernoulli {
  static constexpr std::string_view name = "bernoulli";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 0> aux_names{};
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double y, double, double eta) { return y > 0 ? L::log_p(eta) : L::log_q(eta); }
  static double gradient(const Params&, double y, double, double eta, std::span<double>) {
    return y > 0 ? L::d_log_p(eta) : L::d_log_q(eta);
  }
  /// The logit link's batch (BatchGlmFamily): ∂ℓ/∂η = y − μ, one vectorised exp over the batch.
  template <class Y, class T, class E>
    requires std::same_as<L, Logit>
  static void gradient_batch(const Params&, const Y& y, const T&, E&& eta, std::span<double>) {
    eta.array() = y.array() - (1.0 + (-eta.array()).exp()).inverse();
  }
};

/// y successes of n trials, each with probability μ = g⁻¹(η): ℓ = log C(n, y) + y log μ + (n − y)
/// log(1 − μ) (Stan's binomial), the binomial coefficient by log Γ. A term with a zero count is left
/// out (0 · log 0 is 0 here, as in the density).
template <class L>
struct Binomial {
  static constexpr std::string_view name = "binomial";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 0> aux_names{};
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double y, double n, double eta) {
    double l = std::lgamma(n + 1) - std::lgamma(y + 1) - std::lgamma(n - y + 1);
    if (y > 0) l += y * L::log_p(eta);
    if (n - y > 0) l += (n - y) * L::log_q(eta);
    return l;
  }
  static double gradient(const Params&, double y, double n, double eta, std::span<double>) {
    double d = 0;
    if (y > 0) d += y * L::d_log_p(eta);
    if (n - y > 0) d += (n - y) * L::d_log_q(eta);
    return d;
  }
  /// The logit link's batch: ∂ℓ/∂η = y(1 − μ) − (n − y)μ = y − nμ, one vectorised exp.
  template <class Y, class T, class E>
    requires std::same_as<L, Logit>
  static void gradient_batch(const Params&, const Y& y, const T& n, E&& eta, std::span<double>) {
    eta.array() = y.array() - n.array() * (1.0 + (-eta.array()).exp()).inverse();
  }
};

/// y ∈ {0, 1, …}, mean μ = g⁻¹(η): ℓ = y log μ − μ − log y! (Stan's poisson);
/// ∂ℓ/∂η = y (log μ)′ − μ′.
template <class L>
struct Poisson {
  static constexpr std::string_view name = "poisson";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 0> aux_names{};
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double y, double, double eta) {
    if (!L::positive(eta)) return detail::neg_inf;
    return (y > 0 ? y * L::log_mean(eta) : 0.0) - L::mean(eta) - std::lgamma(y + 1);
  }
  static double gradient(const Params&, double y, double, double eta, std::span<double>) {
    if (!L::positive(eta)) return detail::nan;
    return (y > 0 ? y * L::d_log_mean(eta) : 0.0) - L::d_mean(eta);
  }
  /// The log link's batch: ∂ℓ/∂η = y − eᶯ, one vectorised exp.
  template <class Y, class T, class E>
    requires std::same_as<L, Log>
  static void gradient_batch(const Params&, const Y& y, const T&, E&& eta, std::span<double>) {
    eta.array() = y.array() - eta.array().exp();
  }
};

/// A positive shape parameter e^u with the constants its densities take (negative_binomial's φ, gamma's
/// α): computed once per batch or block, not per example.
struct ShapeConstants {
  double value, log, lgamma, digamma;  ///< e^u, u, log Γ(e^u), ψ(e^u)
};
inline ShapeConstants shape_constants(double u) {
  const double k = std::exp(u);
  return {k, u, std::lgamma(k), digamma(k)};
}

/// Stan's neg_binomial_2(μ, φ), brms's negative_binomial with `shape` φ, u = log φ:
///   ℓ = log Γ(y + φ) − log Γ(y + 1) − log Γ(φ) + y log μ + φ log φ − (y + φ) log(μ + φ),
///   ∂ℓ/∂η = (log μ)′ (y − (y + φ) μ/(μ + φ)),
///   ∂ℓ/∂u = φ [ψ(y + φ) − ψ(φ) + log φ + 1 − log(μ + φ) − (y + φ)/(μ + φ)],
/// with log(μ + φ) = log-sum-exp(log μ, log φ) (no overflow of μ = eᶯ).
template <class L>
struct NegativeBinomial {
  static constexpr std::string_view name = "negative_binomial";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 1> aux_names{"shape"};
  using Params = ShapeConstants;  // of φ
  static Params params(std::span<const double> u) { return shape_constants(u[0]); }
  static double log_lik(const Params& p, double y, double, double eta) {
    if (!L::positive(eta)) return detail::neg_inf;
    const double lm = L::log_mean(eta), lmp = log_add_exp(lm, p.log);
    return std::lgamma(y + p.value) - std::lgamma(y + 1) - p.lgamma + (y > 0 ? y * lm : 0.0) + p.value * p.log - (y + p.value) * lmp;
  }
  static double gradient(const Params& p, double y, double, double eta, std::span<double> d_aux) {
    if (!L::positive(eta)) return d_aux[0] = detail::nan;
    const double lm = L::log_mean(eta), lmp = log_add_exp(lm, p.log);
    const double share = std::exp(lm - lmp);  // μ/(μ + φ)
    d_aux[0] += p.value * (digamma(y + p.value) - p.digamma + p.log + 1 - lmp - (y + p.value) * std::exp(-lmp));
    return L::d_log_mean(eta) * (y - (y + p.value) * share);
  }
};

/// Stan's normal(μ, σ), u = log σ, r = y − μ:
///   ℓ = −½ log 2π − log σ − r²/(2σ²),  ∂ℓ/∂η = μ′ r/σ²,  ∂ℓ/∂u = r²/σ² − 1.
template <class L>
struct Gaussian {
  static constexpr std::string_view name = "gaussian";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 1> aux_names{"sigma"};
  struct Params {
    double log_sigma, precision;  ///< log σ, 1/σ²
  };
  static Params params(std::span<const double> u) { return {u[0], std::exp(-2 * u[0])}; }
  static double log_lik(const Params& p, double y, double, double eta) {
    const double r = y - L::mean(eta);
    return -0.5 * detail::log_2pi - p.log_sigma - 0.5 * r * r * p.precision;
  }
  static double gradient(const Params& p, double y, double, double eta, std::span<double> d_aux) {
    const double r = y - L::mean(eta);
    d_aux[0] += r * r * p.precision - 1;
    return L::d_mean(eta) * r * p.precision;
  }
  /// The identity link's batch: r = y − η, ∂ℓ/∂η = r/σ², Σ ∂ℓ/∂u = Σ (r²/σ² − 1), vectorised.
  template <class Y, class T, class E>
    requires std::same_as<L, Identity>
  static void gradient_batch(const Params& p, const Y& y, const T&, E&& eta, std::span<double> d_aux) {
    eta.array() = (y.array() - eta.array()) * p.precision;
    d_aux[0] += eta.squaredNorm() / p.precision - static_cast<double>(eta.size());
  }
};

/// Stan's student_t(ν, μ, σ), u = (log σ, log ν), z = (y − μ)/σ (brms orders sigma before nu):
///   ℓ = log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log σ − (ν+1)/2 · log(1 + z²/ν),
///   ∂ℓ/∂η = μ′ (ν+1) z / (σ (ν + z²)),
///   ∂ℓ/∂u₀ = (ν+1) z²/(ν + z²) − 1,
///   ∂ℓ/∂u₁ = ν [½ψ((ν+1)/2) − ½ψ(ν/2) − 1/(2ν) − ½ log(1 + z²/ν) + (ν+1) z² / (2ν(ν + z²))].
template <class L>
struct Student {
  static constexpr std::string_view name = "student";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 2> aux_names{"sigma", "nu"};
  struct Params {
    double sigma, log_sigma, nu;
    double constant;    ///< log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ)
    double d_constant;  ///< its derivative in ν
  };
  static Params params(std::span<const double> u) {
    const double nu = std::exp(u[1]);
    return {std::exp(u[0]), u[0], nu, std::lgamma(0.5 * (nu + 1)) - std::lgamma(0.5 * nu) - 0.5 * std::log(nu * std::numbers::pi),
            0.5 * digamma(0.5 * (nu + 1)) - 0.5 * digamma(0.5 * nu) - 0.5 / nu};
  }
  static double log_lik(const Params& p, double y, double, double eta) {
    const double z = (y - L::mean(eta)) / p.sigma;
    return p.constant - p.log_sigma - 0.5 * (p.nu + 1) * std::log1p(z * z / p.nu);
  }
  static double gradient(const Params& p, double y, double, double eta, std::span<double> d_aux) {
    const double z = (y - L::mean(eta)) / p.sigma, z2 = z * z, w = (p.nu + 1) / (p.nu + z2);
    d_aux[0] += w * z2 - 1;
    d_aux[1] += p.nu * (p.d_constant - 0.5 * std::log1p(z2 / p.nu) + 0.5 * w * z2 / p.nu);
    return L::d_mean(eta) * w * z / p.sigma;
  }
};

/// brms's gamma: y > 0 with shape α and mean μ, Stan's gamma(α, α/μ), u = log α:
///   ℓ = α log α − α log μ − log Γ(α) + (α − 1) log y − α y/μ,
///   ∂ℓ/∂η = α (log μ)′ (y/μ − 1),
///   ∂ℓ/∂u = α [log α + 1 − log μ − ψ(α) + log y − y/μ],
/// y/μ as y·e^{−log μ} (no overflow of μ = eᶯ).
template <class L>
struct Gamma {
  static constexpr std::string_view name = "gamma";
  static constexpr std::string_view link_name = L::name;
  static constexpr std::array<std::string_view, 1> aux_names{"shape"};
  using Params = ShapeConstants;  // of α
  static Params params(std::span<const double> u) { return shape_constants(u[0]); }
  static double log_lik(const Params& p, double y, double, double eta) {
    if (!L::positive(eta)) return detail::neg_inf;
    const double lm = L::log_mean(eta);
    return p.value * (p.log - lm) - p.lgamma + (p.value - 1) * std::log(y) - p.value * y * std::exp(-lm);
  }
  static double gradient(const Params& p, double y, double, double eta, std::span<double> d_aux) {
    if (!L::positive(eta)) return d_aux[0] = detail::nan;
    const double lm = L::log_mean(eta), ratio = y * std::exp(-lm);
    d_aux[0] += p.value * (p.log + 1 - lm - p.digamma + std::log(y) - ratio);
    return p.value * L::d_log_mean(eta) * (ratio - 1);
  }
};

}  // namespace sgmcmc::models::glm
