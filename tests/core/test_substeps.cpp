// Unit tests of the split sub-steps, the schemes' order of operations, the samplers' single steps and
// the driver. A scripted random engine makes each expected value exact.
#include <doctest/doctest.h>

#include <deque>

#include <fmt/format.h>
#include <string>
#include <vector>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/step.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/evaluation.hpp>
#include <thread>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

// Returns scripted normals (then zeros) so a step's arithmetic can be checked exactly.
struct ScriptedEngine {
  std::deque<double> script;
  double normal() {
    if (script.empty()) return 0.0;
    const double z = script.front();
    script.pop_front();
    return z;
  }
  void normals(Eigen::Ref<VectorXd> out) {
    for (auto& z : out) z = normal();
  }
  double uniform() { return 0.5; }
  std::uint64_t below(std::uint64_t) { return 0; }
};
static_assert(RandomEngine<ScriptedEngine>);

// U = ½ a xᵀx: gradient a·x.
struct Quadratic {
  double a = 2.0;
  void exact_gradient(const VectorXd& x, VectorXd& g) const { g = a * x; }
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { exact_gradient(x, g); }
  double value(const VectorXd& x) const { return 0.5 * a * x.squaredNorm(); }
};

// A gradient that overflows: the chain must stop cleanly.
struct Exploding {
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { g = -1e300 * (x.array() + 1.0).matrix(); }
};

// Records the sequence of sub-steps a scheme calls.
struct RecordingDynamics {
  struct State { std::string log; };
  void A(State& s, double t) const { s.log += fmt::format("A{} ", t); }
  void B(State& s, double t) const { s.log += fmt::format("B{} ", t); }
  void B_explicit(State& s, double t) const { s.log += fmt::format("E{} ", t); }
  template <class P, class R> void O(State& s, const P&, double t, R&) const { s.log += fmt::format("O{} ", t); }
};
static_assert(Dynamics<RecordingDynamics>);

// Records a fused A·B·O·B·A as one entry with its five times, or declines (then the walk records it).
struct RecordingFusable : RecordingDynamics {
  bool accept = true;
  template <class P, class R> bool fused_ABOBA(State& s, const ABOBATimes& t, const P&, R&) const {
    if (accept) s.log += fmt::format("F({} {} {} {} {}) ", t.a1, t.b1, t.o, t.b2, t.a2);
    return accept;
  }
};
static_assert(FusableDynamics<RecordingFusable> && !FusableDynamics<RecordingDynamics>);

// The minimal contract: no B_explicit.
struct RecordingWithoutExplicit {
  struct State { std::string log; };
  void A(State& s, double t) const { s.log += fmt::format("A{} ", t); }
  void B(State& s, double t) const { s.log += fmt::format("B{} ", t); }
  template <class P, class R> void O(State& s, const P&, double t, R&) const { s.log += fmt::format("O{} ", t); }
};
static_assert(Dynamics<RecordingWithoutExplicit> && !DynamicsWithExplicitFriction<RecordingWithoutExplicit>);

// Records Leimkuhler & Matthews's operations too: K = gradient_kick, U = exact_ou (with the kicks' Σ t_k²).
struct RecordingLM : RecordingWithoutExplicit {
  template <class P, class R> void gradient_kick(State& s, const P&, double t, R&) const { s.log += fmt::format("K{} ", t); }
  template <class R> void exact_ou(State& s, double t, double kicks, R&) const { s.log += fmt::format("U{}({:.4f}) ", t, kicks); }
};
static_assert(DynamicsWithExactOU<RecordingLM> && !DynamicsWithExactOU<RecordingWithoutExplicit>);

std::string validate_message(const splitting::StageList& s) {
  try {
    s.validate();
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace

TEST_CASE("lm_baoab runs K½ A½ U1 A½ K½ and tells the OU the kicks' Σ t_k²; a dynamics without the operations is refused") {
  // Catches: lm_baoab's stage list mistyped; the OU told the wrong kick variance (Σ t_k² = 2·(h/2)² =
  // h²/2: one fresh gradient per kick); a gradient_kick or exact_ou silently skipped (or run as the
  // seed's B or O) on a dynamics that lacks them.
  RecordingLM::State st;
  ScriptedEngine rng;
  splitting::step(RecordingLM{}, splitting::lm_baoab, st, Quadratic{}, 0.2, rng);
  CHECK(st.log == "K0.1 A0.1 U0.2(0.0200) A0.1 K0.1 ");
  RecordingWithoutExplicit::State st2;
  CHECK_THROWS_WITH_AS(splitting::step(RecordingWithoutExplicit{}, splitting::lm_baoab, st2, Quadratic{}, 0.2, rng),
                       doctest::Contains("gradient_kick"), Error);
  // The sampler refuses it at init, before any step: SGNHT has no exact OU.
  random::Stream r0(1, 0);
  const sgnht::Sampler<Euclidean> sgnht{{Euclidean(2), 1.0, 0.0}, splitting::lm_baoab};
  CHECK_THROWS_WITH_AS(sgnht.init(VectorXd::Zero(2), r0), doctest::Contains("scheme 'lm_baoab'"), Error);
}

TEST_CASE("a scheme in Leimkuhler & Matthews's letters is checked: each part adding up to h, one OU, no seed letters") {
  // Catches: a scheme that mixes the two alphabets (the friction and its noise applied twice), kicks that
  // do not add up to h, two OU stages (the noise correction is derived for one per step).
  CHECK(validate_message(splitting::lm_baoab) == "no error");
  CHECK(validate_message(splitting::StageList{"mixed", {{{Op::gradient_kick, 1.0}, {Op::A, 1.0}, {Op::exact_ou, 1.0}, {Op::O, 1.0}}}, 4})
            .find("mixes the seed papers' B/B_explicit/O") != std::string::npos);
  CHECK(validate_message(splitting::StageList{"half", {{{Op::gradient_kick, 0.5}, {Op::A, 1.0}, {Op::exact_ou, 1.0}}}, 3}) ==
        "scheme 'half': the fractions of gradient_kick (the gradient-only kick) add up to 0.5, not 1: a step would not integrate it over h");
  CHECK(validate_message(splitting::StageList{"no_ou", {{{Op::gradient_kick, 1.0}, {Op::A, 1.0}}}, 2}).find("exact_ou (the Ornstein-Uhlenbeck step) add up to 0") !=
        std::string::npos);
  CHECK(validate_message(splitting::StageList{"two_ou", {{{Op::exact_ou, 0.5}, {Op::gradient_kick, 0.5}, {Op::A, 1.0}, {Op::gradient_kick, 0.5},
                                                          {Op::exact_ou, 0.5}}}, 5})
            .find("expected one exact_ou stage, got 2") != std::string::npos);
  // L–M's ABOBA-like arrangement in its own letters is a valid step.
  CHECK(validate_message(splitting::StageList{"lm_aboba", {{{Op::A, 0.5}, {Op::gradient_kick, 0.5}, {Op::exact_ou, 1.0},
                                                            {Op::gradient_kick, 0.5}, {Op::A, 0.5}}}, 5}) == "no error");
}

TEST_CASE("SGHMC's gradient_kick and exact_ou do exactly docs/math.md#leimkuhler-matthews-baoab") {
  // Catches: noise in the gradient kick; an OU with e^{+Ct}, with 2Ct for 1 - e^{-2Ct}, or with the
  // correction's (1 + e^{-Ct})²/4 factor missing; a correction that may go negative silently; a diagonal
  // friction treated as its first entry; an OU that leaves the tangent space on the sphere.
  const double C = 1.5, V = 0.8, t = 0.2, kicks = 0.02;
  sghmc::Dynamics<Euclidean> dyn{Euclidean(2), sghmc::Friction(C), V};
  splitting::PhaseState s(VectorXd{{1.0, -2.0}}, VectorXd{{0.5, 0.25}});
  ScriptedEngine rng{{0.3, -1.2}};
  dyn.gradient_kick(s, Quadratic{}, 0.1, rng);
  CHECK(s.v[0] == doctest::Approx(0.5 - 0.1 * 2.0 * 1.0).epsilon(1e-15));
  CHECK(s.v[1] == doctest::Approx(0.25 - 0.1 * 2.0 * -2.0).epsilon(1e-15));
  CHECK(s.gradient_evals == 1);
  CHECK(rng.script.size() == 2);  // no noise drawn
  s.v = VectorXd{{0.5, 0.25}};
  dyn.exact_ou(s, t, kicks, rng);
  const double c = std::exp(-C * t), sd = std::sqrt(1 - c * c - (1 + c) * (1 + c) / 4 * V * kicks);
  CHECK(s.v[0] == doctest::Approx(c * 0.5 + sd * 0.3).epsilon(1e-14));
  CHECK(s.v[1] == doctest::Approx(c * 0.25 - sd * 1.2).epsilon(1e-14));
  CHECK(s.gradient_evals == 1);
  // The correction may not exceed the OU's own variance; the error names the field.
  const sghmc::Dynamics<Euclidean> too_noisy{Euclidean(2), sghmc::Friction(C), 4 * (1 - c * c) / ((1 + c) * (1 + c) * kicks) + 1};
  CHECK_THROWS_WITH_AS(too_noisy.exact_ou(s, t, kicks, rng), doctest::Contains("noise_estimate"), Error);
  // A diagonal friction, per coordinate.
  const sghmc::Dynamics<Euclidean> diag{Euclidean(2), sghmc::Friction(VectorXd{{1.0, 4.0}}), 0.0};
  ScriptedEngine ones{{1.0, 1.0}};
  s.v = VectorXd{{1.0, 1.0}};
  diag.exact_ou(s, 0.5, 0.0, ones);
  CHECK(s.v[0] == doctest::Approx(std::exp(-0.5) + std::sqrt(1 - std::exp(-1.0))));
  CHECK(s.v[1] == doctest::Approx(std::exp(-2.0) + std::sqrt(1 - std::exp(-4.0))));
  // On the sphere both operations keep v in T_x S²: the kick's gradient and the OU's noise are projected.
  const sghmc::Dynamics<Sphere> sphere{Sphere(3), sghmc::Friction(1.0), 0.0};
  splitting::PhaseState p(VectorXd{{0.0, 0.0, 1.0}}, VectorXd{{0.3, -0.2, 0.0}});
  ScriptedEngine noise{{0.5, 0.7, 0.9}};
  sphere.gradient_kick(p, Quadratic{}, 0.1, noise);
  CHECK(std::abs(p.x.dot(p.v)) < 1e-15);
  sphere.exact_ou(p, 0.1, 0.0, noise);
  CHECK(std::abs(p.x.dot(p.v)) < 1e-15);
  CHECK(p.v[0] == doctest::Approx(std::exp(-0.1) * 0.3 + std::sqrt(1 - std::exp(-0.2)) * 0.5));
}

TEST_CASE("SGHMC-lm_baoab on Euclidean equals a hand-written Leimkuhler–Matthews BAOAB loop, step for step") {
  // Catches: anything in the skeleton or the dynamics that makes lm_baoab differ from the textbook
  // B(h/2) A(h/2) O(h) A(h/2) B(h/2) with a gradient-only B and the exact OU (its draws, their order,
  // the correction's V̂ h²/2 with (1 + e^{-Ch})²/4).
  const double h = 0.05, C = 2.0, V = 3.0;
  sghmc::Sampler<Euclidean> smp{{Euclidean(4), sghmc::Friction(C), V}, splitting::lm_baoab, schedule::StepSize::constant(h)};
  random::Stream rng(9, 3);
  auto s = smp.init(VectorXd::LinSpaced(4, -1, 1), rng);
  VectorXd x = s.x, v = s.v, z(4);
  random::Stream rng2 = rng;
  const Quadratic U;
  const double c = std::exp(-C * h), sd = std::sqrt(1 - c * c - (1 + c) * (1 + c) / 4 * V * h * h / 2);
  for (int k = 0; k < 100; ++k) {
    const auto info = smp.step(s, U, rng, static_cast<std::uint64_t>(k));
    CHECK(info.gradient_evals == 2);
    v += -0.5 * h * U.a * x;
    x += 0.5 * h * v;
    rng2.normals(z);
    v = c * v + sd * z;
    x += 0.5 * h * v;
    v += -0.5 * h * U.a * x;
  }
  CHECK((s.x - x).norm() < 1e-12);
  CHECK((s.v - v).norm() < 1e-12);
}

TEST_CASE("each scheme calls its sub-steps in order with the right fractions of h") {
  // Catches: a scheme whose stage list is mistyped (wrong letter, wrong fraction, wrong order).
  auto run = [](const splitting::StageList& s) {
    RecordingDynamics::State st;
    ScriptedEngine rng;
    splitting::step(RecordingDynamics{}, s, st, Quadratic{}, 0.2, rng);
    return st.log;
  };
  CHECK(run(splitting::aboba) == "A0.1 B0.1 O0.2 B0.1 A0.1 ");
  // splitting::baoab: the seed papers' letters (B friction, O noisy kick), not Leimkuhler & Matthews's (lm_baoab).
  CHECK(run(splitting::baoab) == "B0.1 A0.1 O0.2 A0.1 B0.1 ");
  CHECK(run(splitting::obabo) == "O0.1 B0.1 A0.2 B0.1 O0.1 ");
  CHECK(run(splitting::euler) == "A0.2 E0.2 O0.2 ");
}

TEST_CASE("the skeleton hands every A·B·O·B·A run to a fusable dynamics, and walks the rest") {
  // Catches: a skeleton that fuses a run that is not A·B·O·B·A, passes the wrong stage's fraction as a
  // time, skips the stages after a fused run, or drops the run when the dynamics declines.
  auto run = [](const RecordingFusable& dyn, const splitting::StageList& s, double h = 0.2) {
    RecordingFusable::State st;
    ScriptedEngine rng;
    splitting::step(dyn, s, st, Quadratic{}, h, rng);
    return st.log;
  };
  const RecordingFusable fuses{}, declines{{}, false};
  CHECK(run(fuses, splitting::aboba) == "F(0.1 0.1 0.2 0.1 0.1) ");
  CHECK(run(declines, splitting::aboba) == "A0.1 B0.1 O0.2 B0.1 A0.1 ");
  CHECK(run(fuses, splitting::baoab) == "B0.1 A0.1 O0.2 A0.1 B0.1 ");
  CHECK(run(fuses, splitting::obabo) == "O0.1 B0.1 A0.2 B0.1 O0.1 ");
  CHECK(run(fuses, splitting::euler) == "A0.2 E0.2 O0.2 ");
  // The run inside a longer scheme, with unequal fractions, twice.
  const splitting::StageList twice{"twice",
                                   {{{Op::O, 0.5}, {Op::A, 0.25}, {Op::B, 0.5}, {Op::O, 1.0}, {Op::B, 1.5}, {Op::A, 0.75},
                                     {Op::A, 0.5}, {Op::B, 0.5}}},
                                   8};
  CHECK(run(fuses, twice, 0.5) == "O0.25 F(0.125 0.25 0.5 0.75 0.375) A0.25 B0.25 ");
}

TEST_CASE("the Euler scheme needs a dynamics with a first-order friction") {
  // Catches: a B_explicit stage silently skipped (or run as B) on a dynamics of the minimal contract.
  RecordingWithoutExplicit::State st;
  ScriptedEngine rng;
  splitting::step(RecordingWithoutExplicit{}, splitting::aboba, st, Quadratic{}, 0.2, rng);
  CHECK(st.log == "A0.1 B0.1 O0.2 B0.1 A0.1 ");
  CHECK_THROWS_WITH_AS(splitting::step(RecordingWithoutExplicit{}, splitting::euler, st, Quadratic{}, 0.2, rng),
                       doctest::Contains("B_explicit"), Error);
}

TEST_CASE("SGHMC sub-steps A, B, B_explicit, O do exactly docs/math.md#split-dynamics") {
  // Catches: a sign error in the kick, friction applied as exp(+Ct), a missing sqrt(2Ct - V̂t²), a
  // noise estimate subtracted with the wrong power of t.
  const double C = 1.5, V = 0.8, t = 0.1;
  sghmc::Dynamics<Euclidean> dyn{Euclidean(2), sghmc::Friction(C), V};
  splitting::PhaseState s(VectorXd{{1.0, -2.0}}, VectorXd{{0.5, 0.25}});
  dyn.A(s, t);
  CHECK(s.x[0] == doctest::Approx(1.05).epsilon(1e-15));
  CHECK(s.x[1] == doctest::Approx(-1.975).epsilon(1e-15));
  dyn.B(s, t);
  CHECK(s.v[0] == doctest::Approx(0.5 * std::exp(-C * t)).epsilon(1e-15));
  s.v = VectorXd{{0.5, 0.25}};
  dyn.B_explicit(s, t);
  CHECK(s.v[1] == doctest::Approx(0.25 * (1 - C * t)).epsilon(1e-15));
  s.v = VectorXd{{0.5, 0.25}};
  ScriptedEngine rng{{0.3, -1.2}};
  dyn.O(s, Quadratic{}, t, rng);
  const double sd = std::sqrt(2 * C * t - V * t * t);
  CHECK(s.v[0] == doctest::Approx(0.5 - t * 2.0 * s.x[0] + sd * 0.3).epsilon(1e-14));
  CHECK(s.v[1] == doctest::Approx(0.25 - t * 2.0 * s.x[1] - sd * 1.2).epsilon(1e-14));
  CHECK(s.gradient_evals == 1);
  // The B̂ correction may not exceed the injected variance.
  sghmc::Dynamics<Euclidean> too_noisy{Euclidean(2), sghmc::Friction(C), 2 * C / t + 1};
  CHECK_THROWS_WITH_AS(too_noisy.O(s, Quadratic{}, t, rng), doctest::Contains("noise_estimate"), Error);
}

TEST_CASE("diagonal friction damps and injects noise per coordinate") {
  // Catches: a diagonal friction silently treated as its first entry.
  sghmc::Dynamics<Euclidean> dyn{Euclidean(2), sghmc::Friction(VectorXd{{1.0, 4.0}}), 0.0};
  splitting::PhaseState s(VectorXd{{0.0, 0.0}}, VectorXd{{1.0, 1.0}});
  dyn.B(s, 0.5);
  CHECK(s.v[0] == doctest::Approx(std::exp(-0.5)));
  CHECK(s.v[1] == doctest::Approx(std::exp(-2.0)));
  ScriptedEngine rng{{1.0, 1.0}};
  s.v.setZero();
  dyn.O(s, Quadratic{}, 0.5, rng);
  CHECK(s.v[0] == doctest::Approx(std::sqrt(2 * 1.0 * 0.5)));
  CHECK(s.v[1] == doctest::Approx(std::sqrt(2 * 4.0 * 0.5)));
  CHECK_THROWS_AS(sghmc::Friction(VectorXd{{1.0, -1.0}}).validate(), Error);
}

TEST_CASE("SGNHT's thermostat moves by (vᵀv/m - 1)t in A and damps by exp(-ξt) in B") {
  // Catches: the thermostat divided by the wrong dimension, or its update dropped from A.
  sgnht::Dynamics<Euclidean> dyn{Euclidean(2), 1.3, 0.0};
  ScriptedEngine rng;
  auto s = dyn.init(VectorXd{{0.0, 0.0}}, rng);
  CHECK(s.xi == 1.3);  // starts at A, as the authors' code does
  s.v = VectorXd{{1.0, 2.0}};
  dyn.A(s, 0.1);
  CHECK(s.xi == doctest::Approx(1.3 + (5.0 / 2.0 - 1.0) * 0.1));
  const double xi = s.xi;
  dyn.B(s, 0.1);
  CHECK(s.v[1] == doctest::Approx(2.0 * std::exp(-xi * 0.1)));
}

TEST_CASE("SGLD's step is x - h∇Ũ + sqrt(2h - V̂h²) ζ") {
  // Catches: a missing factor 2 in the noise, a gradient step of the wrong sign.
  sgld::Sampler<Euclidean> smp{Euclidean(2), schedule::StepSize::constant(0.1), 0.5};
  ScriptedEngine rng{{0.7, -0.1}};
  auto s = smp.init(VectorXd{{1.0, 2.0}}, rng);
  smp.step(s, Quadratic{}, rng, 0);
  const double sd = std::sqrt(2 * 0.1 - 0.5 * 0.01);
  CHECK(s.x[0] == doctest::Approx(1.0 - 0.1 * 2.0 + sd * 0.7).epsilon(1e-15));
  CHECK(s.x[1] == doctest::Approx(2.0 - 0.1 * 4.0 - sd * 0.1).epsilon(1e-15));
}

TEST_CASE("SGHMC with the Euler scheme is the SGHMC paper's Eq. 15 in (η, α, β̂)") {
  // Catches: a wrong map between (η, α, β̂) and (h, C, V̂): the two recurrences diverge at once.
  const double eta = 0.01, alpha = 0.1, beta = 0.02;
  const auto p = sghmc::from_momentum(eta, alpha, beta);
  sghmc::Sampler<Euclidean> smp{{Euclidean(3), sghmc::Friction(p.friction), p.noise_estimate}, splitting::euler,
                                schedule::StepSize::constant(p.step_size)};
  random::Stream rng(5, 0);
  auto s = smp.init(VectorXd{{1.0, -1.0, 0.5}}, rng);
  // The paper's variables: Δθ = v with v = h·r.
  VectorXd x = s.x, v = p.step_size * s.v, g(3), z(3);
  random::Stream rng2 = rng;
  Quadratic U;
  for (int k = 0; k < 50; ++k) {
    smp.step(s, U, rng, static_cast<std::uint64_t>(k));
    x += v;
    U.exact_gradient(x, g);
    rng2.normals(z);
    v = (1 - alpha) * v - eta * g + std::sqrt(2 * (alpha - beta) * eta) * z;
  }
  CHECK((s.x - x).norm() < 1e-12);
  CHECK((p.step_size * s.v - v).norm() < 1e-12);
  CHECK_THROWS_AS(sghmc::from_momentum(0.01, 1.5), Error);
  random::Stream r0(1, 0);
  CHECK_THROWS_AS((sghmc::Sampler<Euclidean>{{Euclidean(3), sghmc::Friction(-1.0), 0.0}}.init(VectorXd::Zero(3), r0)), Error);
}

TEST_CASE("a scheme is checked when its sampler starts: stages, positive fractions, each part adding up to h") {
  // Catches what issue #39 found running silently: an empty stage list (the chain never moved, status
  // ok) and fractions that do not integrate each part over h (another distribution, no word said).
  // splitting::baoab: the seed papers' letters (B friction, O noisy kick), not Leimkuhler & Matthews's (lm_baoab).
  for (const splitting::StageList* s : {&splitting::aboba, &splitting::baoab, &splitting::obabo, &splitting::euler})
    CHECK_NOTHROW(s->validate());
  const auto message = [](const splitting::StageList& s) {
    try {
      s.validate();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(splitting::StageList{"empty", {}, 0}) == "scheme 'empty': expected 1 to 8 stages, got 0");
  CHECK(message(splitting::StageList{"half_kick", {{{Op::A, 0.5}, {Op::B, 1.0}, {Op::O, 0.5}, {Op::A, 0.5}}}, 4}) ==
        "scheme 'half_kick': the fractions of O (the kick) add up to 0.5, not 1: a step would not integrate it over h");
  CHECK(message(splitting::StageList{"negative", {{{Op::A, 1.0}, {Op::B, -1.0}, {Op::O, 1.0}}}, 3}) ==
        "scheme 'negative': a stage's fraction must be positive, got -1");
  CHECK(message(splitting::StageList{"no_friction", {{{Op::A, 1.0}, {Op::O, 1.0}}}, 2}).find("B (the friction) add up to 0") !=
        std::string::npos);
  // A scheme that claims second order must be a palindrome (issue #39 item 2); without the claim the
  // same stages are a valid first-order step.
  const splitting::StageList lopsided{"lopsided", {{{Op::A, 0.25}, {Op::B, 0.5}, {Op::O, 1.0}, {Op::B, 0.5}, {Op::A, 0.75}}}, 5, true};
  CHECK(message(lopsided) == "scheme 'lopsided': claims second order (second_order = true) but its stages are not a palindrome: only "
                             "a symmetric composition is second order; make it symmetric or drop the claim");
  splitting::StageList first_order = lopsided;
  first_order.second_order = false;
  CHECK(message(first_order) == "no error");
  // The sampler refuses it before the first step.
  random::Stream r0(1, 0);
  sghmc::Sampler<Euclidean> bad{{Euclidean(3), sghmc::Friction(1.0), 0.0}, splitting::StageList{"empty", {}, 0}};
  CHECK_THROWS_AS(bad.init(VectorXd::Zero(3), r0), Error);
}

TEST_CASE("SGHMC-ABOBA on Euclidean equals a hand-written flat SGHMC loop, step for step") {
  // Catches: anything in the shared split machinery that makes the flat case differ from textbook SGHMC.
  const double h = 0.05, C = 2.0;
  sghmc::Sampler<Euclidean> smp{{Euclidean(4), sghmc::Friction(C), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
  random::Stream rng(9, 3);
  auto s = smp.init(VectorXd::LinSpaced(4, -1, 1), rng);
  VectorXd x = s.x, v = s.v, z(4);
  random::Stream rng2 = rng;
  const Quadratic U;
  for (int k = 0; k < 100; ++k) {
    smp.step(s, U, rng, static_cast<std::uint64_t>(k));
    x += 0.5 * h * v;
    v *= std::exp(-C * h / 2);
    rng2.normals(z);
    v += -h * U.a * x + std::sqrt(2 * C * h) * z;
    v *= std::exp(-C * h / 2);
    x += 0.5 * h * v;
  }
  CHECK((s.x - x).norm() < 1e-12);
  CHECK((s.v - v).norm() < 1e-12);
}

TEST_CASE("HMC: exact leapfrog energy conservation accepts; a reversed trajectory returns") {
  // Catches: an unbalanced half-kick (energy error O(h) instead of O(h²)), a wrong MH sign.
  hmc::Sampler<Euclidean> smp{Euclidean(3), schedule::StepSize::constant(0.01), 20, hmc::Gradient::exact, true};
  random::Stream rng(1, 0);
  auto s = smp.init(VectorXd{{0.3, -0.2, 0.1}}, rng);
  const models::Gaussian g = models::Gaussian::isotropic(VectorXd::Zero(3), 1.0);
  double min_accept = 1.0;
  for (int k = 0; k < 100; ++k) min_accept = std::min(min_accept, smp.step(s, g, rng, static_cast<std::uint64_t>(k)).acceptance);
  CHECK(min_accept > 0.999);  // |ΔH| = O(h²) = 1e-4 for h = 0.01
  CHECK(s.accepted == 100);
  // A huge step makes the energy error large: most proposals are rejected and the chain stays put.
  hmc::Sampler<Euclidean> wild{Euclidean(3), schedule::StepSize::constant(1.99), 7, hmc::Gradient::exact, true};
  const models::Gaussian stiff = models::Gaussian::isotropic(VectorXd::Zero(3), 0.01);
  auto w = wild.init(VectorXd{{0.1, 0.1, 0.1}}, rng);
  for (int k = 0; k < 50; ++k) wild.step(w, stiff, rng, 0);
  CHECK(w.accepted < 10);
}

TEST_CASE("the driver keeps draws by global step, stops on a non-finite state, keeps what it had") {
  // Catches: burn-in or thinning off by one; NaN draws kept; draws lost when a chain diverges.
  sgld::Sampler<Euclidean> smp{Euclidean(1), schedule::StepSize::constant(0.01), 0.0};
  Chain chain(smp, Quadratic{}, VectorXd{{0.0}}, random::Stream(1, 0));
  Draws d;
  CHECK(chain.advance(10, Retention{3, 2}, d).ok());
  CHECK(d.count() == 3);  // steps 5, 7, 9
  CHECK(chain.advance(1, Retention{3, 2}, d).ok());
  CHECK(d.count() == 4);  // step 11
  Chain bad(smp, Exploding{}, VectorXd{{0.0}}, random::Stream(1, 0));
  Draws kept;
  const ChainStatus st = bad.advance(1000, Retention{}, kept);
  CHECK_FALSE(st.ok());
  CHECK(st.error.find("non-finite state at step") != std::string::npos);
  for (double v : kept.values) CHECK(std::isfinite(v));
}

TEST_CASE("the driver's observers: a user condition and a wall-clock budget stop the loop; totals add up") {
  // Catches: an observer that does not see every step, a stop ignored, a stop one step late, totals
  // that miss steps (the diagnostics' gradient count), and a kept draw whose statistics were not filled.
  sghmc::Sampler<Euclidean> smp{{Euclidean(2), sghmc::Friction(1.0), 0.0}, splitting::aboba, schedule::StepSize::constant(0.05)};
  Chain chain(smp, Quadratic{}, VectorXd::Zero(2), random::Stream(3, 0));
  std::uint64_t seen = 0;
  auto count = [&](const StepEvent&) { ++seen; return Control::proceed; };
  auto at_37 = [](const StepEvent& e) { return e.step == 37 ? Control::stop : Control::proceed; };
  Draws d;
  CHECK(chain.run(Retention{10, 3}, count, at_37, KeepDraws{d}).ok());
  CHECK(chain.steps_done == 37);
  CHECK(seen == 37);
  CHECK(d.count() == 9);  // steps 13, 16, ..., 37
  CHECK(chain.totals.gradient_evals == 37);
  CHECK(chain.totals.accept_sum == 37.0);
  for (const StepInfo& info : d.stats) {
    CHECK(info.step_size == 0.05);
    CHECK(std::isfinite(info.kinetic_energy));  // describe() ran for every kept draw
  }
  // A zero budget stops at the first clock reading (every 64 steps).
  CHECK(chain.run(Retention{}, WallClockBudget{0.0}).ok());
  CHECK(chain.steps_done == 37 + 64);
  // StopAfter{0} takes no step (an observer can only stop after a step; a limit is asked before).
  CHECK(chain.run(Retention{}, count, StopAfter{0}).ok());
  CHECK(chain.steps_done == 37 + 64);
  // Retention::none() keeps nothing.
  Draws none;
  CHECK(chain.run(Retention::none(), StopAfter{50}, KeepDraws{none}).ok());
  CHECK(none.count() == 0);
  CHECK(chain.steps_done == 37 + 64 + 50);
}

TEST_CASE("StopOnNonFinite ends a diverging chain at the step that diverged, with the driver's error") {
  // Catches: a divergence found only at the driver's 16-step check (the record would run on past it),
  // and a stop on divergence reported as ok.
  sgld::Sampler<Euclidean> smp{Euclidean(1), schedule::StepSize::constant(0.01), 0.0};
  Chain bad(smp, Exploding{}, VectorXd{{0.0}}, random::Stream(1, 0));
  std::uint64_t first_bad = 0;
  auto watch = [&](const StepEvent& e) {
    if (first_bad == 0 && !e.position.allFinite()) first_bad = e.step;
    return Control::proceed;
  };
  StopOnNonFinite check;
  const ChainStatus st = bad.run(Retention::none(), check, watch);  // no kept draws: the driver alone would check at step 16
  CHECK_FALSE(st.ok());
  CHECK(check.diverged);
  CHECK(first_bad > 0);
  CHECK(bad.steps_done == first_bad);
}

TEST_CASE("evaluation observers: every k steps and at the last, off the sampling clock; a sampling-time budget") {
  // Catches: an evaluation at the wrong steps (off by one, or missing the last), evaluation time counted
  // as sampling time (the curves' "seconds" would include the held-out passes), an evaluation's stop
  // ignored, and a budget on wall time instead of sampling time.
  sgld::Sampler<Euclidean> smp{Euclidean(1), schedule::StepSize::constant(0.01), 0.0};
  Chain chain(smp, Quadratic{}, VectorXd{{0.0}}, random::Stream(1, 0));
  SamplingClock clock;
  std::vector<std::uint64_t> at;
  auto slow = [&](const StepEvent& e) {
    at.push_back(e.step);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  CHECK(chain.run(Retention{}, StopAfter{25}, Every{10, slow, &clock, 25}).ok());
  CHECK(at == std::vector<std::uint64_t>{10, 20, 25});
  CHECK(clock.seconds() < 0.03);  // three 20-ms evaluations excluded; 25 SGLD steps take microseconds
  CHECK(clock.seconds() >= 0.0);
  // An evaluation may stop the chain.
  auto stop_at_40 = [](const StepEvent& e) { return e.step >= 40 ? Control::stop : Control::proceed; };
  CHECK(chain.run(Retention{}, Every{5, stop_at_40}).ok());
  CHECK(chain.steps_done == 40);
  // The budget reads the sampling clock: with the evaluations excluded, 3 × 20 ms of evaluation every
  // step does not use up a 10-ms budget within 3 steps (a wall-clock budget would stop at step 1).
  clock.restart();
  at.clear();
  CHECK(chain.run(Retention{}, Every{1, slow, &clock}, SamplingBudget{0.01, &clock, 1}, StopAfter{3}).ok());
  CHECK(at.size() == 3);
}

TEST_CASE("StepInfo: HMC reports acceptance, energy and divergence; SGNHT its thermostat") {
  // Catches: an acceptance statistic that is not the MH probability min(1, e^{-ΔH}); a divergence not
  // flagged; a thermostat statistic that is not the state's ξ.
  hmc::Sampler<Euclidean> smp{Euclidean(3), schedule::StepSize::constant(0.3), 5, hmc::Gradient::exact, true};
  static_assert(decltype(smp)::statistics.has(stats::energy) && !decltype(smp)::statistics.has(stats::thermostat));
  random::Stream rng(2, 0);
  auto s = smp.init(VectorXd{{0.5, -0.5, 1.0}}, rng);
  const models::Gaussian g = models::Gaussian::isotropic(VectorXd::Zero(3), 1.0);
  const StepInfo info = smp.step(s, g, rng, 0);
  CHECK(info.acceptance > 0.0);
  CHECK(info.acceptance <= 1.0);
  CHECK(std::isfinite(info.energy));
  CHECK_FALSE(info.divergent);
  CHECK(info.gradient_evals == 6);  // L + 1 gradients: the merged half-kicks
  sgnht::Sampler<Euclidean> th{{Euclidean(2), 1.5, 0.0}, splitting::aboba, schedule::StepSize::constant(0.1)};
  auto ts = th.init(VectorXd::Zero(2), rng);
  StepInfo t = th.step(ts, g, rng, 0);
  th.describe(ts, t);
  CHECK(t.thermostat == ts.xi);
  CHECK(t.kinetic_energy == doctest::Approx(0.5 * ts.v.squaredNorm()));
}

TEST_CASE("step-size schedules") {
  // Catches: a decay with the wrong sign of γ, or a schedule indexed from 1 instead of 0.
  const auto p = schedule::StepSize::polynomial(0.1, 10, 0.55);
  CHECK(p.at(0) == doctest::Approx(0.1 * std::pow(10.0, -0.55)));
  CHECK(p.at(90) == doctest::Approx(0.1 * std::pow(100.0, -0.55)));
  CHECK(schedule::StepSize::constant(0.3).at(1000) == 0.3);
  // Cyclical (cSG-MCMC Eq. 1, k − 1 = t): a at each cycle's start, a/2 half way, back to a after L steps.
  // Catches a cycle indexed from 1, a half-period cosine (it would reach 0 half way), no restart.
  const auto c = schedule::StepSize::cyclical(0.2, 100);
  CHECK(c.at(0) == 0.2);
  CHECK(c.at(50) == doctest::Approx(0.1).epsilon(1e-14));
  CHECK(c.at(99) == doctest::Approx(0.1 * (std::cos(std::numbers::pi * 0.99) + 1)).epsilon(1e-14));
  CHECK(c.at(99) < 0.0001);
  CHECK(c.at(100) == 0.2);
  CHECK(c.at(375) == c.at(75));
  CHECK_THROWS_WITH_AS(schedule::StepSize::cyclical(0.2, 0).validate(), "step_size.cycle: expected an integer >= 1", Error);
  CHECK_THROWS_WITH_AS(schedule::StepSize::constant(-1).validate(), "step_size: expected a positive number, got -1", Error);
}
