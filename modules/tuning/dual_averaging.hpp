#pragma once
// Nesterov's dual averaging of the step size towards a target acceptance statistic δ (Hoffman & Gelman
// 2014, §3.2.1, Eq. 6 and Algorithm 5), with Stan's constants (stan/mcmc/stepsize_adaptation.hpp):
// μ = log(10 h₀), γ = 0.05, t₀ = 10, κ = 0.75, δ = 0.8. After iteration t with acceptance statistic a_t:
//   H̄_t = (1 − 1/(t + t₀)) H̄_{t−1} + (δ − a_t)/(t + t₀),
//   log h_t = μ − √t H̄_t / γ,   log h̄_t = t^{−κ} log h_t + (1 − t^{−κ}) log h̄_{t−1}.
// Sampling during adaptation uses h_t; the adapted step is h̄ at the end.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::tuning {

struct DualAveraging {
  double delta = 0.8;
  double gamma = 0.05;
  double t0 = 10;
  double kappa = 0.75;
  double mu = 0;          ///< log(10 h₀)
  double h_bar_log = 0;   ///< log h̄
  double h_log = 0;       ///< log h, the step to sample with next
  double averaged_gap = 0; ///< H̄
  std::uint64_t t = 0;

  /// Starts at h₀ (Stan restarts here after each metric window).
  static DualAveraging starting_at(double h0, double delta = 0.8) {
    require(h0 > 0 && std::isfinite(h0), "dual averaging: the first step size must be positive, got {}", h0);
    require(delta > 0 && delta < 1, "dual averaging: the target acceptance must lie in (0, 1), got {}", delta);
    DualAveraging d;
    d.delta = delta;
    d.mu = std::log(10 * h0);
    d.h_log = std::log(h0);
    d.h_bar_log = 0;  // log 1, as Stan's x_bar_ = 0 (its weight is 1 − 1^{−κ} = 0 at t = 1)
    return d;
  }
  /// The step to sample with now.
  double step() const { return std::exp(h_log); }
  /// The adapted step h̄ (after the last update).
  double adapted() const { return std::exp(h_bar_log); }
  /// One iteration's acceptance statistic (NaN, a divergence, counts as 0).
  void update(double accept_stat) {
    const double a = std::isfinite(accept_stat) ? std::clamp(accept_stat, 0.0, 1.0) : 0.0;
    ++t;
    const double td = static_cast<double>(t);
    const double eta = 1.0 / (td + t0);
    averaged_gap = (1 - eta) * averaged_gap + eta * (delta - a);
    h_log = mu - std::sqrt(td) / gamma * averaged_gap;
    const double w = std::pow(td, -kappa);
    h_bar_log = w * h_log + (1 - w) * h_bar_log;
  }
};

}  // namespace sgmcmc::tuning
