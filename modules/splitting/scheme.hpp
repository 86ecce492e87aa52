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
  /// The scheme claims weak order 2, as a symmetric (palindromic) composition of exact sub-flows has
  /// (Leimkuhler & Matthews 2013, §2; Chen, Ding & Carin 2015, Thm. 3): validate() then requires the
  /// palindrome, so a user's stage list with a typo cannot claim an order it does not have.
  bool second_order = false;
  std::span<const Stage> stages() const { return {list.data(), count}; }
  /// Stage i and stage count − 1 − i are the same operation over the same fraction of h.
  bool palindromic() const {
    for (std::size_t i = 0; i < count / 2; ++i)
      if (list[i].op != list[count - 1 - i].op || list[i].fraction != list[count - 1 - i].fraction) return false;
    return true;
  }
  /// Whether the scheme is written in Leimkuhler & Matthews's operations (Op::gradient_kick, Op::exact_ou).
  bool leimkuhler_matthews() const {
    for (const Stage& s : stages())
      if (s.op == Op::gradient_kick || s.op == Op::exact_ou) return true;
    return false;
  }
  /// Throws unless the scheme is a step of the dynamics: at least one stage, positive finite fractions,
  /// and for each part of the SDE the fractions of its stages adding up to 1 — else one step integrates
  /// that part over another time than h, and the chain samples another distribution without a word
  /// (issue #39: an empty list ran with status ok and never moved). The parts are, in the seed papers'
  /// letters, the flow (A), the friction (B or B_explicit) and the noisy kick (O); in Leimkuhler &
  /// Matthews's, the flow (A), the gradient-only kick (gradient_kick) and the exact OU (exact_ou), with
  /// exactly one exact_ou stage: its gradient-noise correction covers the whole step's kicks
  /// (docs/math.md#leimkuhler-matthews-baoab). The two alphabets are not mixed: O already injects the
  /// friction's noise, so O with exact_ou would inject it twice, and B with exact_ou damp twice.
  void validate() const {
    const std::string who = name.empty() ? std::string("scheme") : "scheme '" + std::string(name) + "'";
    require(count >= 1 && count <= list.size(), "{}: expected 1 to {} stages, got {}", who, list.size(), count);
    require(!second_order || palindromic(), "{}: claims second order (second_order = true) but its stages are not a "
            "palindrome: only a symmetric composition is second order; make it symmetric or drop the claim", who);
    double a = 0, b = 0, o = 0, kick = 0, ou = 0;
    int ou_stages = 0;
    bool seed = false;
    for (const Stage& s : stages()) {
      require(std::isfinite(s.fraction) && s.fraction > 0, "{}: a stage's fraction must be positive, got {}", who, s.fraction);
      switch (s.op) {
        case Op::A: a += s.fraction; break;
        case Op::B:
        case Op::B_explicit: b += s.fraction, seed = true; break;
        case Op::O: o += s.fraction, seed = true; break;
        case Op::gradient_kick: kick += s.fraction; break;
        case Op::exact_ou: ou += s.fraction, ++ou_stages; break;
      }
    }
    const auto one = [&](double total, const char* what) {
      require(std::abs(total - 1.0) <= 1e-12, "{}: the fractions of {} add up to {}, not 1: a step would not integrate it over h",
              who, what, total);
    };
    one(a, "A (the flow)");
    if (!leimkuhler_matthews()) {
      one(b, "B (the friction)");
      one(o, "O (the kick)");
      return;
    }
    require(!seed, "{}: mixes the seed papers' B/B_explicit/O (friction, noisy kick) with Leimkuhler & Matthews's "
            "gradient_kick/exact_ou: the friction and its noise would be applied twice; write the step in one alphabet", who);
    one(kick, "gradient_kick (the gradient-only kick)");
    one(ou, "exact_ou (the Ornstein-Uhlenbeck step)");
    require(ou_stages == 1, "{}: expected one exact_ou stage, got {}: its gradient-noise correction is derived for the "
            "whole step's kicks (docs/math.md#leimkuhler-matthews-baoab)", who, ou_stages);
  }
};
static_assert(Scheme<StageList>);

/// ABOBA (seed papers' letters: flow, friction, noisy kick): A(h/2) B(h/2) O(h) B(h/2) A(h/2). One gradient per step, symmetric, second order in weak
/// error (Leimkuhler & Matthews 2013 for the flat case; Liu, Zhu & Song 2016 §3.2 on manifolds).
inline constexpr StageList aboba{"aboba", {{{Op::A, 0.5}, {Op::B, 0.5}, {Op::O, 1.0}, {Op::B, 0.5}, {Op::A, 0.5}}}, 5, true};
/// The seed papers' "BAOAB" (config "baoab"), in their letters: friction(h/2) flow(h/2) noisy-kick(h)
/// flow(h/2) friction(h/2). Also second order. NOT Leimkuhler & Matthews's BAOAB, whose B is a
/// gradient-only kick and O the exact OU step: that one is `lm_baoab` below.
inline constexpr StageList baoab{"baoab", {{{Op::B, 0.5}, {Op::A, 0.5}, {Op::O, 1.0}, {Op::A, 0.5}, {Op::B, 0.5}}}, 5, true};
/// OBABO (seed papers' letters: noisy kick, friction, flow): O(h/2) B(h/2) A(h) B(h/2) O(h/2). Two gradients per step (each O draws a fresh one).
inline constexpr StageList obabo{"obabo", {{{Op::O, 0.5}, {Op::B, 0.5}, {Op::A, 1.0}, {Op::B, 0.5}, {Op::O, 0.5}}}, 5, true};
/// First-order Euler in the ordering of the SGHMC paper's Algorithm 2 (Chen, Fox & Guestrin 2014):
/// θ <- θ + h r, then r <- r - h∇Ũ(θ) - hCr + N(0, 2(C - B̂)h), friction on the old r.
inline constexpr StageList euler{"euler", {{{Op::A, 1.0}, {Op::B_explicit, 1.0}, {Op::O, 1.0}}}, 3};

/// Leimkuhler & Matthews's BAOAB (2013, AMRX, arXiv:1203.5428; the 2015 book, ch. 7) for SGHMC-type
/// dynamics (config "lm_baoab"): gradient_kick(h/2) flow(h/2) exact_ou(h) flow(h/2) gradient_kick(h/2).
/// Two fresh stochastic gradients per step (one per kick: reusing the last kick's gradient in the next
/// step's first would carry it in the state and double its noise's weight); the OU's injected variance
/// 1 - e^{-2Ch} is lowered by (1 + e^{-Ch})²·V̂h²/8 for the kicks' gradient noise. With exact gradients
/// its x-marginal on a Gaussian target is exact at any h and friction (docs/math.md#leimkuhler-matthews-baoab).
inline constexpr StageList lm_baoab{"lm_baoab",
                                    {{{Op::gradient_kick, 0.5}, {Op::A, 0.5}, {Op::exact_ou, 1.0}, {Op::A, 0.5}, {Op::gradient_kick, 0.5}}},
                                    5, true};

/// The schemes by their config names (docs/config.md): "baoab" is the seed papers' (splitting::baoab),
/// "lm_baoab" Leimkuhler & Matthews's.
inline StageList scheme_by_name(std::string_view name) {
  for (const StageList* s : {&aboba, &baoab, &obabo, &euler, &lm_baoab})
    if (s->name == name) return *s;
  throw Error("unknown scheme '" + std::string(name) +
              "' (known: aboba, baoab, obabo, euler — the seed papers' letters, B friction and O noisy kick — and "
              "lm_baoab, Leimkuhler & Matthews's BAOAB)");
}

}  // namespace sgmcmc::splitting
