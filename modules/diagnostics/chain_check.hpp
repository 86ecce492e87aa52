#pragma once
// The checks every chain gets by default (issue #39): what a stochastic-gradient chain can get wrong
// while R̂ and ESS look perfect. A too-large step where nothing can blow up (a bounded gradient, a
// compact manifold, exact friction) never diverges; it samples another distribution, smoothly. What
// catches it is a statistic whose value under the target is known:
// - the configurational temperature T_conf = ⟨(x − x̄)ᵀ∇U(x)⟩/d, 1 under exp(−U) on ℝᵈ (integration by
//   parts; modules/diagnostics/stein.hpp), for a flat target with an exact gradient;
// - the kinetic temperature T_kin = ⟨vᵀv⟩/m, 1 for a momentum sampler (unit mass) at the target's
//   temperature (MATH.md §9: SGHMC's excess is h(V − V̂)/(2C));
// - the Metropolis acceptance of an MH sampler (zero: every draw is the start point);
// - whether the chain moved at all (a chain that never moves has a sd of 0 and an ESS of NaN).
// Each temperature is judged against its own Monte Carlo error, se = sd/√ESS of the per-draw terms
// (Stan's ESS), and flagged when it is both significant (|T − 1| > z·se) and relevant (|T − 1| >
// `temperature_relevance`): a long chain's small, honest discretisation bias is not a warning.
// The checker is fed each kept draw as the chain makes it and keeps a bounded, evenly spaced subsample
// (at most `max_points` draws, at most `max_values` doubles), so it never holds the whole chain.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/statistics.hpp>
#include <sgmcmc/modules/diagnostics/ess.hpp>

namespace sgmcmc::diagnostics {

/// A measured statistic with its Monte Carlo standard error; NaN (and 0 draws) when not measured.
struct Measured {
  double value = std::numeric_limits<double>::quiet_NaN();
  double se = std::numeric_limits<double>::quiet_NaN();
  std::size_t draws = 0;
  bool measured() const { return draws > 0 && std::isfinite(value); }
};

/// What a warning is about: a typed fact, so that a test or a program asks `has(CheckKind::...)`.
enum class CheckKind : std::uint8_t {
  acceptance_zero,               ///< an MH sampler accepted no proposal
  acceptance_low,                ///< an MH sampler's mean acceptance is far below its target
  never_moved,                   ///< every kept draw equals the first
  configurational_temperature,   ///< T_conf away from 1 beyond its error
  kinetic_temperature,           ///< T_kin away from 1 beyond its error
};

inline const char* name_of(CheckKind k) {
  switch (k) {
    case CheckKind::acceptance_zero: return "acceptance_zero";
    case CheckKind::acceptance_low: return "acceptance_low";
    case CheckKind::never_moved: return "never_moved";
    case CheckKind::configurational_temperature: return "configurational_temperature";
    case CheckKind::kinetic_temperature: return "kinetic_temperature";
  }
  return "unknown";
}

struct CheckWarning {
  CheckKind kind;
  std::string message;  ///< what is off, by how much, and what to change
};

/// When a check warns. The defaults are documented in docs/diagnostics.md.
struct CheckThresholds {
  /// HMC's acceptance is optimal near 0.65 (Beskos, Pillai, Roberts, Sanz-Serna & Stuart 2013); below
  /// this the step is far too large and most of the work is thrown away.
  double acceptance_low = 0.25;
  double temperature_z = 4.0;           ///< |T − 1| > z·se: beyond the chain's Monte Carlo error
  double temperature_relevance = 0.10;  ///< and |T − 1| > this: a bias worth a warning
};

/// The checks' findings for one chain.
struct ChainCheck {
  std::size_t draws = 0;   ///< kept draws seen
  std::size_t moves = 0;   ///< kept draws that differ from the kept draw before them
  double acceptance = std::numeric_limits<double>::quiet_NaN();  ///< mean over kept steps (MH samplers)
  Measured configurational;  ///< T_conf on the subsample (flat targets with an exact gradient)
  Measured kinetic;          ///< T_kin on the subsample (momentum samplers)
  std::string configurational_skipped;  ///< why T_conf was not measured, when it was not
  std::vector<CheckWarning> warnings;
  bool ok() const { return warnings.empty(); }
  bool has(CheckKind k) const {
    return std::any_of(warnings.begin(), warnings.end(), [k](const CheckWarning& w) { return w.kind == k; });
  }
};

/// The mean of `terms` with se = sd/√ESS, the ESS that of the series as a chain (Stan's ess_basic) or,
/// when given, `ess`; a series too short has se NaN; a constant one, se 0.
inline Measured mean_with_error(const Eigen::VectorXd& terms, double ess = std::numeric_limits<double>::quiet_NaN()) {
  Measured m;
  m.draws = static_cast<std::size_t>(terms.size());
  if (terms.size() == 0) return m;
  m.value = terms.mean();
  if (terms.size() < 8) return m;
  const double var = (terms.array() - m.value).square().sum() / static_cast<double>(terms.size() - 1);
  if (var == 0) {
    m.se = 0;
    return m;
  }
  if (std::isnan(ess)) ess = ess_basic({terms});
  m.se = std::isfinite(ess) && ess > 0 ? std::sqrt(var / ess) : std::numeric_limits<double>::quiet_NaN();
  return m;
}

/// Feeds on a chain's kept draws (in order) and judges them. Use: construct with the draws expected,
/// `observe` each kept draw, then `finish` (with the target's exact gradient for T_conf, if there is one).
/// @code
///   diagnostics::ChainChecker checker(dim, expected_draws, {.has_acceptance = true});
///   for (each kept draw x with its StepInfo info) checker.observe(x, info);
///   diagnostics::ChainCheck report = checker.finish([&](const auto& x, auto& g) { potential.exact_gradient(x, g); });
/// @endcode
class ChainChecker {
 public:
  struct Facts {
    bool has_acceptance = false;   ///< the sampler's steps report a Metropolis acceptance
    Eigen::Index momentum_dim = 0;  ///< m of a momentum sampler (its kinetic energy is vᵀv/2); 0: none
  };
  static constexpr std::size_t max_points = 1000;           ///< subsample size (T_conf costs one gradient each)
  static constexpr std::size_t max_values = std::size_t{1} << 19;  ///< doubles kept: 4 MiB, as a round of draws

  ChainChecker(Eigen::Index dim, std::uint64_t expected_draws, Facts facts, CheckThresholds thresholds = {})
      : dim_(dim), facts_(facts), thresholds_(thresholds) {
    const std::size_t by_memory = std::max<std::size_t>(1, max_values / static_cast<std::size_t>(std::max<Eigen::Index>(1, dim)));
    const std::size_t points = std::min(max_points, by_memory);
    stride_ = std::max<std::uint64_t>(1, (expected_draws + points - 1) / points);
    capacity_ = points;
  }

  /// One kept draw, in the chain's order.
  void observe(const Eigen::Ref<const Eigen::VectorXd>& x, const StepInfo& info) {
    if (draws_ > 0 && x != last_) ++moves_;
    if (draws_ == 0 || x != last_) last_ = x;
    if (facts_.has_acceptance) acceptance_sum_ += info.acceptance;
    if (draws_ % stride_ == 0 && points_.size() < capacity_ * static_cast<std::size_t>(dim_)) {
      points_.insert(points_.end(), x.data(), x.data() + x.size());
      kinetic_.push_back(info.kinetic_energy);
    }
    ++draws_;
  }

  /// The subsample's points (columns), for a caller that computes the scores itself.
  Eigen::Map<const Eigen::MatrixXd> points() const {
    return {points_.data(), dim_, static_cast<Eigen::Index>(dim_ > 0 ? points_.size() / static_cast<std::size_t>(dim_) : 0)};
  }

  /// The findings. `gradient(x, g)`, when given (not nullptr), is the target's exact ∇U at x: T_conf is
  /// then measured on the subsample, or on every k-th point of it when it has more than `max_gradients`
  /// (one gradient each); `skipped` says why it is not measured (kept in the report).
  template <class Gradient>
  ChainCheck finish(const Gradient& gradient, std::string skipped = {}, std::size_t max_gradients = max_points) const {
    ChainCheck out = counts();
    const Eigen::Map<const Eigen::MatrixXd> all = points();
    if constexpr (!std::is_null_pointer_v<Gradient>) {
      const Eigen::Index k = (all.cols() + static_cast<Eigen::Index>(std::max<std::size_t>(1, max_gradients)) - 1) /
                             static_cast<Eigen::Index>(std::max<std::size_t>(1, max_gradients));
      const Eigen::Index used = k > 0 ? (all.cols() + k - 1) / k : 0;
      if (used >= 8) {
        Eigen::MatrixXd x(dim_, used);
        for (Eigen::Index i = 0; i < used; ++i) x.col(i) = all.col(i * k);
        // Per coordinate j the terms (x_j − x̄_j)∂_jU, whose mean is 1 under the target too. The se of
        // their average takes the ESS of the slowest coordinate's terms: a direction the chain has not
        // yet explored makes T_conf uncertain, not wrong (HMC with a well-mixed stiff coordinate and
        // a slow one gave 0.69 ± 0.035 from the sum's own ESS; the slow direction's ESS was 2).
        const Eigen::VectorXd mean = x.rowwise().mean();
        Eigen::MatrixXd per(dim_, used);
        Eigen::VectorXd point(dim_), g(dim_);
        for (Eigen::Index i = 0; i < used; ++i) {
          point = x.col(i);
          gradient(point, g);
          per.col(i) = (point - mean).cwiseProduct(g);
        }
        double slowest = std::numeric_limits<double>::infinity();
        for (Eigen::Index j = 0; j < dim_; ++j) {
          const Eigen::VectorXd row = per.row(j).transpose();
          if ((row.array() != row[0]).any()) slowest = std::min(slowest, ess_basic({row}));
        }
        const Eigen::VectorXd terms = per.colwise().sum().transpose() / static_cast<double>(dim_);
        out.configurational = mean_with_error(terms, std::isfinite(slowest) ? slowest : std::numeric_limits<double>::quiet_NaN());
      } else {
        skipped = fmt::format("{} draws: too few to measure", used);
      }
    }
    out.configurational_skipped = out.configurational.measured() ? std::string{} : std::move(skipped);
    judge(out);
    return out;
  }
  ChainCheck finish() const { return finish(nullptr, "no exact gradient given"); }

 private:
  ChainCheck counts() const {
    ChainCheck out;
    out.draws = draws_;
    out.moves = moves_;
    if (facts_.has_acceptance && draws_ > 0) out.acceptance = acceptance_sum_ / static_cast<double>(draws_);
    if (facts_.momentum_dim > 0) {
      Eigen::VectorXd t(static_cast<Eigen::Index>(kinetic_.size()));
      for (std::size_t i = 0; i < kinetic_.size(); ++i) t[static_cast<Eigen::Index>(i)] = 2 * kinetic_[i] / static_cast<double>(facts_.momentum_dim);
      if (t.allFinite()) out.kinetic = mean_with_error(t);
    }
    return out;
  }

  void judge(ChainCheck& out) const {
    const CheckThresholds& t = thresholds_;
    if (out.draws == 0) return;
    if (facts_.has_acceptance && out.acceptance == 0)
      out.warnings.push_back({CheckKind::acceptance_zero,
                              fmt::format("accepted no proposal in {} kept steps: every draw is the point it started from. The step "
                                          "size is far too large for this target: lower it (by 10x, then tune)",
                                          out.draws)});
    else if (facts_.has_acceptance && out.acceptance < t.acceptance_low)
      out.warnings.push_back({CheckKind::acceptance_low,
                              fmt::format("mean acceptance {:.3f}, far below the 0.6-0.9 a well-tuned HMC has: most trajectories "
                                          "are thrown away. Lower the step size",
                                          out.acceptance)});
    if (out.draws > 1 && out.moves == 0)
      out.warnings.push_back({CheckKind::never_moved,
                              fmt::format("never moved: all {} kept draws are the same point, so its mean is that point and its sd 0. "
                                          "Every step was rejected, or the step size or the gradient is zero: lower the step size, "
                                          "check the gradient",
                                          out.draws)});
    if (out.has(CheckKind::never_moved)) return;  // its temperatures only repeat it
    const auto off = [&](const Measured& m) {
      const double gap = std::abs(m.value - 1);
      return m.measured() && gap > t.temperature_relevance && (!(m.se >= 0) || gap > t.temperature_z * m.se);
    };
    if (off(out.configurational))
      out.warnings.push_back({CheckKind::configurational_temperature,
                              fmt::format("configurational temperature {:.3g} ± {:.2g} (1 under the target, from {} draws): the draws "
                                          "are spread {} than the target in the gradient's directions. The step size is too large for "
                                          "this target{}: lower it until the temperature is 1 within its error{}",
                                          out.configurational.value, out.configurational.se, out.configurational.draws,
                                          out.configurational.value > 1 ? "wider" : "narrower",
                                          facts_.momentum_dim > 0 ? " (or, with noisy gradients, the friction too small)" : "",
                                          out.configurational.value < 1 ? " (or, if ESS is low, run longer: the chain may not have spread yet)"
                                                                        : "")});
    if (off(out.kinetic))
      out.warnings.push_back({CheckKind::kinetic_temperature,
                              fmt::format("kinetic temperature {:.3g} ± {:.2g} (1 under the target, from {} draws): the momentum is {}. "
                                          "The step size is too large for the friction, or the gradient noise is not corrected: lower "
                                          "the step size, raise the friction, or set noise_estimate",
                                          out.kinetic.value, out.kinetic.se, out.kinetic.draws,
                                          out.kinetic.value > 1 ? "too hot" : "too cold")});
  }

  Eigen::Index dim_;
  Facts facts_;
  CheckThresholds thresholds_;
  std::uint64_t stride_ = 1;
  std::size_t capacity_ = 0;
  std::uint64_t draws_ = 0, moves_ = 0;
  double acceptance_sum_ = 0;
  Eigen::VectorXd last_;
  std::vector<double> points_;
  std::vector<double> kinetic_;
};

}  // namespace sgmcmc::diagnostics
