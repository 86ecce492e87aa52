// Unit tests of the complete recipe (Ma, Chen & Fox 2015): the generic sampler against each named
// sampler written out directly and against the library's own samplers, trajectory for trajectory;
// automatic Γ against the analytic Γ of each row of the table in docs/math.md#the-samplers-as-h-d-q; and the
// errors a user sees for a bad D, Q, noise estimate or metric. Deterministic: no statistical tolerance here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

const MatrixXd kCov{{1.0, 0.9}, {0.9, 1.0}};
const VectorXd kMean{{1.0, -1.0}};
models::WithGradientNoise<models::Gaussian> noisy_gaussian() { return {models::Gaussian::dense(kMean, kCov), 1.0, {}}; }
const VectorXd kStart{{0.3, -0.2}};
constexpr int kSteps = 200;
constexpr double kTol = 1e-12;

template <class S>
using ScalarOf = typename std::decay_t<S>::Scalar;

// Runs two samplers from the same seed and returns the largest difference of their positions over
// kSteps steps. `pos` maps each sampler's state to the compared vector.
template <class A, class B, class P, class FA, class FB>
double max_gap(const A& a, const B& b, const P& potential, const VectorXd& x0, FA pos_a, FB pos_b, int steps = kSteps) {
  random::Stream ra(11, 3), rb(11, 3);
  auto sa = a.init(x0, ra);
  auto sb = b.init(x0, rb);
  double gap = (pos_a(sa) - pos_b(sb)).cwiseAbs().maxCoeff();
  for (int t = 0; t < steps; ++t) {
    a.step(sa, potential, ra, static_cast<std::uint64_t>(t));
    b.step(sb, potential, rb, static_cast<std::uint64_t>(t));
    REQUIRE(pos_a(sa).allFinite());
    gap = std::max(gap, (pos_a(sa) - pos_b(sb)).cwiseAbs().maxCoeff());
  }
  CHECK(ra.state() == rb.state());  // both consumed exactly the same random numbers
  return gap;
}

MatrixXd sghmc_q(Eigen::Index d) {
  MatrixXd q = MatrixXd::Zero(2 * d, 2 * d);
  q.topRightCorner(d, d) = -MatrixXd::Identity(d, d);
  q.bottomLeftCorner(d, d) = MatrixXd::Identity(d, d);
  return q;
}
MatrixXd block_diag(double top, double bottom, Eigen::Index d, double last = -1) {
  const Eigen::Index n = last >= 0 ? 2 * d + 1 : 2 * d;
  MatrixXd m = MatrixXd::Zero(n, n);
  m.topLeftCorner(d, d).diagonal().setConstant(top);
  m.block(d, d, d, d).diagonal().setConstant(bottom);
  if (last >= 0) m(2 * d, 2 * d) = last;
  return m;
}

// SGNHT's row: D = diag(0, A·I, 0), Q = [[0,-I,0],[I,0,r/d],[0,-rᵀ/d,0]] over z = (θ, r, ξ).
struct SgnhtD {
  Eigen::Index d;
  double a;
  template <class Z> auto operator()(const Z& z) const {
    using T = ScalarOf<Z>;
    Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(z.size(), z.size());
    for (Eigen::Index i = 0; i < d; ++i) m(d + i, d + i) = T(a);
    return m;
  }
};
struct SgnhtQ {
  Eigen::Index d;
  template <class Z> auto operator()(const Z& z) const {
    using T = ScalarOf<Z>;
    Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(z.size(), z.size());
    for (Eigen::Index i = 0; i < d; ++i) {
      m(i, d + i) = T(-1.0);
      m(d + i, i) = T(1.0);
      m(d + i, 2 * d) = z[d + i] / static_cast<double>(d);
      m(2 * d, d + i) = -z[d + i] / static_cast<double>(d);
    }
    return m;
  }
};

// The 1-D level-set metric g(θ) = 1.5·sqrt(U(θ) + 0.5) for U = θ²/2 + log sqrt(2π) (normalised),
// written over any scalar so the generic sampler can differentiate it.
constexpr double kLogZ = 0.91893853320467274;  // log sqrt(2π)
struct Normal1 {
  Eigen::Index dim() const { return 1; }
  void exact_gradient(const VectorXd& x, VectorXd& g) const { g = x; }
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R& rng) const {
    g = x;
    g[0] += 2.0 * rng.normal();  // N(0, 4) gradient noise (SGHMC paper Fig. 1)
  }
  double value(const VectorXd& x) const { return 0.5 * x[0] * x[0] + kLogZ; }
};
template <class T> T level_g(const T& theta) {
  using std::abs, std::sqrt;
  return 1.5 * sqrt(abs(0.5 * theta * theta + kLogZ + 0.5));
}
struct GsgrhmcD {
  template <class Z> auto operator()(const Z& z) const {
    using T = ScalarOf<Z>;
    Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(2, 2);
    m(1, 1) = level_g(z[0]);
    return m;
  }
};
struct GsgrhmcQ {
  template <class Z> auto operator()(const Z& z) const {
    using T = ScalarOf<Z>;
    using std::sqrt;
    Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(2, 2);
    const T a = sqrt(level_g(z[0]));
    m(0, 1) = -a;
    m(1, 0) = a;
    return m;
  }
};

// A dense 2-D metric G(θ)⁻¹ = [[1 + θ₁², 0.3], [0.3, 1 + θ₂²/2]] (positive definite everywhere).
struct DenseInverse {
  template <class Z> auto operator()(const Z& t) const {
    using T = ScalarOf<Z>;
    Eigen::Matrix<T, -1, -1> m(2, 2);
    m(0, 0) = 1.0 + t[0] * t[0];
    m(0, 1) = T(0.3);
    m(1, 0) = T(0.3);
    m(1, 1) = 1.0 + 0.5 * t[1] * t[1];
    return m;
  }
};

// Written out directly from the SDE dθ = r dt, dr = (-∇U - Cr) dt + sqrt(2C) dW.
struct DirectSghmc {
  double h, C, V;
  struct State { VectorXd x, r, g, z; };
  template <class R> State init(VectorXd x0, R& rng) const {
    State s{x0, VectorXd(2), VectorXd(2), VectorXd(2)};
    rng.normals(s.r);
    return s;
  }
  template <class P, class R> double step(State& s, const P& U, R& rng, std::uint64_t) const {
    U.gradient(s.x, s.g, rng);
    rng.normals(s.z);
    const VectorXd r0 = s.r;
    s.r = r0 - h * s.g - h * C * r0 + std::sqrt(h * (2 * C - h * V)) * s.z;
    s.x = s.x + h * r0;
    return 1;
  }
};

struct DirectSgnht {
  double h, A, V;
  struct State { VectorXd x, r, g, z; double xi; };
  template <class R> State init(VectorXd x0, R& rng) const {
    State s{x0, VectorXd(2), VectorXd(2), VectorXd(2), A};
    rng.normals(s.r);
    return s;
  }
  template <class P, class R> double step(State& s, const P& U, R& rng, std::uint64_t) const {
    U.gradient(s.x, s.g, rng);
    rng.normals(s.z);
    const VectorXd r0 = s.r;
    s.r = r0 - h * s.g - h * s.xi * r0 + std::sqrt(h * (2 * A - h * V)) * s.z;
    s.x = s.x + h * r0;
    s.xi = s.xi + h * (r0.squaredNorm() / 2.0 - 1.0);
    return 1;
  }
};

// Gamma(3, 1) per coordinate, a target on θ > 0.
struct Gamma3 {
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { g = 1.0 - 2.0 / x.array(); }
};

// Dirichlet(α) on the simplex, U = -Σ(α_k - 1) log x_k.
struct Dirichlet {
  VectorXd alpha;
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { g = -(alpha.array() - 1.0) / x.array(); }
};

const auto x_of = [](const auto& s) -> VectorXd { return s.x; };
const auto z_head2 = [](const recipe::State& s) -> VectorXd { return s.z.head(2); };

}  // namespace

TEST_CASE("SGLD: the library sampler, the direct update and the recipe (D = I, Q = 0) agree to 1e-12") {
  // Catches: a wrong sign of the drift, Γ with the wrong sign, noise variance 2h vs h, B̂ bookkeeping.
  const double h = 0.05, V = 0.5;
  const auto U = noisy_gaussian();
  const sgld::Sampler<Euclidean> lib{Euclidean(2), schedule::StepSize::constant(h), V};
  recipe::Sampler<recipe::Constant> gen{{MatrixXd::Identity(2, 2), MatrixXd::Zero(2, 2)}};
  gen.step_size = schedule::StepSize::constant(h);
  gen.noise_estimate = V * MatrixXd::Identity(2, 2);
  CHECK(max_gap(lib, gen, U, kStart, x_of, x_of) < kTol);
  // SGRLD with the identity metric is SGLD too.
  const sgrld::Sampler<recipe::metric::ConstantDiagonal> rld{{VectorXd::Ones(2)}, schedule::StepSize::constant(h), V};
  CHECK(max_gap(lib, rld, U, kStart, x_of, x_of) < kTol);
}

TEST_CASE("SGHMC: direct explicit Euler = recipe (Euler); the library's euler scheme = recipe (semi-implicit)") {
  // Row: z = (θ, r), D = diag(0, C·I), Q = [[0,-I],[I,0]], B̂ = diag(0, V̂·I). Catches a flipped Q
  // (r would drift along +∇U), friction of the wrong sign, Γ ≠ 0 for constant fields.
  const double h = 0.05, C = 1.3, V = 0.7;
  const auto U = noisy_gaussian();
  recipe::Sampler<recipe::Constant> gen{{block_diag(0, C, 2), sghmc_q(2)}, recipe::Augment::momentum};
  gen.step_size = schedule::StepSize::constant(h);
  gen.noise_estimate = block_diag(0, V, 2);

  CHECK(max_gap(DirectSghmc{h, C, V}, gen, U, kStart, x_of, z_head2) < kTol);
  CHECK(max_gap(DirectSghmc{h, C, V}, gen, U, kStart, [](const auto& s) -> VectorXd { return s.r; },
                [](const recipe::State& s) -> VectorXd { return s.z.tail(2); }) < kTol);

  auto semi = gen;
  semi.scheme = recipe::Scheme::semi_implicit;
  const sghmc::Sampler<Euclidean> lib{{Euclidean(2), sghmc::Friction(C), V}, splitting::euler, schedule::StepSize::constant(h)};
  CHECK(max_gap(lib, semi, U, kStart, x_of, z_head2) < kTol);
  // And the two orders are genuinely different schemes (the check above is not vacuous).
  CHECK(max_gap(lib, gen, U, kStart, x_of, z_head2) > 1e-3);
}

TEST_CASE("a fixed diagonal preconditioner s: SGLD = recipe (D = diag s², Q = 0), SGHMC = recipe (D = diag(0, C·I), Q = [[0, −s], [s, 0]])") {
  // The preconditioned samplers run the plain ones on φ = θ/s; in θ they are these constant (D, Q)
  // pairs (samplers/preconditioned.hpp). Catches the gradient scaled by 1/s or s² instead of s, the
  // noise left unscaled, or positions reported in φ.
  const double h = 0.05, C = 1.3;
  const auto U = noisy_gaussian();
  const VectorXd s{{0.5, 2.0}};
  const preconditioned::Sampler<sgld::Sampler<Euclidean>> pre_sgld{sgld::Sampler<Euclidean>{Euclidean(2), schedule::StepSize::constant(h), 0.0},
                                                                   0, s};
  recipe::Sampler<recipe::Constant> gen{{MatrixXd(s.cwiseAbs2().asDiagonal()), MatrixXd::Zero(2, 2)}};
  gen.step_size = schedule::StepSize::constant(h);
  const auto theta = [](const auto& st) -> VectorXd { return st.theta; };
  CHECK(max_gap(pre_sgld, gen, U, kStart, theta, x_of) < kTol);

  MatrixXd q = MatrixXd::Zero(4, 4);
  q.topRightCorner(2, 2) = -MatrixXd(s.asDiagonal());
  q.bottomLeftCorner(2, 2) = MatrixXd(s.asDiagonal());
  recipe::Sampler<recipe::Constant> ham{{block_diag(0, C, 2), q}, recipe::Augment::momentum};
  ham.step_size = schedule::StepSize::constant(h);
  ham.scheme = recipe::Scheme::semi_implicit;
  const sghmc::Sampler<Euclidean> inner{{Euclidean(2), sghmc::Friction(C), 0.0}, splitting::euler, schedule::StepSize::constant(h)};
  const preconditioned::Sampler<sghmc::Sampler<Euclidean>> pre_sghmc{inner, 0, s};
  CHECK(max_gap(pre_sghmc, ham, U, kStart, theta, z_head2) < kTol);
  // Not vacuous: without the preconditioner the same sampler is another chain.
  CHECK(max_gap(inner, ham, U, kStart, x_of, z_head2) > 1e-3);
}

// A preconditioned sampler started with a given factor of any kind (the library takes a given
// diagonal or dense one; a low-rank one only from a warm-up): init, then the factor replaced.
template <class Inner>
struct WithFactor {
  using Pre = preconditioned::Sampler<Inner>;
  using State = typename Pre::State;
  Pre pre;
  preconditioned::Factor factor;
  template <class R>
  State init(const VectorXd& x0, R& rng) const {
    State s = pre.init(x0, rng);
    s.factor = factor;
    s.scratch_k.resize(factor.rank());
    factor.solve(x0, s.inner.x);
    s.theta = x0;
    return s;
  }
  template <class P, class R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const { return pre.step(s, potential, rng, t); }
};

TEST_CASE("a fixed dense preconditioner L: SGLD = recipe (D = LLᵀ, Q = 0), SGHMC = recipe (D = diag(0, C·I), Q = [[0, −L], [Lᵀ, 0]])") {
  // θ = Lφ with L lower triangular: SGLD on φ is θ ← θ − h LLᵀ∇Ũ + √(2h) Lξ, and the recipe draws its
  // noise as chol(2hD)ξ = √(2h) Lξ, so the two agree draw for draw (docs/math.md, "Fixed
  // preconditioners"). Catches the gradient multiplied by L instead of Lᵀ (or by L⁻¹), noise drawn with
  // Lᵀ, a skew Q with L and Lᵀ swapped (θ̇ = Lᵀr), positions reported in φ.
  const double h = 0.05, C = 1.3;
  const auto U = noisy_gaussian();
  const MatrixXd l{{0.5, 0.0}, {0.7, 2.0}};
  const sgld::Sampler<Euclidean> plain_sgld{Euclidean(2), schedule::StepSize::constant(h), 0.0};
  const preconditioned::Sampler<sgld::Sampler<Euclidean>> pre_sgld{plain_sgld, 0, {}, 1e-12, preconditioned::Kind::dense, l};
  recipe::Sampler<recipe::Constant> gen{{MatrixXd(l * l.transpose()), MatrixXd::Zero(2, 2)}};
  gen.step_size = schedule::StepSize::constant(h);
  const auto theta = [](const auto& st) -> VectorXd { return st.theta; };
  CHECK(max_gap(pre_sgld, gen, U, kStart, theta, x_of) < kTol);
  // Not vacuous: Lᵀ in place of L is another chain.
  const MatrixXd lt = l.transpose();
  recipe::Sampler<recipe::Constant> gen_t{{MatrixXd(lt * lt.transpose()), MatrixXd::Zero(2, 2)}};
  gen_t.step_size = schedule::StepSize::constant(h);
  CHECK(max_gap(pre_sgld, gen_t, U, kStart, theta, x_of) > 1e-3);

  MatrixXd q = MatrixXd::Zero(4, 4);
  q.topRightCorner(2, 2) = -l;
  q.bottomLeftCorner(2, 2) = l.transpose();
  recipe::Sampler<recipe::Constant> ham{{block_diag(0, C, 2), q}, recipe::Augment::momentum};
  ham.step_size = schedule::StepSize::constant(h);
  ham.scheme = recipe::Scheme::semi_implicit;
  const sghmc::Sampler<Euclidean> inner{{Euclidean(2), sghmc::Friction(C), 0.0}, splitting::euler, schedule::StepSize::constant(h)};
  const preconditioned::Sampler<sghmc::Sampler<Euclidean>> pre_sghmc{inner, 0, {}, 1e-12, preconditioned::Kind::dense, l};
  CHECK(max_gap(pre_sghmc, ham, U, kStart, theta, z_head2) < kTol);
  MatrixXd q_swapped = MatrixXd::Zero(4, 4);
  q_swapped.topRightCorner(2, 2) = -l.transpose();
  q_swapped.bottomLeftCorner(2, 2) = l;
  recipe::Sampler<recipe::Constant> swapped{{block_diag(0, C, 2), q_swapped}, recipe::Augment::momentum};
  swapped.step_size = schedule::StepSize::constant(h);
  swapped.scheme = recipe::Scheme::semi_implicit;
  CHECK(max_gap(pre_sghmc, swapped, U, kStart, theta, z_head2) > 1e-3);
}

TEST_CASE("a low-rank-plus-diagonal preconditioner S = diag(s)(I + U diag(m) Uᵀ): its O(dk) products are S's; SGHMC = recipe with Q = [[0, −S], [Sᵀ, 0]]") {
  // S is not triangular, so SGLD's noise Sξ and the recipe's chol(2hSSᵀ)ξ agree in law, not draw for
  // draw: SGLD's pair D = SSᵀ rests on the products checked here against the explicit matrix, and
  // SGHMC (noise on r only) is checked against the recipe trajectory for trajectory. Catches a wrong
  // stretch (m = λ instead of √(1 + λ) − 1), diag(s) on the wrong side of Sᵀ, a wrong inverse.
  const Eigen::Index d = 3;
  preconditioned::Factor f = preconditioned::Factor::identity(preconditioned::Kind::low_rank, d, 2);
  f.scale = VectorXd{{0.5, 1.5, 2.0}};
  f.basis = MatrixXd{{0.6, 0.0}, {0.8, 0.0}, {0.0, 1.0}};  // orthonormal columns
  f.stretch = VectorXd{{2.0, -0.5}};
  const MatrixXd sym = MatrixXd::Identity(d, d) + f.basis * f.stretch.asDiagonal() * f.basis.transpose();
  const MatrixXd s_matrix = f.scale.asDiagonal() * sym;
  VectorXd k(2), t(d), out(d);
  const VectorXd v{{0.3, -1.1, 0.7}};
  f.apply(v, out, k);
  CHECK((out - s_matrix * v).cwiseAbs().maxCoeff() < 1e-14);
  out = v;
  f.apply_transpose(out, t, k);
  CHECK((out - s_matrix.transpose() * v).cwiseAbs().maxCoeff() < 1e-14);
  f.solve(v, out);
  CHECK((s_matrix * out - v).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((f.inverse_metric() - s_matrix * s_matrix.transpose()).cwiseAbs().maxCoeff() < 1e-13);

  const double h = 0.05, C = 1.3;
  const auto U = models::WithGradientNoise<models::Gaussian>{models::Gaussian::dense(VectorXd{{1.0, -1.0, 0.5}},
                                                                                   MatrixXd{{1.0, 0.9, 0.2}, {0.9, 1.0, 0.1}, {0.2, 0.1, 2.0}}),
                                                             1.0, {}};
  MatrixXd q = MatrixXd::Zero(2 * d, 2 * d);
  q.topRightCorner(d, d) = -s_matrix;
  q.bottomLeftCorner(d, d) = s_matrix.transpose();
  recipe::Sampler<recipe::Constant> ham{{block_diag(0, C, d), q}, recipe::Augment::momentum};
  ham.step_size = schedule::StepSize::constant(h);
  ham.scheme = recipe::Scheme::semi_implicit;
  const sghmc::Sampler<Euclidean> inner{{Euclidean(d), sghmc::Friction(C), 0.0}, splitting::euler, schedule::StepSize::constant(h)};
  const WithFactor<sghmc::Sampler<Euclidean>> pre{{inner, 0, {}, 1e-12, preconditioned::Kind::low_rank, {}, 2}, f};
  const VectorXd start{{0.3, -0.2, 0.1}};
  CHECK(max_gap(pre, ham, U, start, [](const auto& st) -> VectorXd { return st.theta; },
                [d](const recipe::State& st) -> VectorXd { return st.z.head(d); }) < kTol);
}

TEST_CASE("SGNHT: direct explicit Euler = recipe with autodiff Γ; the library's euler scheme = recipe (semi-implicit)") {
  // Row: z = (θ, r, ξ), H = U + rᵀr/2 + d(ξ - A)²/2, D = diag(0, A·I, 0), Q with the r/d column.
  // Γ = (0, 0, -1) comes from autodiff of Q: a missing Γ_ξ would let ξ drift up by h per step, a
  // (ξ - A)²/(2d) Hamiltonian (the paper's typo) would rescale the thermostat coupling.
  const double h = 0.05, A = 1.3, V = 0.4;
  const Eigen::Index d = 2;
  const auto U = noisy_gaussian();
  recipe::Sampler<recipe::Fields<SgnhtD, SgnhtQ>> gen{{SgnhtD{d, A}, SgnhtQ{d}}, recipe::Augment::thermostat};
  gen.step_size = schedule::StepSize::constant(h);
  gen.thermostat_a = A;
  gen.noise_estimate = block_diag(0, V, d, 0);

  CHECK(max_gap(DirectSgnht{h, A, V}, gen, U, kStart, x_of, z_head2) < kTol);
  CHECK(max_gap(DirectSgnht{h, A, V}, gen, U, kStart, [](const auto& s) -> VectorXd { return VectorXd::Constant(1, s.xi); },
                [](const recipe::State& s) -> VectorXd { return s.z.tail(1); }) < kTol);

  auto semi = gen;
  semi.scheme = recipe::Scheme::semi_implicit;
  const sgnht::Sampler<Euclidean> lib{{Euclidean(2), A, V}, splitting::euler, schedule::StepSize::constant(h)};
  CHECK(max_gap(lib, semi, U, kStart, x_of, z_head2) < kTol);
  CHECK(max_gap(lib, semi, U, kStart, [](const auto& s) -> VectorXd { return VectorXd::Constant(1, s.xi); },
                [](const recipe::State& s) -> VectorXd { return s.z.tail(1); }) < kTol);
}

TEST_CASE("gSGRHMC: sgrhmc::Sampler = recipe from its (H, D, Q) row, level-set and dense metrics") {
  // Level-set metric in 1-D with N(0, 4) gradient noise and V̂ = 4: autodiff Γ_r = (√g)' in the recipe
  // against the metric's closed form in sgrhmc. Catches Γ dropped or with the wrong sign, G^{-1/2}
  // and G⁻¹ swapped, B̂ = V̂G⁻¹ mis-scaled.
  const double h = 0.02;
  const Normal1 U;
  recipe::Sampler<recipe::Fields<GsgrhmcD, GsgrhmcQ>> gen{{GsgrhmcD{}, GsgrhmcQ{}}, recipe::Augment::momentum};
  gen.step_size = schedule::StepSize::constant(h);
  sgrhmc::Sampler<recipe::metric::LevelSet> direct{{1.5, 0.5}, schedule::StepSize::constant(h)};
  const VectorXd x0 = VectorXd::Constant(1, 0.7);
  const auto r_of = [](const sgrhmc::State& s) -> VectorXd { return s.r; };
  const auto z_r = [](const recipe::State& s) -> VectorXd { return s.z.tail(1); };
  const auto z_x = [](const recipe::State& s) -> VectorXd { return s.z.head(1); };
  CHECK(max_gap(direct, gen, U, x0, x_of, z_x) < kTol);
  CHECK(max_gap(direct, gen, U, x0, r_of, z_r) < kTol);
  // With the V̂ correction, B̂ = V̂G⁻¹ on the r block (a function of θ: a constant B̂ cannot express it,
  // so the recipe side is checked at V̂ = 0 and the V̂ bookkeeping by the semi-implicit comparison below).
  auto semi_direct = direct;
  semi_direct.scheme = recipe::Scheme::semi_implicit;
  auto semi_gen = gen;
  semi_gen.scheme = recipe::Scheme::semi_implicit;
  CHECK(max_gap(semi_direct, semi_gen, U, x0, x_of, z_x) < kTol);
  // Naive SGRHMC (Eq. 27) differs from gSGRHMC exactly by Γ: with Γ removed from the recipe they agree.
  auto naive = direct;
  naive.variant = sgrhmc::Variant::naive;
  struct NoGamma { VectorXd operator()(const VectorXd&) const { return VectorXd::Zero(2); } };
  recipe::Sampler<recipe::Fields<GsgrhmcD, GsgrhmcQ, recipe::UserGamma<NoGamma>>> gen_naive{
      {GsgrhmcD{}, GsgrhmcQ{}, {NoGamma{}}}, recipe::Augment::momentum};
  gen_naive.step_size = schedule::StepSize::constant(h);
  CHECK(max_gap(naive, gen_naive, U, x0, x_of, z_x) < kTol);
  CHECK(max_gap(naive, gen, U, x0, x_of, z_x) > 1e-4);

  // Dense 2-D metric: the recipe's D = diag(0, G⁻¹), Q with G^{-1/2} (eigendecomposition) and Γ by
  // finite differences, the same rule sgrhmc's Dense metric uses for ∇·G^{-1/2}. Tolerance 1e-10, not
  // 1e-12: a finite-difference Γ carries rounding ε/δ ≈ 2e-11 (δ = 6e-6), and the two sides form the
  // perturbed matrices through different (equally exact) products, so one ulp apart becomes ~1e-11 in Γ.
  const DenseInverse ginv;
  auto sqrt_of = [ginv](const VectorXd& t) {
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(MatrixXd(ginv(t)));
    return MatrixXd(es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() * es.eigenvectors().transpose());
  };
  auto dd = [ginv](const VectorXd& z) {
    MatrixXd m = MatrixXd::Zero(4, 4);
    m.bottomRightCorner(2, 2) = ginv(VectorXd(z.head(2)));
    return m;
  };
  auto qq = [sqrt_of](const VectorXd& z) {
    MatrixXd m = MatrixXd::Zero(4, 4);
    const MatrixXd s = sqrt_of(z.head(2));
    m.topRightCorner(2, 2) = -s;
    m.bottomLeftCorner(2, 2) = s;
    return m;
  };
  recipe::Sampler<recipe::Fields<decltype(dd), decltype(qq), recipe::FiniteDifference>> gen2{
      {dd, qq, recipe::FiniteDifference{}}, recipe::Augment::momentum};
  gen2.step_size = schedule::StepSize::constant(h);
  const sgrhmc::Sampler<recipe::metric::Dense<DenseInverse>> direct2{{ginv}, schedule::StepSize::constant(h)};
  CHECK(max_gap(direct2, gen2, noisy_gaussian(), kStart, x_of, z_head2) < 1e-10);
}

TEST_CASE("SGRLD: sgrld::Sampler = recipe (D = G⁻¹(θ), Q = 0, autodiff Γ) for a dense and a Fisher metric") {
  // Catches: ∇·G⁻¹ dropped (then SGRLD targets the wrong law), G instead of G⁻¹, a transposed divergence.
  const double h = 0.01;
  const auto U = noisy_gaussian();
  const DenseInverse ginv;
  auto zero = [](const auto& z) {
    using T = ScalarOf<decltype(z)>;
    return Eigen::Matrix<T, -1, -1>::Zero(z.size(), z.size()).eval();
  };
  recipe::Sampler<recipe::Fields<DenseInverse, decltype(zero)>> gen{{ginv, zero}};
  gen.step_size = schedule::StepSize::constant(h);
  const sgrld::Sampler<recipe::metric::Dense<DenseInverse>> direct{{ginv}, schedule::StepSize::constant(h)};
  CHECK(max_gap(direct, gen, U, kStart, x_of, x_of) < kTol);

  // Fisher metric diag(θ) on a target on θ > 0 (Gamma(3, 1) per coordinate), Γ = 1.
  auto fisher = [](const auto& z) {
    using T = ScalarOf<decltype(z)>;
    Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(z.size(), z.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) m(i, i) = z[i];
    return m;
  };
  recipe::Sampler<recipe::Fields<decltype(fisher), decltype(zero)>> gen_f{{fisher, zero}};
  gen_f.step_size = schedule::StepSize::constant(h);
  const sgrld::Sampler<recipe::metric::FisherDiagonal> direct_f{{}, schedule::StepSize::constant(h)};
  CHECK(max_gap(direct_f, gen_f, Gamma3{}, VectorXd::Constant(3, 2.5), x_of, x_of, 50) < kTol);
}

TEST_CASE("automatic Γ equals the analytic Γ of each table row") {
  const VectorXd z4{{0.3, -0.7, 1.1, 0.4}};  // (θ, r) with d = 2
  VectorXd g;
  SUBCASE("SGLD and SGHMC rows: constant D, Q give Γ = 0") {
    recipe::Constant c{block_diag(0, 1.3, 2), sghmc_q(2)};
    MatrixXd D, Q;
    c.evaluate(z4, D, Q, g);
    CHECK(g.cwiseAbs().maxCoeff() == 0.0);
    auto cd = [](const auto& z) { using T = ScalarOf<decltype(z)>; return Eigen::Matrix<T, -1, -1>::Identity(z.size(), z.size()).eval(); };
    recipe::gamma_autodiff(cd, cd, z4, g);  // D = I, "Q" = I: both constant
    CHECK(g.cwiseAbs().maxCoeff() == 0.0);
  }
  SUBCASE("SGNHT row: Γ = (0, 0, -1)") {
    const VectorXd z5{{0.3, -0.7, 1.1, 0.4, 1.7}};
    recipe::gamma_autodiff(SgnhtD{2, 1.3}, SgnhtQ{2}, z5, g);
    CHECK((g - VectorXd{{0, 0, 0, 0, -1}}).cwiseAbs().maxCoeff() < 1e-15);
    recipe::gamma_finite_difference(SgnhtD{2, 1.3}, SgnhtQ{2}, z5, g);
    CHECK((g - VectorXd{{0, 0, 0, 0, -1}}).cwiseAbs().maxCoeff() < 1e-8);
  }
  SUBCASE("gSGRHMC row: Γ = (0, (√g)'(θ)) with g = 1.5·sqrt(U + 0.5)") {
    for (double th : {-2.0, -0.4, 0.0, 0.9, 3.0}) {
      const VectorXd z{{th, 0.8}};
      const double s = 0.5 * th * th + kLogZ + 0.5;
      const double analytic = std::sqrt(1.5) * th / (4.0 * std::pow(s, 0.75));  // (√g)' of docs/math.md, U' = θ
      recipe::gamma_autodiff(GsgrhmcD{}, GsgrhmcQ{}, z, g);
      CHECK(std::abs(g[0]) < 1e-15);
      CHECK(std::abs(g[1] - analytic) < 1e-14);
      recipe::gamma_finite_difference(GsgrhmcD{}, GsgrhmcQ{}, z, g);
      CHECK(std::abs(g[1] - analytic) < 1e-9);
      // And the metric's closed form (used by sgrhmc/sgrld) agrees.
      recipe::metric::Value v;
      recipe::metric::LevelSet{1.5, 0.5}.evaluate(Normal1{}, VectorXd::Constant(1, th), v);
      CHECK(std::abs(v.div_inv_sqrt[0] - analytic) < 1e-14);
      CHECK(std::abs(v.div_inv[0] - 1.5 * th / (2.0 * std::sqrt(s))) < 1e-14);  // SGRLD's Γ = g'
    }
  }
  SUBCASE("SGRLD row with the Fisher metric diag(θ): Γ = 1; dense metric: Γ_i = Σ_j ∂_j G⁻¹_ij") {
    recipe::metric::Value v;
    recipe::metric::FisherDiagonal{}.evaluate(Normal1{}, VectorXd{{0.5, 2.0}}, v);
    CHECK(v.div_inv == VectorXd::Ones(2));
    CHECK((v.div_inv_sqrt - VectorXd{{0.5 / std::sqrt(0.5), 0.5 / std::sqrt(2.0)}}).cwiseAbs().maxCoeff() < 1e-15);
    const VectorXd t{{0.6, -1.2}};
    recipe::metric::Dense<DenseInverse>{{}}.evaluate(Normal1{}, t, v);
    CHECK((v.div_inv - VectorXd{{2 * t[0], t[1]}}).cwiseAbs().maxCoeff() < 1e-15);
    // ∇·G^{-1/2} by finite differences against a fine-step Richardson estimate of the same quantity.
    auto sq = [](const VectorXd& x) {
      Eigen::SelfAdjointEigenSolver<MatrixXd> es(MatrixXd(DenseInverse{}(x)));
      return MatrixXd(es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() * es.eigenvectors().transpose());
    };
    VectorXd ref = VectorXd::Zero(2);
    for (int j = 0; j < 2; ++j) {
      auto cd = [&](double e) {
        VectorXd p = t, m = t;
        p[j] += e, m[j] -= e;
        return VectorXd((sq(p).col(j) - sq(m).col(j)) / (2 * e));
      };
      ref += (4 * cd(1e-3) - cd(2e-3)) / 3;
    }
    CHECK((v.div_inv_sqrt - ref).cwiseAbs().maxCoeff() < 1e-8);
  }
}

TEST_CASE("clear errors: Q not skew, D not PSD at a visited state, 2D - hB̂ not PSD, a vanishing metric") {
  random::Stream rng(1, 0);
  const auto U = noisy_gaussian();
  {
    recipe::Sampler<recipe::Constant> s{{MatrixXd::Identity(2, 2), MatrixXd{{0, 1}, {1, 0}}}};
    CHECK_THROWS_WITH_AS(s.init(kStart, rng), doctest::Contains("Q: not skew-symmetric"), Error);
    recipe::Sampler<recipe::Constant> t{{MatrixXd{{1, 0}, {0, -0.5}}, MatrixXd::Zero(2, 2)}};
    CHECK_THROWS_WITH_AS(t.init(kStart, rng), doctest::Contains("D: not positive semidefinite"), Error);
  }
  {
    // D(z) = diag(1 - z₁², 1): PSD at the start, not once the chain leaves |z₁| < 1.
    auto dz = [](const auto& z) {
      using T = ScalarOf<decltype(z)>;
      Eigen::Matrix<T, -1, -1> m = Eigen::Matrix<T, -1, -1>::Zero(2, 2);
      m(0, 0) = 1.0 - z[0] * z[0];
      m(1, 1) = T(1.0);
      return m;
    };
    auto zero = [](const auto& z) { using T = ScalarOf<decltype(z)>; return Eigen::Matrix<T, -1, -1>::Zero(z.size(), z.size()).eval(); };
    recipe::Sampler<recipe::Fields<decltype(dz), decltype(zero)>> s{{dz, zero}};
    s.step_size = schedule::StepSize::constant(0.2);
    auto st = s.init(VectorXd::Zero(2), rng);
    const models::Gaussian far = models::Gaussian::isotropic(VectorXd::Constant(2, 5.0), 1.0);
    CHECK_THROWS_WITH_AS(
        [&] { for (std::uint64_t t = 0; t < 1000; ++t) s.step(st, far, rng, t); }(),
        doctest::Contains("D: not positive semidefinite at z = "), Error);
  }
  {
    // SGHMC row with B̂ = 10 > 2C/h: error by default, clipped (and counted) on request.
    recipe::Sampler<recipe::Constant> s{{block_diag(0, 1.0, 2), sghmc_q(2)}, recipe::Augment::momentum};
    s.step_size = schedule::StepSize::constant(0.5);
    s.noise_estimate = block_diag(0, 10.0, 2);
    auto st = s.init(kStart, rng);
    CHECK_THROWS_WITH_AS(s.step(st, U, rng, 0), doctest::Contains("not positive semidefinite"), Error);
    s.noise_policy = recipe::NoisePolicy::clip;
    auto st2 = s.init(kStart, rng);
    s.step(st2, U, rng, 0);
    CHECK(st2.clipped == 1);
    CHECK(st2.z.allFinite());
  }
  {
    // The level-set metric on the *unnormalised* double well θ⁴ - 2θ²: U + 0.5 vanishes at
    // θ = 0.541196 (docs/math.md#gsgrhmc-in-one-dimension); the error names metric.offset.
    struct Unnormalised : models::DoubleWell {
      double value(const VectorXd& x) const { return models::DoubleWell::value(x) - log_z; }
    };
    const sgrhmc::Sampler<recipe::metric::LevelSet> s{{1.5, 0.5}, schedule::StepSize::constant(0.01)};
    auto st = s.init(VectorXd::Constant(1, 0.5411961), rng);
    CHECK_THROWS_WITH_AS(s.step(st, Unnormalised{}, rng, 0), doctest::Contains("metric.offset"), Error);
    // Normalised, U + 0.5 ≥ -1 + 1.68 + 0.5 > 0 everywhere: fine.
    auto st2 = s.init(VectorXd::Constant(1, 0.5411961), rng);
    CHECK_NOTHROW(s.step(st2, models::DoubleWell{}, rng, 0));
  }
  {
    recipe::Sampler<recipe::Constant> s{{MatrixXd::Identity(2, 2), MatrixXd::Zero(2, 2)}};
    s.scheme = recipe::Scheme::semi_implicit;
    CHECK_THROWS_WITH_AS(s.init(kStart, rng), doctest::Contains("scheme"), Error);
    const sgrld::Sampler<recipe::metric::LevelSet> bad{{-1.0, 0.5}, schedule::StepSize::constant(0.1)};
    CHECK_THROWS_WITH_AS(bad.init(kStart, rng), doctest::Contains("metric.scale"), Error);
  }
}

TEST_CASE("expanded-mean SGRLD keeps θ > 0, reports π on the simplex, and mirrors at 0") {
  const Dirichlet U{VectorXd{{0.3, 1.0, 2.0, 0.5}}};
  const sgrld::ExpandedMean s{schedule::StepSize::constant(0.05)};
  random::Stream rng(3, 0);
  auto st = s.init(VectorXd::Constant(4, 0.25), rng);
  for (std::uint64_t t = 0; t < 20000; ++t) {
    s.step(st, U, rng, t);
    REQUIRE((st.theta.array() > 0).all());
    REQUIRE(std::abs(st.x.sum() - 1.0) < 1e-12);
  }
  CHECK(st.reflections > 0);  // α_k < 1 pushes mass to the faces: the mirror is exercised
}

TEST_CASE("expanded-mean SGRLD and SCIR on modules/simplex/expanded_mean.hpp = their previous inline code, to the bit") {
  // Their θ/π bookkeeping (lift, π = θ/Σθ, the mirror, ∂U_θ) moved to the shared module. The previous
  // inline arithmetic, replayed here on a copy of the random stream for 100 steps, must give identical
  // θ, π and reflection counts: same seeds, same draws.
  const VectorXd alpha{{0.3, 1.0, 2.0, 0.5}}, x0{{0.5, 0.0, 0.25, 0.25}};
  {
    const Dirichlet U{alpha};
    const double h = 0.05;
    const sgrld::ExpandedMean s{schedule::StepSize::constant(h)};
    random::Stream ra(5, 1), rb(5, 1);
    auto st = s.init(x0, ra);
    VectorXd theta = (4.0 * x0).cwiseMax(std::numeric_limits<double>::min()), g(4), noise(4);
    VectorXd x = theta / theta.sum();
    std::uint64_t reflections = 0;
    REQUIRE(st.theta == theta);
    REQUIRE(st.x == x);
    for (std::uint64_t t = 0; t < 100; ++t) {
      const StepInfo info = s.step(st, U, ra, t);
      const std::uint64_t before = reflections;
      U.gradient(x, g, rb);
      rb.normals(noise);
      const double sum = theta.sum();
      const double mean_grad = x.dot(g);
      for (Eigen::Index k = 0; k < 4; ++k) {
        const double th = theta[k];
        const double du = 1.0 + (g[k] - mean_grad) / sum;
        double next = th + h * (1.0 - th * du) + std::sqrt(2.0 * h * th) * noise[k];
        if (next < 0) next = -next, ++reflections;
        theta[k] = std::max(next, std::numeric_limits<double>::min());
      }
      x = theta / theta.sum();
      REQUIRE(st.theta == theta);
      REQUIRE(st.x == x);
      REQUIRE(st.reflections == reflections);
      REQUIRE(info.reflections == reflections - before);
    }
    CHECK(reflections > 0);
    CHECK(ra.normal() == rb.normal());
  }
  {
    const models::Dirichlet U{alpha};
    const scir::Sampler s{4, schedule::StepSize::constant(0.3)};
    const VectorXd inside{{0.5, 0.1, 0.15, 0.25}};
    random::Stream ra(6, 2), rb(6, 2);
    auto st = s.init(inside, ra);
    VectorXd theta = inside * 4.0, x = inside;
    REQUIRE(st.theta == theta);
    REQUIRE(st.x == x);
    for (std::uint64_t t = 0; t < 100; ++t) {
      s.step(st, U, ra, t);
      const VectorXd& a = U.concentration(rb);
      const double decay = std::exp(-0.3), c = 0.5 * -std::expm1(-0.3);
      for (Eigen::Index k = 0; k < 4; ++k) theta[k] = c * random::noncentral_chi_square(rb, 2.0 * a[k], theta[k] * decay / c);
      const double total = theta.sum();
      if (total > 0) x = theta / total;
      else x.setConstant(std::numeric_limits<double>::quiet_NaN());
      REQUIRE(st.theta == theta);
      REQUIRE(st.x == x);
    }
    CHECK(ra.uniform() == rb.uniform());
  }
}
