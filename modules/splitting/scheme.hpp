#pragma once
// The splitting schemes, as data (docs/math.md#split-dynamics). One skeleton (step.hpp) runs any of them.
#include <array>
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
