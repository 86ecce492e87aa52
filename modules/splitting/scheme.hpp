#pragma once
// The splitting schemes, as data (docs/math.md#split-dynamics). One skeleton (step.hpp) runs any of them.
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <string_view>

#include <sgmcmc/concepts/dynamics.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::splitting {

/// A fixed-capacity list of stages: no allocation, copyable, usable as a constant.
struct StageList {
  std::string_view name;
  std::array<Stage, 8> list{};
  std::size_t count = 0;
  std::span<const Stage> stages() const { return {list.data(), count}; }
  /// Throws unless the scheme is a step of the dynamics: at least one stage, positive finite fractions,
  /// and for each of the flow (A), the friction (B or B_explicit) and the kick (O) fractions adding up
  /// to 1 — else one step integrates its part of the SDE over another time than h, and the chain samples
  /// another distribution without a word (issue #39: an empty list ran with status ok and never moved).
  void validate() const {
    const std::string who = name.empty() ? std::string("scheme") : "scheme '" + std::string(name) + "'";
    require(count >= 1 && count <= list.size(), "{}: expected 1 to {} stages, got {}", who, list.size(), count);
    double a = 0, b = 0, o = 0;
    for (const Stage& s : stages()) {
      require(std::isfinite(s.fraction) && s.fraction > 0, "{}: a stage's fraction must be positive, got {}", who, s.fraction);
      (s.op == Op::A ? a : s.op == Op::O ? o : b) += s.fraction;
    }
    const auto one = [&](double total, const char* what) {
      require(std::abs(total - 1.0) <= 1e-12, "{}: the fractions of {} add up to {}, not 1: a step would not integrate it over h",
              who, what, total);
    };
    one(a, "A (the flow)");
    one(b, "B (the friction)");
    one(o, "O (the kick)");
  }
};
static_assert(Scheme<StageList>);

/// ABOBA: A(h/2) B(h/2) O(h) B(h/2) A(h/2). One gradient per step, symmetric, second order in weak
/// error (Leimkuhler & Matthews 2013 for the flat case; Liu, Zhu & Song 2016 §3.2 on manifolds).
inline constexpr StageList aboba{"aboba", {{{Op::A, 0.5}, {Op::B, 0.5}, {Op::O, 1.0}, {Op::B, 0.5}, {Op::A, 0.5}}}, 5};
/// BAOAB in these papers' letters: B(h/2) A(h/2) O(h) A(h/2) B(h/2). Also second order.
inline constexpr StageList baoab{"baoab", {{{Op::B, 0.5}, {Op::A, 0.5}, {Op::O, 1.0}, {Op::A, 0.5}, {Op::B, 0.5}}}, 5};
/// OBABO: O(h/2) B(h/2) A(h) B(h/2) O(h/2). Two gradients per step (each O draws a fresh one).
inline constexpr StageList obabo{"obabo", {{{Op::O, 0.5}, {Op::B, 0.5}, {Op::A, 1.0}, {Op::B, 0.5}, {Op::O, 0.5}}}, 5};
/// First-order Euler in the ordering of the SGHMC paper's Algorithm 2 (Chen, Fox & Guestrin 2014):
/// θ <- θ + h r, then r <- r - h∇Ũ(θ) - hCr + N(0, 2(C - B̂)h), friction on the old r.
inline constexpr StageList euler{"euler", {{{Op::A, 1.0}, {Op::B_explicit, 1.0}, {Op::O, 1.0}}}, 3};

inline StageList scheme_by_name(std::string_view name) {
  for (const StageList* s : {&aboba, &baoab, &obabo, &euler})
    if (s->name == name) return *s;
  throw Error("unknown scheme '" + std::string(name) + "' (known: aboba, baoab, obabo, euler)");
}

}  // namespace sgmcmc::splitting
