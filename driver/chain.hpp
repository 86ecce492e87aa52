#pragma once
// The driver: one loop that advances a chain of any Sampler, and observers that watch it. Every step
// reports a StepInfo; the chain keeps running totals; draws are kept by the *global* step index, so a
// chain advanced N steps and then N more keeps exactly the draws of one 2N-step run (resume is exact).
// What to do with a kept draw (keep it in memory, stream it to a file), when to stop (a number of
// steps, a wall-clock budget, a user condition) and how to show progress are observers of that one
// loop. A non-finite position stops the chain with a clear error; the draws made before it are kept.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <concepts>
#include <limits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/concepts/random.hpp>
#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace sgmcmc {

// 128-bit arithmetic for Retention's floor sums (__extension__: the type is a GCC/Clang extension).
__extension__ typedef unsigned __int128 uint128_for_counts;

/// Which steps keep a draw: step t (1-based) is kept when t > burn_in, (t - burn_in) % thin == 0 and,
/// under a cyclical schedule with exploration stages, step t - 1 (0-based) is not one of the first
/// `explore_steps` of its cycle of `cycle` steps (schedule::StepSize::explores).
struct Retention {
  std::uint64_t burn_in = 0;
  std::uint64_t thin = 1;
  std::uint64_t cycle = 0;          ///< L of a cyclical schedule with exploration (0: none)
  std::uint64_t explore_steps = 0;  ///< E < L: the steps that open each cycle and keep nothing
  /// Also keep warm-up draws (config `save_warmup`): step t ≤ burn_in with (t − 1) % thin = 0, so
  /// ⌈burn_in / thin⌉ of them, CmdStan's count (its warm-up iterations 0, thin, 2·thin, …).
  bool save_warmup = false;
  bool explores(std::uint64_t t) const { return explore_steps > 0 && cycle > 0 && (t - 1) % cycle < explore_steps; }
  bool keeps(std::uint64_t t) const { return t > burn_in && (t - burn_in) % thin == 0 && !explores(t); }
  bool keeps_warmup(std::uint64_t t) const { return save_warmup && t >= 1 && t <= burn_in && (t - 1) % thin == 0; }
  /// Warm-up draws kept by the end of step t.
  std::uint64_t warmup_kept_by(std::uint64_t t) const {
    const std::uint64_t w = std::min(t, burn_in);
    return save_warmup && w > 0 ? (w - 1) / thin + 1 : 0;
  }
  /// Draws kept by the end of step t, in O(log) time whatever t: with exploration stages, the count of
  /// i < K = (t − burn_in)/thin with mod(c + i·thin, L) ≥ E, c = burn_in + thin − 1, is
  /// Σ⌊(c + L − E + i·thin)/L⌋ − Σ⌊(c + i·thin)/L⌋ (each term of the difference is 1 or 0). The sums are
  /// taken modulo 2¹²⁸; their difference, at most K, is exact.
  std::uint64_t kept_by(std::uint64_t t) const {
    const std::uint64_t k = t > burn_in ? (t - burn_in) / thin : 0;
    if (explore_steps == 0 || cycle == 0 || k == 0) return k;
    const uint128_for_counts c = uint128_for_counts{burn_in} + thin - 1;
    return static_cast<std::uint64_t>(floor_sum(k, cycle, thin, c + cycle - explore_steps) - floor_sum(k, cycle, thin, c));
  }
  /// The first step by which `count` draws are kept (the largest step count if none is).
  std::uint64_t step_keeping(std::uint64_t count) const {
    constexpr std::uint64_t last = std::numeric_limits<std::uint64_t>::max();
    if (count == 0) return 0;
    if (kept_by(last) < count) return last;
    std::uint64_t lo = 0, hi = last;  // kept_by(lo) < count <= kept_by(hi)
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (kept_by(mid) >= count ? hi : lo) = mid;
    }
    return hi;
  }
  /// Keeps no draw (a run whose observers use the current point themselves: nothing is stored or
  /// described).
  static constexpr Retention none() { return {std::numeric_limits<std::uint64_t>::max(), 1}; }

 private:
  /// Σ_{i<n} ⌊(a·i + b)/m⌋ modulo 2¹²⁸ (the Euclidean-like reduction of AtCoder Library's floor_sum).
  using u128 = uint128_for_counts;
  static u128 floor_sum(u128 n, u128 m, u128 a, u128 b) {
    u128 sum = 0;
    for (;;) {
      if (a >= m) {
        sum += (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2)) * (a / m);
        a %= m;
      }
      if (b >= m) {
        sum += n * (b / m);
        b %= m;
      }
      const u128 y = a * n + b;
      if (y < m) return sum;
      n = y / m;
      b = y % m;
      std::swap(m, a);
    }
  }
};

/// Running totals of a chain's step statistics: its diagnostics, saved with the chain so that a
/// resumed chain continues them.
struct ChainTotals {
  std::uint64_t gradient_evals = 0;
  std::uint64_t reflections = 0;
  std::uint64_t divergent = 0;  ///< steps that reported a divergence (rejected MH trajectories)
  double accept_sum = 0.0;      ///< sum of the acceptance statistics over all steps
  /// Σ vᵀv = 2·kinetic energy over the kept draws of a momentum sampler, and their number: the kinetic
  /// temperature ⟨vᵀv⟩/m (unit mass; m the momentum's dimension), 1 at the target's temperature.
  double kinetic_sum = 0.0;
  std::uint64_t kinetic_draws = 0;
  void add(const StepInfo& info) {
    gradient_evals += info.gradient_evals;
    reflections += info.reflections;
    divergent += info.divergent ? 1 : 0;
    accept_sum += info.acceptance;
  }
};

/// Why a chain stopped early; empty when it ran as asked. Not to be dropped: a chain that stopped has
/// fewer draws than asked for, and its last state is not a draw from the target.
struct [[nodiscard]] ChainStatus {
  std::string error;
  bool ok() const { return error.empty(); }
};

/// What an observer sees after each step. `info`'s state-derived statistics (kinetic energy, ξ) are
/// filled only when `kept`.
struct StepEvent {
  std::uint64_t step;               ///< the global index of the step just taken (1-based)
  const Eigen::VectorXd& position;  ///< the chain's position after it
  const StepInfo& info;
  bool kept;                        ///< the Retention keeps this step's draw
  bool warmup_kept = false;         ///< the Retention keeps this warm-up step's draw (save_warmup)
};

enum class Control : bool { proceed, stop };

/// An observer of the driver loop: called after every step, it may ask the loop to stop.
/// @code
///   auto until_positive = [](const StepEvent& e) { return e.position[0] > 0 ? Control::stop : Control::proceed; };
///   chain.run(Retention{}, StopAfter{1000}, until_positive);
/// @endcode
template <class O>
concept Observer = requires(O& o, const StepEvent& e) {
  { o(e) } -> std::same_as<Control>;
};

/// An observer that may have nothing left to allow before the loop starts (StopAfter{0}): the driver
/// then takes no step at all, rather than the one step an observer could only stop after.
template <class O>
concept ObserverWithLimit = Observer<O> && requires(const O& o) {
  { o.exhausted() } -> std::same_as<bool>;
};

/// Stops after n steps of this run (n = 0: no step).
struct StopAfter {
  std::uint64_t n;
  std::uint64_t done = 0;
  Control operator()(const StepEvent&) { return ++done >= n ? Control::stop : Control::proceed; }
  bool exhausted() const { return done >= n; }
};

/// Stops at the first non-finite position, checked after every step (the driver itself checks every
/// 16 steps and at kept draws, which costs nothing for cheap steps; for steps of milliseconds, this
/// makes the chain end exactly at the step that diverged). The run then returns the driver's
/// non-finite error. Observers listed after it still see that step: they may test `diverged`.
struct StopOnNonFinite {
  bool diverged = false;
  Control operator()(const StepEvent& e) {
    diverged = !e.position.allFinite();
    return diverged ? Control::stop : Control::proceed;
  }
};

/// Stops once `seconds` of wall-clock time have passed since its construction (read every 64 steps, so
/// a step of microseconds pays nothing for it).
struct WallClockBudget {
  double seconds;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::uint64_t calls = 0;
  Control operator()(const StepEvent&) {
    if ((++calls & 63) != 0) return Control::proceed;
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return used >= seconds ? Control::stop : Control::proceed;
  }
};

/// Stops when a flag another thread (or a signal handler) sets is seen, read every 64 steps so a step
/// of microseconds pays nothing for it. A null flag never stops.
struct StopOnFlag {
  const std::atomic<bool>* flag;
  std::uint64_t calls = 0;
  Control operator()(const StepEvent&) {
    if (!flag || (++calls & 63) != 0) return Control::proceed;
    return flag->load(std::memory_order_relaxed) ? Control::stop : Control::proceed;
  }
};

/// Adds the steps taken to a shared counter (a progress bar reads it from another thread), in batches
/// of 256 so the counter is not contended every step; the remainder is added when it goes out of scope.
class Progress {
 public:
  explicit Progress(std::atomic<std::uint64_t>* counter) : counter_(counter) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() {
    if (counter_ && pending_) counter_->fetch_add(pending_, std::memory_order_relaxed);
  }
  Control operator()(const StepEvent&) {
    if (counter_ && ++pending_ == 256) counter_->fetch_add(std::exchange(pending_, 0), std::memory_order_relaxed);
    return Control::proceed;
  }

 private:
  std::atomic<std::uint64_t>* counter_;
  std::uint64_t pending_ = 0;
};

/// Kept draws of one chain, row after row (each row one point's embedded coordinates), with the step's
/// statistics at each kept draw, and lp = −U(x) at each when `with_lp` (filled by the run layer). With
/// warm-up draws kept (Retention::save_warmup), the first `warmup_rows` rows are warm-up draws: they
/// precede every draw after the burn-in.
struct Draws {
  Eigen::Index dim = 0;
  std::vector<double> values;
  std::vector<StepInfo> stats;
  bool with_lp = false;
  std::vector<double> lp;
  std::size_t warmup_rows = 0;
  void clear() {
    values.clear();
    stats.clear();
    lp.clear();
    warmup_rows = 0;
  }
  std::size_t count() const { return dim == 0 ? 0 : values.size() / static_cast<std::size_t>(dim); }
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> matrix() const {
    return {values.data(), static_cast<Eigen::Index>(count()), dim};
  }
  void append(const Eigen::VectorXd& x, const StepInfo& info) {
    if (dim == 0) dim = x.size();
    values.insert(values.end(), x.data(), x.data() + x.size());
    stats.push_back(info);
  }
};

/// An observer that appends every kept draw (and kept warm-up draw) to `Draws`.
struct KeepDraws {
  Draws& out;
  Control operator()(const StepEvent& e) {
    if (e.kept || e.warmup_kept) out.append(e.position, e.info);
    if (e.warmup_kept) ++out.warmup_rows;
    return Control::proceed;
  }
};

/// A chain: sampler + potential + state + its own random engine. Copying a chain forks it.
template <class S, class P, RandomEngine R = random::Stream>
  requires Sampler<S, P, R>
struct Chain {
  S sampler;
  P potential;
  typename S::State state;
  R rng;
  std::uint64_t steps_done = 0;
  ChainTotals totals;

  Chain(S s, P p, Eigen::VectorXd x0, R r) : sampler(std::move(s)), potential(std::move(p)), rng(std::move(r)) {
    state = sampler.init(std::move(x0), rng);
  }

  const Eigen::VectorXd& position() const { return sampler.position(state); }

  /// Kept draws farther than this from the sampler's manifold (its distance_to, relative to
  /// max(1, ‖x‖∞)) stop the chain (SamplerOnManifold): rounding keeps a correct flow within about 1e-12.
  double manifold_tolerance = 1e-6;

  /// The driver loop: steps until an observer says stop (every observer sees every step). Returns why
  /// the chain stopped early, or ok. With no stopping observer it runs forever. Every way a chain can
  /// fail comes back here, as a ChainStatus naming the step and the cause (issue #39): a non-finite
  /// state, a kept draw off the sampler's manifold, and a sampler's numerical failure thrown inside a
  /// step (a metric that vanished, a noise covariance that is not positive semidefinite, a D with a NaN
  /// entry) — never an exception.
  template <Observer... O>
  ChainStatus run(const Retention& keep, O&&... observers) {
    try {
      return loop(keep, observers...);
    } catch (const Error& e) {
      return failed(e.what());
    }
  }

  /// Runs n more steps, appending kept draws to `out`; `progress`, if given, counts the steps done;
  /// `stop`, if given, ends the run early once it is set (checked every 64 steps).
  ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out, std::atomic<std::uint64_t>* progress = nullptr,
                      const std::atomic<bool>* stop = nullptr) {
    if (out.dim == 0) out.dim = position().size();
    if (n == 0) return {};
    return run(keep, StopAfter{n}, KeepDraws{out}, Progress(progress), StopOnFlag{stop});
  }

 private:
  template <class O>
  static bool exhausted(const O& o) {
    if constexpr (ObserverWithLimit<O>) return o.exhausted();
    else return false;
  }
  template <class... O>
  ChainStatus loop(const Retention& keep, O&... observers) {
    constexpr std::uint64_t check_every = 16;  // a NaN never heals: checking every few steps loses nothing
    if ((exhausted(observers) || ...)) return {};
    for (;;) {
      if constexpr (ScheduledPotential<P>) potential.at_step(steps_done);  // a temperature schedule's U/T_t
      StepInfo info = sampler.step(state, potential, rng, steps_done);
      ++steps_done;
      totals.add(info);
      const bool kept = keep.keeps(steps_done), warmup_kept = !kept && keep.keeps_warmup(steps_done);
      if ((kept || warmup_kept || steps_done % check_every == 0) && !position().allFinite()) return diverged();
      if constexpr (SamplerOnManifold<S>)
        if ((kept || warmup_kept) && off_manifold() > manifold_tolerance) return left_manifold();
      if (kept || warmup_kept) sampler.describe(state, info);
      // The kinetic temperature averages over the draws after the burn-in only.
      if constexpr (S::statistics.has(stats::kinetic_energy))
        if (kept) totals.kinetic_sum += 2 * info.kinetic_energy, ++totals.kinetic_draws;
      // A potential with a state of its own (the bnn and bpmf targets' Gibbs step on prior precisions)
      // updates it between steps, given the new position, the global step count and the chain's
      // stream (for its key: the hook draws from a substream, never from the chain's own stream).
      if constexpr (PotentialWithAfterStep<P, R>) potential.after_step(position(), steps_done, std::as_const(rng));
      const StepEvent event{steps_done, position(), info, kept, warmup_kept};
      bool stop = false;
      ((stop = (observers(event) == Control::stop) || stop), ...);
      if (stop) return position().allFinite() ? ChainStatus{} : diverged();
    }
  }
  /// distance_to of the current point, relative to max(1, ‖x‖∞).
  double off_manifold() const
    requires SamplerOnManifold<S>
  {
    const Eigen::VectorXd& x = position();
    const double scale = std::max(1.0, x.size() ? x.cwiseAbs().maxCoeff() : 0.0);
    const double d = static_cast<double>(sampler.manifold_of().distance_to(x)) / scale;
    return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
  }
  ChainStatus left_manifold() const
    requires SamplerOnManifold<S>
  {
    return {fmt::format("left the manifold at step {}: the kept draw is {:.3g} from it (relative; tolerance {:.3g}). The "
                        "manifold's flow or projection does not keep points on it: check it with the conformance kit "
                        "(modules/conformance/manifold_laws.hpp); the draws kept before it are kept",
                        steps_done, off_manifold(), manifold_tolerance)};
  }
  /// A failure thrown inside step steps_done + 1: a state that had gone non-finite is named first (the
  /// thrown message then blames whatever met the NaN first, e.g. "D: non-finite entry").
  ChainStatus failed(const char* what) const {
    if (!position().allFinite())
      return {fmt::format("non-finite state at step {}: the gradient or the step size made the chain diverge (the step then "
                          "failed with: {}); the draws kept before it are kept",
                          steps_done + 1, what)};
    return {fmt::format("step {} failed: {}; the draws kept before it are kept", steps_done + 1, what)};
  }
  ChainStatus diverged() const {
    return {fmt::format("non-finite state at step {}: the gradient or the step size made the chain diverge; the draws "
                        "kept before it are kept",
                        steps_done)};
  }
};

}  // namespace sgmcmc
