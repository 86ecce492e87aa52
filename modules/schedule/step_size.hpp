#pragma once
// Step-size schedules: constant h, the polynomial decay h_t = a (b + t)^(-γ) under which SGLD's
// stochastic-approximation theory holds for γ ∈ (0.5, 1] (Welling & Teh 2011, Eq. 2), or cosine cycles
// of L steps, h_t = (a/2)[cos(π·mod(t, L)/L) + 1] (Zhang, Li, Zhang, Chen & Wilson 2020, cSG-MCMC,
// Eq. 1 with k − 1 = t and L = ⌈K/M⌉): each cycle starts at a, large steps to explore, and shrinks
// towards 0 to sample. A cyclical schedule may give the first fraction β of each cycle (r = mod(t, L)/L
// < β) to exploration: the sampler injects no noise there (an optimiser step) and the driver keeps no
// draw (cSG-MCMC §3, "exploration" and "sampling" stages).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::schedule {

struct StepSize {
  enum class Kind { constant, polynomial, cyclical } kind = Kind::constant;
  double a = 0.0;      ///< the constant step, or the scale a of the decay
  double b = 1.0;      ///< offset b of the decay
  double gamma = 0.0;  ///< exponent γ of the decay
  std::uint64_t cycle = 0;  ///< L, the cycle's length in steps (cyclical)
  double explore = 0.0;     ///< β, the exploration fraction of each cycle (cyclical)

  StepSize() = default;
  /// A constant step h from a plain number, so that `sgld::Sampler<Euclidean>{Euclidean(2), 0.01}` and
  /// `sampler.step_size = 0.05` say what they mean (issue #39: they gave "cannot convert 'double' to
  /// 'StepSize::Kind'"). Implicit on purpose: a number is a constant step.
  StepSize(double h) noexcept : a(h) {}  // NOLINT(google-explicit-constructor)

  // The factories never throw, so a sampler can be brace-initialised in one expression (a throwing
  // sub-expression there makes GCC 12 warn maybe-uninitialized on the cleanup path); samplers call
  // validate() in init().
  static StepSize constant(double h) noexcept { return StepSize(h); }
  static StepSize polynomial(double a, double b, double gamma) noexcept {
    StepSize s(a);
    s.kind = Kind::polynomial, s.b = b, s.gamma = gamma;
    return s;
  }
  static StepSize cyclical(double a, std::uint64_t length, double explore = 0.0) noexcept {
    StepSize s(a);
    s.kind = Kind::cyclical, s.cycle = length, s.explore = explore;
    return s;
  }

  void validate() const {
    if (kind == Kind::constant) {
      require(std::isfinite(a) && a > 0, "step_size: expected a positive number, got {}", a);
      return;
    }
    require(std::isfinite(a) && a > 0, "step_size.a: expected a positive number, got {}", a);
    if (kind == Kind::cyclical) {
      require(cycle >= 1, "step_size.cycle: expected an integer >= 1");
      require(explore >= 0 && explore < 1, "step_size.explore: expected a fraction in [0, 1), got {}", explore);
      require(explore_steps() < cycle, "step_size.explore: {} of a cycle of {} steps leaves no step to sample", explore, cycle);
      return;
    }
    require(std::isfinite(b) && b > 0, "step_size.b: expected a positive number, got {}", b);
    require(std::isfinite(gamma) && gamma >= 0, "step_size.gamma: expected a number >= 0, got {}", gamma);
  }
  /// E, the exploring steps at the start of each cycle: the t with mod(t, L) < βL, i.e. ⌈βL⌉ (0 unless cyclical).
  std::uint64_t explore_steps() const {
    if (kind != Kind::cyclical || explore <= 0) return 0;
    return static_cast<std::uint64_t>(std::ceil(explore * static_cast<double>(cycle)));
  }
  /// Step t (from 0) explores: the sampler injects no noise and no draw is kept.
  bool explores(std::uint64_t t) const { return kind == Kind::cyclical && explore > 0 && t % cycle < explore_steps(); }
  /// The factor on the injected noise's sd at step t: 0 while exploring, else 1.
  double noise_at(std::uint64_t t) const { return explores(t) ? 0.0 : 1.0; }
  /// Step size of step t (t = 0 for the first step).
  double at(std::uint64_t t) const {
    switch (kind) {
      case Kind::constant: return a;
      case Kind::polynomial: return a * std::pow(b + static_cast<double>(t), -gamma);
      case Kind::cyclical: {
        const double r = static_cast<double>(t % cycle) / static_cast<double>(cycle);
        return 0.5 * a * (std::cos(std::numbers::pi * r) + 1);
      }
    }
    return a;
  }
};

}  // namespace sgmcmc::schedule
