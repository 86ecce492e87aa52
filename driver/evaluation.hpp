#pragma once
// Held-out evaluations as observers of the driver loop (driver/chain.hpp): evaluate every k steps (and at
// a last step), on a clock that counts sampling time only — the time spent inside evaluations is
// excluded, so "error against seconds" curves measure the sampler, not the evaluation — and stop on a
// budget of that sampling time.
//
//   SamplingClock clock;
//   auto eval = Every{40, [&](const StepEvent& e) { curve.push_back({e.step, clock.seconds(), error(e.position)}); },
//                     &clock, steps};
//   chain.run(Retention{}, StopAfter{steps}, eval);                      // or SamplingBudget{60.0, &clock}
#include <chrono>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <sgmcmc/driver/chain.hpp>

namespace sgmcmc {

/// Sampling time: wall-clock time since construction (or restart), less the time evaluations took.
class SamplingClock {
 public:
  using clock = std::chrono::steady_clock;
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count() - excluded_; }
  void restart() { start_ = clock::now(), excluded_ = 0; }
  /// Excludes the time `f()` takes from the sampling time.
  template <class F>
  decltype(auto) excluding(F&& f) {
    struct Guard {
      SamplingClock& c;
      clock::time_point t0 = clock::now();
      ~Guard() { c.excluded_ += std::chrono::duration<double>(clock::now() - t0).count(); }
    } guard{*this};
    return std::forward<F>(f)();
  }

 private:
  clock::time_point start_ = clock::now();
  double excluded_ = 0;
};

/// Calls `evaluate(event)` after every `every`-th step (global step index) and after step `last` if it
/// is not 0; its time is excluded from `clock` when one is given. `evaluate` returns void (go on) or a
/// Control (it may stop the chain, e.g. on a held-out criterion).
template <class F>
  requires std::invocable<F&, const StepEvent&>
struct Every {
  std::uint64_t every;
  F evaluate;
  SamplingClock* clock = nullptr;
  std::uint64_t last = 0;

  Control operator()(const StepEvent& e) {
    if (e.step % every != 0 && e.step != last) return Control::proceed;
    auto call = [&]() -> Control {
      if constexpr (std::same_as<std::invoke_result_t<F&, const StepEvent&>, Control>) {
        return evaluate(e);
      } else {
        evaluate(e);
        return Control::proceed;
      }
    };
    return clock ? clock->excluding(call) : call();
  }
};
template <class F>
Every(std::uint64_t, F) -> Every<F>;
template <class F>
Every(std::uint64_t, F, SamplingClock*) -> Every<F>;
template <class F>
Every(std::uint64_t, F, SamplingClock*, std::uint64_t) -> Every<F>;

/// Stops once `clock` shows `seconds` of sampling time (read every `check_every` steps: a step of
/// microseconds pays nothing for it; set 1 for steps of milliseconds).
struct SamplingBudget {
  double seconds;
  const SamplingClock* clock;
  std::uint64_t check_every = 64;
  std::uint64_t calls = 0;
  Control operator()(const StepEvent&) {
    if (++calls % check_every != 0) return Control::proceed;
    return clock->seconds() >= seconds ? Control::stop : Control::proceed;
  }
};

}  // namespace sgmcmc
