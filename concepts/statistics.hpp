#pragma once
// A step's statistics, open to any sampler (as nuts-rs lets each part of a sampler build its own stats):
// a sampler declares the statistics it reports as a list of `Statistic` descriptors, and every output
// format writes what the list declares — its name, its kind (real, flag or count), its ArviZ name and
// where its value lives in the step's `StepInfo`. The statistics Stan and ArviZ know, and those the
// shipped samplers report, are declared here (`stats::`); a sampler's own statistic is one more
// descriptor (`stats::own<slot>(...)`, its value in `StepInfo::own`), and no writer changes for it.
// A descriptor's identity is its address: the driver asks `statistics.has(stats::kinetic_energy)`, a
// typed question, never a name.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace sgmcmc {

/// What one step reports. Fields a sampler does not declare keep their defaults.
struct StepInfo {
  static constexpr std::size_t own_slots = 4;  ///< values of a sampler's own statistics (stats::own)
  static constexpr double unset = std::numeric_limits<double>::quiet_NaN();

  double acceptance = 1.0;
  bool divergent = false;
  double energy = unset;
  double kinetic_energy = unset;  ///< filled by `describe`, for kept draws
  double thermostat = unset;      ///< filled by `describe`, for kept draws
  double step_size = unset;
  std::uint64_t gradient_evals = 0;
  std::uint64_t reflections = 0;
  std::array<double, own_slots> own{unset, unset, unset, unset};
};

/// How a statistic's values are kept and written: a real number, a 0/1 flag (NetCDF byte), or a count
/// (NetCDF int64, written without a decimal point in CSV).
enum class StatKind : std::uint8_t { real, flag, count };

/// A per-step statistic as the writers see it.
struct Statistic {
  std::string_view name;            ///< in run records and Stan CSV (there with Stan's `__` suffix)
  StatKind kind = StatKind::real;
  std::string_view arviz_name;      ///< its sample_stats variable (ArviZ's schema)
  double (*get)(const StepInfo&) = nullptr;
  void (*set)(StepInfo&, double) = nullptr;  ///< from a record read back
  int order = 100;                  ///< where writers list it: lower first; equal keeps the declared order
};

/// A sampler's statistics: a short list of descriptors, written `stats::acceptance | stats::step_size`.
class Statistics {
 public:
  static constexpr std::size_t capacity = 16;

  constexpr bool has(const Statistic& s) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (items_[i] == &s) return true;
    return false;
  }
  /// This list with `s` appended (once: a statistic already listed is not repeated).
  constexpr Statistics operator|(const Statistic& s) const {
    Statistics out = *this;
    if (has(s)) return out;
    // In a constant expression (every sampler's list is one) the throw is a compile-time error.
    if (size_ == capacity) throw std::length_error("Statistics: more than 16 statistics");
    out.items_[out.size_++] = &s;
    return out;
  }
  constexpr Statistics operator|(const Statistics& other) const {
    Statistics out = *this;
    for (const Statistic* s : other) out = out | *s;
    return out;
  }
  constexpr std::size_t size() const { return size_; }
  constexpr const Statistic* const* begin() const { return items_.data(); }
  constexpr const Statistic* const* end() const { return items_.data() + size_; }
  friend constexpr bool operator==(const Statistics& a, const Statistics& b) {
    if (a.size_ != b.size_) return false;
    for (const Statistic* s : a)
      if (!b.has(*s)) return false;
    return true;
  }

  /// The list in the order writers write it (by `order`, then as declared).
  std::vector<const Statistic*> ordered() const {
    std::vector<const Statistic*> out(begin(), end());
    std::stable_sort(out.begin(), out.end(), [](const Statistic* a, const Statistic* b) { return a->order < b->order; });
    return out;
  }

 private:
  std::array<const Statistic*, capacity> items_{};
  std::size_t size_ = 0;
};

constexpr Statistics operator|(const Statistic& a, const Statistic& b) { return Statistics{} | a | b; }

/// The statistic in `list` named `name`, if any (a record's column read back).
inline const Statistic* statistic_named(const std::vector<const Statistic*>& list, std::string_view name) {
  for (const Statistic* s : list)
    if (s->name == name) return s;
  return nullptr;
}

namespace stats {

namespace detail {
constexpr std::uint64_t to_count(double v) { return v >= 0 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0; }
}  // namespace detail

// The shipped statistics, in the order writers list them (Stan's names in records and CSV; ArviZ's
// sample_stats names where ArviZ has one).
/// Metropolis acceptance probability of the step (1 for an unadjusted step).
inline constexpr Statistic acceptance{"accept_stat", StatKind::real, "acceptance_rate",
                                      [](const StepInfo& i) { return i.acceptance; },
                                      [](StepInfo& i, double v) { i.acceptance = v; }, 0};
/// The step's energy or state became non-finite.
inline constexpr Statistic divergent{"divergent", StatKind::flag, "diverging",
                                     [](const StepInfo& i) { return i.divergent ? 1.0 : 0.0; },
                                     [](StepInfo& i, double v) { i.divergent = v != 0.0; }, 1};
/// The Hamiltonian H = U(x) + vᵀv/2 at the step's end (MH samplers).
inline constexpr Statistic energy{"energy", StatKind::real, "energy", [](const StepInfo& i) { return i.energy; },
                                  [](StepInfo& i, double v) { i.energy = v; }, 2};
/// vᵀv/2 of the state (momentum samplers); its mean is m/2 at temperature 1.
inline constexpr Statistic kinetic_energy{"kinetic_energy", StatKind::real, "kinetic_energy",
                                          [](const StepInfo& i) { return i.kinetic_energy; },
                                          [](StepInfo& i, double v) { i.kinetic_energy = v; }, 3};
/// The Nosé–Hoover thermostat ξ (SGNHT).
inline constexpr Statistic thermostat{"thermostat", StatKind::real, "thermostat",
                                      [](const StepInfo& i) { return i.thermostat; },
                                      [](StepInfo& i, double v) { i.thermostat = v; }, 4};
/// h of the step (a schedule's value at that step).
inline constexpr Statistic step_size{"stepsize", StatKind::real, "step_size", [](const StepInfo& i) { return i.step_size; },
                                     [](StepInfo& i, double v) { i.step_size = v; }, 5};
/// Stochastic or exact gradients the step evaluated.
inline constexpr Statistic gradient_evals{"n_grad", StatKind::count, "n_grad",
                                          [](const StepInfo& i) { return static_cast<double>(i.gradient_evals); },
                                          [](StepInfo& i, double v) { i.gradient_evals = detail::to_count(v); }, 6};
/// Boundary reflections the step's flows made (simplex).
inline constexpr Statistic reflections{"reflections", StatKind::count, "reflections",
                                       [](const StepInfo& i) { return static_cast<double>(i.reflections); },
                                       [](StepInfo& i, double v) { i.reflections = detail::to_count(v); }, 7};

/// A sampler's own statistic, its value in StepInfo::own[Slot]: declare it once as an inline
/// constexpr variable (its address is its identity) and list it in the sampler's `statistics`.
/// @code
///   inline constexpr sgmcmc::Statistic tree_depth = sgmcmc::stats::own<0>("treedepth", sgmcmc::StatKind::count, "tree_depth");
///   // in the sampler: static constexpr Statistics statistics = stats::acceptance | tree_depth;
///   //                 info.own[0] = depth;
/// @endcode
template <std::size_t Slot>
  requires(Slot < StepInfo::own_slots)
constexpr Statistic own(std::string_view name, StatKind kind = StatKind::real, std::string_view arviz_name = {}) {
  return {name, kind, arviz_name.empty() ? name : arviz_name, [](const StepInfo& i) { return i.own[Slot]; },
          [](StepInfo& i, double v) { i.own[Slot] = v; }, 100};
}

}  // namespace stats
}  // namespace sgmcmc
