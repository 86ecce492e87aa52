#pragma once
// Priors of the glm target in brms's syntax (brms::set_prior: the text is Stan's distribution call
// without the variate), parsed from strings: "normal(mu, sigma)", "student_t(nu, mu, sigma)",
// "cauchy(mu, sigma)", "laplace(mu, b)" (Stan's double_exponential), "exponential(lambda)",
// "gamma(alpha, beta)" (shape, rate) and "flat" (an improper uniform, brms's and Stan's default).
//
// Each prior is a plain value type; `Prior` is their variant, visited once per parameter per step (a
// model has a handful of parameters, not one per example). The log densities keep every constant
// (Stan Functions Reference, the *_lpdf of each distribution), so log_density is the normalised
// density, not Stan's `~` that drops constants. On a positive parameter (σ, shape, ν) a location-scale
// prior is its half (truncated at 0) version, as brms writes it (`target += normal_lpdf(sigma | 0, s)
// - normal_lccdf(0 | 0, s)`): the density divided by P(X > 0), kept exactly (log_upper_mass), so the
// truncated density is normalised on (0, ∞) too, for any location. Its derivative is the untruncated
// one: the mass is a constant.
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sgmcmc/models/glm/special.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/printable.hpp>

namespace sgmcmc::models::glm {

struct Flat {};
struct Normal {
  double mu, sigma;
};
struct StudentT {
  double nu, mu, sigma;
};
struct Cauchy {
  double mu, sigma;
};
struct Laplace {
  double mu, b;
};
struct Exponential {
  double lambda;
};
struct GammaPrior {
  double alpha, beta;  ///< shape, rate
};
using Prior = std::variant<Flat, Normal, StudentT, Cauchy, Laplace, Exponential, GammaPrior>;

namespace detail {
inline constexpr double log_pi = 1.1447298858494002;  // log π
}

/// log p(x), every constant kept. Exponential and gamma are −∞ below 0.
inline double log_density(const Prior& prior, double x) {
  struct Visit {
    double x;
    double operator()(const Flat&) const { return 0; }
    double operator()(const Normal& p) const {
      const double z = (x - p.mu) / p.sigma;
      return -0.5 * std::log(2 * std::numbers::pi) - std::log(p.sigma) - 0.5 * z * z;
    }
    double operator()(const StudentT& p) const {
      const double z = (x - p.mu) / p.sigma;
      return std::lgamma(0.5 * (p.nu + 1)) - std::lgamma(0.5 * p.nu) - 0.5 * (std::log(p.nu) + detail::log_pi) - std::log(p.sigma) -
             0.5 * (p.nu + 1) * std::log1p(z * z / p.nu);
    }
    double operator()(const Cauchy& p) const {
      const double z = (x - p.mu) / p.sigma;
      return -detail::log_pi - std::log(p.sigma) - std::log1p(z * z);
    }
    double operator()(const Laplace& p) const { return -std::log(2 * p.b) - std::abs(x - p.mu) / p.b; }
    double operator()(const Exponential& p) const {
      return x < 0 ? -std::numeric_limits<double>::infinity() : std::log(p.lambda) - p.lambda * x;
    }
    double operator()(const GammaPrior& p) const {
      if (x < 0) return -std::numeric_limits<double>::infinity();
      return p.alpha * std::log(p.beta) - std::lgamma(p.alpha) + (p.alpha - 1) * std::log(x) - p.beta * x;
    }
  };
  return std::visit(Visit{x}, prior);
}

/// d/dx log p(x). Laplace's kink at μ takes the derivative 0 (the subgradient's midpoint).
inline double d_log_density(const Prior& prior, double x) {
  struct Visit {
    double x;
    double operator()(const Flat&) const { return 0; }
    double operator()(const Normal& p) const { return -(x - p.mu) / (p.sigma * p.sigma); }
    double operator()(const StudentT& p) const {
      const double r = x - p.mu;
      return -(p.nu + 1) * r / (p.nu * p.sigma * p.sigma + r * r);
    }
    double operator()(const Cauchy& p) const {
      const double r = x - p.mu;
      return -2 * r / (p.sigma * p.sigma + r * r);
    }
    double operator()(const Laplace& p) const { return x > p.mu ? -1 / p.b : x < p.mu ? 1 / p.b : 0.0; }
    double operator()(const Exponential& p) const { return -p.lambda; }
    double operator()(const GammaPrior& p) const { return (p.alpha - 1) / x - p.beta; }
  };
  return std::visit(Visit{x}, prior);
}

/// Whether the prior's support is (0, ∞) (exponential, gamma): such a prior fits a positive parameter
/// only.
inline bool positive_support(const Prior& p) { return std::holds_alternative<Exponential>(p) || std::holds_alternative<GammaPrior>(p); }

/// log P(X > 0) under the prior, the half version's normaliser; 0 for flat and the positive
/// distributions. Normal: Φ(μ/σ); Student-t: P(T_ν > −μ/σ) (special.hpp's incomplete beta); Cauchy:
/// ½ + atan(μ/σ)/π; Laplace: 1 − ½e^{−μ/b} for μ ≥ 0, ½e^{μ/b} below.
inline double log_upper_mass(const Prior& prior) {
  struct Visit {
    double operator()(const Flat&) const { return 0; }
    double operator()(const Normal& p) const { return log_normal_cdf(p.mu / p.sigma); }
    double operator()(const StudentT& p) const { return std::log(student_t_upper(-p.mu / p.sigma, p.nu)); }
    double operator()(const Cauchy& p) const { return std::log(0.5 + std::atan(p.mu / p.sigma) / std::numbers::pi); }
    double operator()(const Laplace& p) const {
      return p.mu >= 0 ? std::log1p(-0.5 * std::exp(-p.mu / p.b)) : std::log(0.5) + p.mu / p.b;
    }
    double operator()(const Exponential&) const { return 0; }
    double operator()(const GammaPrior&) const { return 0; }
  };
  return std::visit(Visit{}, prior);
}

/// The prior as brms writes it, e.g. "normal(0, 10)" (the record keeps it; parse_prior reads it back to
/// the same value: {} formats the shortest text that rounds back).
inline std::string to_string(const Prior& prior) {
  struct Visit {
    std::string operator()(const Flat&) const { return "flat"; }
    std::string operator()(const Normal& p) const { return fmt::format("normal({}, {})", p.mu, p.sigma); }
    std::string operator()(const StudentT& p) const { return fmt::format("student_t({}, {}, {})", p.nu, p.mu, p.sigma); }
    std::string operator()(const Cauchy& p) const { return fmt::format("cauchy({}, {})", p.mu, p.sigma); }
    std::string operator()(const Laplace& p) const { return fmt::format("laplace({}, {})", p.mu, p.b); }
    std::string operator()(const Exponential& p) const { return fmt::format("exponential({})", p.lambda); }
    std::string operator()(const GammaPrior& p) const { return fmt::format("gamma({}, {})", p.alpha, p.beta); }
  };
  return std::visit(Visit{}, prior);
}

namespace detail {
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
/// The distributions, their parameters' names, and which of those must be positive.
struct PriorSpec {
  std::string_view name;
  std::vector<std::string_view> args;
  std::vector<bool> positive;
};
inline const std::vector<PriorSpec>& prior_specs() {
  static const std::vector<PriorSpec> specs = {
      {"normal", {"mu", "sigma"}, {false, true}},
      {"student_t", {"nu", "mu", "sigma"}, {true, false, true}},
      {"cauchy", {"mu", "sigma"}, {false, true}},
      {"laplace", {"mu", "b"}, {false, true}},
      {"exponential", {"lambda"}, {true}},
      {"gamma", {"alpha", "beta"}, {true, true}},
  };
  return specs;
}
}  // namespace detail

/// The prior `text` in brms's syntax. Throws sgmcmc::Error naming the text and what is wrong with it:
/// an unknown distribution, a missing parenthesis, the wrong number of arguments, an argument that is
/// not a finite number, or a non-positive scale, rate, shape or degrees of freedom.
inline Prior parse_prior(std::string_view text) {
  const std::string quoted = fmt::format("prior \"{}\"", printable(std::string(text), 100));
  const auto bad = [&](const std::string& what) -> Error { return Error(fmt::format("{}: {}", quoted, what)); };
  const std::string_view s = detail::trim(text);
  const std::size_t open = s.find('(');
  const std::string_view name = detail::trim(s.substr(0, open));
  if (name == "flat") {
    if (open == std::string_view::npos) return Flat{};
    throw bad("flat takes no arguments (write flat)");
  }
  const detail::PriorSpec* spec = nullptr;
  for (const auto& candidate : detail::prior_specs())
    if (candidate.name == name) spec = &candidate;
  if (!spec)
    throw bad(fmt::format("unknown distribution \"{}\" (expected normal, student_t, cauchy, laplace, exponential, gamma or flat)",
                          printable(std::string(name), 100)));
  if (open == std::string_view::npos || s.back() != ')')
    throw bad(fmt::format("expected {}({}) with its arguments in parentheses", spec->name, fmt::join(spec->args, ", ")));
  std::string_view inside = s.substr(open + 1, s.size() - open - 2);
  std::vector<double> values;
  if (!detail::trim(inside).empty()) {
    for (std::size_t k = 1;; ++k) {
      const std::size_t comma = inside.find(',');
      const std::string_view arg = detail::trim(inside.substr(0, comma));
      double v = 0;
      const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
      if (arg.empty() || ec != std::errc() || end != arg.data() + arg.size() || !std::isfinite(v))
        throw bad(fmt::format("argument {} (\"{}\") is not a finite number", k, printable(std::string(arg), 60)));
      values.push_back(v);
      if (comma == std::string_view::npos) break;
      inside.remove_prefix(comma + 1);
    }
  }
  if (values.size() != spec->args.size())
    throw bad(fmt::format("{} takes {} argument{} ({}), got {}", spec->name, spec->args.size(), spec->args.size() == 1 ? "" : "s",
                          fmt::join(spec->args, ", "), values.size()));
  for (std::size_t k = 0; k < values.size(); ++k)
    if (spec->positive[k] && !(values[k] > 0)) throw bad(fmt::format("{} must be positive, got {}", spec->args[k], values[k]));
  const auto& v = values;
  if (name == "normal") return Normal{v[0], v[1]};
  if (name == "student_t") return StudentT{v[0], v[1], v[2]};
  if (name == "cauchy") return Cauchy{v[0], v[1]};
  if (name == "laplace") return Laplace{v[0], v[1]};
  if (name == "exponential") return Exponential{v[0]};
  return GammaPrior{v[0], v[1]};
}

}  // namespace sgmcmc::models::glm
