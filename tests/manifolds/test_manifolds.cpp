// Unit tests of the manifolds (docs/math.md#manifolds; #checks-for-any-target, d): the conformance kit on every
// shipped manifold and on the user-defined example, the kit's own power to reject broken manifolds, and
// the flow-specific checks (geodesic ODE residuals, sphere = Stiefel at p = 1, simplex against
// brute-force mirror stepping, corners, the reflection guard, v → 0, long-run drift, Haar sampling).

// Eigen's allocation guard, made active in this Release-built file: every heap allocation Eigen makes
// while set_is_malloc_allowed(false) bumps a counter (eigen_assert is otherwise compiled out by NDEBUG).
// This is the only Eigen translation unit of test_manifolds, so the definitions are consistent.
#define EIGEN_RUNTIME_NO_MALLOC
namespace sgmcmc_test {
inline int eigen_assert_failures = 0;
}
#define eigen_assert(x)                                     \
  do {                                                      \
    if (!(x)) ++::sgmcmc_test::eigen_assert_failures;       \
  } while (false)

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/QR>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/models/uniform.hpp>
#include <sgmcmc/modules/conformance/doctest.hpp>
#include <sgmcmc/modules/random/stream.hpp>

#include "../../examples/oblique/oblique.hpp"

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

VectorXd tangent(const auto& m, const VectorXd& x, random::Stream& rng, double norm = -1) {
  VectorXd v(m.ambient_size());
  rng.normals(v);
  m.project(x, v);
  if (norm >= 0) v *= norm / v.norm();
  return v;
}

// ---- Near misses for the conformance kit: each breaks exactly one law, which the kit must report. ----

// Projects only half the normal component: not idempotent (a "missing projection" in the flow's sense).
struct HalfProjectionSphere : Sphere {
  using Sphere::Sphere;
  void project(Eigen::Ref<const VectorXd> x, Eigen::Ref<VectorXd> v) const { v -= 0.5 * x.dot(v) * x; }
};
// Reports the ambient size as the dimension (the thermostat bug of docs/math.md#the-thermostat-dimension).
struct AmbientDimSphere : Sphere {
  using Sphere::Sphere;
  Eigen::Index intrinsic_dim() const { return n; }
};
// The SGGMC authors' flow: sin(αt)/α divided out literally, NaN at v = 0, no drift control.
struct NaiveSphere : Sphere {
  using Sphere::Sphere;
  std::uint64_t flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t) const {
    const double a = v.norm();
    const VectorXd x0 = x;
    x = std::cos(a * t) * x0 + (std::sin(a * t) / a) * v;
    v = std::cos(a * t) * v - a * std::sin(a * t) * x0;
    return 0;
  }
};
// A retraction, not the geodesic: step straight and renormalise. On M and tangent, but not a flow.
struct RetractionSphere : Sphere {
  using Sphere::Sphere;
  std::uint64_t flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t) const {
    x += t * v;
    x.normalize();
    v -= x.dot(v) * x;
    return 0;
  }
};
// A wrong reflection: v_j <- -v_j alone, which leaves the hyperplane Σv = 0.
struct WrongReflectionSimplex : Simplex {
  using Simplex::Simplex;
  std::uint64_t flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t) const {
    std::uint64_t nref = 0;
    for (;;) {
      double hit = std::numeric_limits<double>::infinity();
      Eigen::Index j = -1;
      for (Eigen::Index i = 0; i < x.size(); ++i)
        if (v[i] < 0 && std::max(x[i], 0.0) / -v[i] < hit) hit = std::max(x[i], 0.0) / -v[i], j = i;
      if (j < 0 || hit >= t) {
        x += t * v;
        break;
      }
      x += hit * v;
      x[j] = 0;
      t -= hit;
      v[j] = -v[j];
      if (++nref > 1000) break;
    }
    return nref;
  }
};
// A fused sweep that projects before it kicks: the kick's normal part survives into the flow.
struct ProjectThenKickSphere : Sphere {
  using Sphere::Sphere;
  std::uint64_t flow_kick_flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t1, ChunkKick kick, double t2) const {
    if (t1 != 0.0) flow(x, v, t1);
    project(x, v);
    kick(0, x.size());
    return flow(x, v, t2);
  }
};
// The right numbers, but the chunks kicked last first: a kick drawing its noise chunk by chunk would
// draw it in another order than a whole fill.
struct BackwardKickEuclidean : Euclidean {
  using Euclidean::Euclidean;
  std::uint64_t flow_kick_flow(Eigen::Ref<VectorXd> x, Eigen::Ref<VectorXd> v, double t1, ChunkKick kick, double t2) const {
    x += t1 * v;
    for (Eigen::Index e = x.size(); e > 0; e -= 2) kick(std::max<Eigen::Index>(e - 2, 0), e);
    x += t2 * v;
    return 0;
  }
};
static_assert(ManifoldWithFusedSweep<ProjectThenKickSphere> && ManifoldWithFusedSweep<BackwardKickEuclidean>);
// Takes Point& (not Ref): a Manifold, but not usable as a block of a Product.
struct PointRefCircle {
  using Point = VectorXd;
  Eigen::Index ambient_size() const { return 2; }
  Eigen::Index intrinsic_dim() const { return 1; }
  void project(const Point&, Point&) const {}
  std::uint64_t flow(Point&, Point&, double) const { return 0; }
  double distance_to(const Point&) const { return 0; }
  template <class R> Point random_point(R&) const { return Point(2); }
};

// ---- Example instances of each manifold, for the law tests (Sophus2-style per-type example data). ----
template <class M> std::vector<M> examples();
template <> std::vector<Euclidean> examples() { return {Euclidean{1}, Euclidean{5}, Euclidean{2500}}; }
template <> std::vector<Sphere> examples() { return {Sphere{2}, Sphere{3}, Sphere{10}, Sphere{2053}}; }
template <> std::vector<Simplex> examples() { return {Simplex{2}, Simplex{3}, Simplex{4}, Simplex{10}}; }
template <> std::vector<Stiefel> examples() { return {Stiefel{4, 1}, Stiefel{5, 3}, Stiefel{3, 3}, Stiefel{10, 3}}; }
using Torus = Product<Sphere, Sphere>;
template <> std::vector<Torus> examples() { return {Torus{Sphere{2}, Sphere{2}}, Torus{Sphere{3}, Sphere{5}}}; }
using Mixed = Product<Sphere, Simplex, Euclidean, Stiefel>;
template <> std::vector<Mixed> examples() { return {Mixed{Sphere{3}, Simplex{4}, Euclidean{2}, Stiefel{4, 2}}}; }
template <> std::vector<Power<Sphere>> examples() { return {Power{Sphere{3}, 4}}; }
template <> std::vector<Power<Simplex>> examples() { return {Power{Simplex{3}, 3}}; }
template <> std::vector<DynamicProduct> examples() {
  return {DynamicProduct({Sphere{3}, Simplex{4}, Stiefel{5, 2}, Euclidean{2}}), DynamicProduct({Stiefel{3, 1}}),
          DynamicProduct({Euclidean{1100}, Sphere{1500}, Euclidean{3}})};
}
// Flat blocks of several kick chunks each: Euclidean's fused sweep behind two levels of offsets.
using Flat = Product<Euclidean, Power<Euclidean>>;
template <> std::vector<Flat> examples() { return {Flat{Euclidean{1500}, Power{Euclidean{700}, 3}}}; }

// Whether a manifold's flow_kick_flow must equal the plain sequence to the bit: yes for those whose
// fused sweep does the same arithmetic (Euclidean and products of it) and for those without one; the
// sphere's (and so a product with a sphere factor) computes its projected speed by an algebraically
// equal formula and agrees to rounding (the kit's default tolerance).
template <class M> constexpr bool fused_sweep_bitwise = true;
template <> constexpr bool fused_sweep_bitwise<Sphere> = false;
template <> constexpr bool fused_sweep_bitwise<Product<Sphere, Sphere>> = false;
template <> constexpr bool fused_sweep_bitwise<Product<Sphere, Simplex, Euclidean, Stiefel>> = false;
template <> constexpr bool fused_sweep_bitwise<Power<Sphere>> = false;
template <> constexpr bool fused_sweep_bitwise<DynamicProduct> = false;
template <> std::vector<oblique::Oblique> examples() { return {oblique::Oblique{3, 4}, oblique::Oblique{2, 1}}; }

}  // namespace

static_assert(Manifold<Sphere> && Manifold<Simplex> && Manifold<Stiefel> && Manifold<DynamicProduct>);
static_assert(BlockManifold<Torus> && BlockManifold<Mixed> && BlockManifold<Power<Stiefel>>);
static_assert(BlockManifold<Product<Torus, Power<Simplex>>>);  // products of products
static_assert(BlockManifold<oblique::Oblique>);                 // the user manifold composes too
static_assert(Manifold<PointRefCircle> && !BlockManifold<PointRefCircle>);
static_assert(PotentialWithValue<models::Uniform>);

TEST_CASE_TEMPLATE("every manifold obeys the manifold laws", M, Euclidean, Sphere, Simplex, Stiefel, Torus, Mixed,
                   Power<Sphere>, Power<Simplex>, DynamicProduct, Flat, oblique::Oblique) {
  // Catches: anything the kit checks (projection, flow on M and tangent, |v|, group law, reversibility,
  // dimension, the fused sweep flow_kick_flow against the plain sequence — to the bit where it does the
  // same arithmetic), for every shipped manifold and for the one-header user example.
  std::uint64_t seed = 11;
  conformance::LawOptions options;
  if (fused_sweep_bitwise<M>) options.tol.fused_sweep = 0.0;
  for (const M& m : examples<M>()) {
    CAPTURE(m.ambient_size());
    const conformance::Report r = conformance::check_manifold_laws(m, seed++, options);
    CHECK(r.laws.size() >= 12);
  }
}

TEST_CASE("the conformance kit rejects broken manifolds") {
  // Catches: a kit whose laws check nothing. Each near miss must fail exactly the law it breaks.
  const auto fails = [](const conformance::Report& r, const char* law) {
    const auto* l = r.find(law);
    REQUIRE_MESSAGE(l != nullptr, law);
    INFO(r.summary());
    CHECK_MESSAGE(!l->passed, law);
  };
  fails(conformance::manifold_laws(HalfProjectionSphere{3}, 1), "projection is idempotent");
  fails(conformance::manifold_laws(AmbientDimSphere{3}, 1), "projection has rank intrinsic_dim");
  fails(conformance::manifold_laws(NaiveSphere{3}, 1), "flow keeps x on M");  // NaN at the zero tangent
  const auto retraction = conformance::manifold_laws(RetractionSphere{3}, 1);
  fails(retraction, "flow is a one-parameter group");
  fails(retraction, "flow conserves ‖v‖");
  fails(conformance::manifold_laws(WrongReflectionSimplex{4}, 1), "flow keeps v tangent");
  fails(conformance::manifold_laws(ProjectThenKickSphere{3}, 1), "flow_kick_flow is flow, kick, project, flow");
  const auto backward = conformance::manifold_laws(BackwardKickEuclidean{5}, 1);
  fails(backward, "flow_kick_flow kicks consecutive chunks covering [0, N) once");
  CHECK(backward.find("flow_kick_flow is flow, kick, project, flow")->passed);  // only the order is wrong
  // And the real ones pass every law.
  CHECK(conformance::manifold_laws(Sphere{3}, 1).passed());
  CHECK(conformance::manifold_laws(Simplex{4}, 1).passed());
}

TEST_CASE("constructors validate their arguments") {
  // Catches: a degenerate manifold (S^0, Δ^0, p > n) that would divide by zero later in a sampler.
  CHECK_THROWS_WITH_AS(Sphere{1}, "sphere: n must be at least 2", Error);
  CHECK_THROWS_WITH_AS(Simplex{1}, "simplex: n must be at least 2", Error);
  CHECK_THROWS_WITH_AS((Stiefel{3, 4}), "stiefel: p must be between 1 and n", Error);
  CHECK_THROWS_WITH_AS((Stiefel{1, 1}), "stiefel: n must be at least 2", Error);
  CHECK_THROWS_WITH_AS((Power{Sphere{3}, 0}), "power: copies must be at least 1", Error);
  CHECK_THROWS_WITH_AS(DynamicProduct{{}}, "product: factors must not be empty", Error);
  CHECK(Sphere{5}.intrinsic_dim() == 4);
  CHECK(Simplex{5}.intrinsic_dim() == 4);
  CHECK(Stiefel(7, 3).intrinsic_dim() == 7 * 3 - 6);
  CHECK(Stiefel(7, 3).ambient_size() == 21);
  CHECK(Mixed{Sphere{3}, Simplex{4}, Euclidean{2}, Stiefel{4, 2}}.intrinsic_dim() == 2 + 3 + 2 + 5);
  CHECK(Power{Stiefel{5, 2}, 3}.intrinsic_dim() == 3 * 7);
}

TEST_CASE("models::Uniform is U = 0") {
  // Catches: a non-zero gradient, which would make the kit's GMC law test something else than the flow.
  models::Uniform u;
  random::Stream rng(1, 0);
  VectorXd x = VectorXd::Ones(4), g = VectorXd::Ones(4);
  u.gradient(x, g, rng);
  CHECK(g.isZero(0));
  g.setOnes();
  u.exact_gradient(x, g);
  CHECK(g.isZero(0));
  CHECK(u.value(x) == 0.0);
}

TEST_CASE("sphere: the flow solves the geodesic ODE ẍ = -|ẋ|² x") {
  // Catches: a wrong closed form (e.g. sin(αt) where sin(αt)/α belongs), which can still stay on the
  // sphere and keep |v| but is not the geodesic.
  random::Stream rng(3, 0);
  const Sphere s{5};
  for (int rep = 0; rep < 5; ++rep) {
    const VectorXd x = s.random_point(rng), v = tangent(s, x, rng);
    const double t = 0.8, d = 1e-4;
    const auto at = [&](double tau) {
      VectorXd xx = x, vv = v;
      s.flow(xx, vv, tau);
      return std::pair{xx, vv};
    };
    const auto [xm, vm] = at(t - d);
    const auto [x0, v0] = at(t);
    const auto [xp, vp] = at(t + d);
    const VectorXd acc = (xp - 2 * x0 + xm) / (d * d);
    CHECK((acc + v.squaredNorm() * x0).norm() < 1e-6 * (1 + v.squaredNorm()));
    CHECK(((xp - xm) / (2 * d) - v0).norm() < 1e-6 * (1 + v.squaredNorm()));  // the flow's v is ẋ
  }
}

TEST_CASE("stiefel: the flow solves Ẍ + X(ẊᵀẊ) = 0 and its V is Ẋ") {
  // Catches: a transposed block or sign in the 2p×2p exponential, or a missing exp(-tA) factor; such
  // flows can still end on V_{n,p} after the polar step but are not geodesics.
  random::Stream rng(4, 0);
  const Stiefel st{6, 3};
  for (int rep = 0; rep < 5; ++rep) {
    const VectorXd x = st.random_point(rng), v = tangent(st, x, rng);
    const double t = 0.6, d = 1e-4;
    const auto at = [&](double tau) {
      VectorXd xx = x, vv = v;
      st.flow(xx, vv, tau);
      return std::pair{xx, vv};
    };
    const auto [xm, vm] = at(t - d);
    const auto [x0, v0] = at(t);
    const auto [xp, vp] = at(t + d);
    const Eigen::MatrixXd X = st.const_matrix(x0), V = st.const_matrix(v0);
    const Eigen::MatrixXd acc = st.const_matrix((xp - 2 * x0 + xm) / (d * d));
    const Eigen::MatrixXd vel = st.const_matrix((xp - xm) / (2 * d));
    CHECK((acc + X * (V.transpose() * V)).norm() < 1e-6 * (1 + v.squaredNorm()));
    CHECK((vel - V).norm() < 1e-6 * (1 + v.squaredNorm()));
  }
}

TEST_CASE("sphere and Stiefel flows agree at p = 1") {
  // Catches: an error in either closed form, since V_{n,1} = S^{n-1} with the same metric
  // (docs/math.md#stiefel).
  random::Stream rng(5, 0);
  const Sphere s{4};
  const Stiefel st{4, 1};
  double worst = 0;
  for (int rep = 0; rep < 20; ++rep) {
    const VectorXd x = s.random_point(rng), v = tangent(s, x, rng);
    for (double t : {0.05, 0.3, 1.7, -0.9}) {
      VectorXd x1 = x, v1 = v, x2 = x, v2 = v;
      s.flow(x1, v1, t);
      st.flow(x2, v2, t);
      worst = std::max(worst, (x1 - x2).norm() + (v1 - v2).norm());
    }
  }
  CHECK(worst < 1e-14);
}

TEST_CASE("sphere: |v| → 0 gives no NaN and the straight step") {
  // Catches: sin(αt)/α computed literally (0/0 at v = 0, the SGGMC authors' code), and a sinc branch with
  // the wrong Taylor coefficient (a jump at its threshold |αt| = 1e-4).
  const Sphere s{3};
  const VectorXd x = VectorXd::Unit(3, 0);
  const VectorXd dir = VectorXd::Unit(3, 1);
  for (double a : {0.0, 1e-300, 1e-200, 1e-20, 1e-9, 1e-6}) {
    VectorXd xx = x, vv = a * dir;
    s.flow(xx, vv, 0.5);
    CHECK(xx.allFinite());
    CHECK(vv.allFinite());
    CHECK(std::abs(xx.norm() - 1.0) < 1e-15);
    CHECK((xx - (x + 0.5 * a * dir)).norm() <= 0.5 * (0.5 * a) * (0.5 * a) + 1e-16);
    // v(t) ≈ v - α²t x; compared entrywise because norm() itself underflows below 1e-154
    CHECK((vv - (a * dir - a * a * 0.5 * x)).cwiseAbs().maxCoeff() <= 1e-15 * a + a * (0.5 * a) * (0.5 * a));
  }
  // Both sides of the branch threshold against the exact great circle in long double.
  for (double angle : {0.999e-4, 1e-4, 1.001e-4, 3e-5}) {
    const double t = 2.0, a = angle / t;
    VectorXd xx = x, vv = a * dir;
    s.flow(xx, vv, t);
    const long double xe = std::cos(static_cast<long double>(angle));
    const long double ye = std::sin(static_cast<long double>(angle));
    CHECK(std::abs(static_cast<long double>(xx[0]) - xe) < 2.3e-16L);
    CHECK(std::abs(static_cast<long double>(xx[1]) - ye) < 1e-19L);
  }
}

TEST_CASE("sphere: the SSE2 and AVX2 copies of the sweeps give the same bits") {
  // Catches: a copy that sums its eight partial sums in another order, or lets a·b + c become an FMA —
  // either would make a run's result depend on the machine it ran on (modules/simd/isa.hpp).
  namespace ds = sgmcmc::detail::sphere;
  if (!ds::use_avx2()) {
    MESSAGE(std::string("no AVX2 on this CPU (or a build without ISA dispatch): only one copy runs"));
    return;
  }
  random::Stream rng(21, 0);
  for (const Eigen::Index n : {2, 7, 8, 9, 31, 1000, 1003, 2051}) {
    const Sphere m{n};
    const VectorXd x = m.random_point(rng);
    VectorXd v(n);
    rng.normals(v);  // not tangent: the projection has work to do
    CHECK(ds::dispatch_dot(x.data(), v.data(), n, simd::Isa::generic) ==
          ds::dispatch_dot(x.data(), v.data(), n, simd::Isa::avx2));
    VectorXd p1 = v, p2 = v;
    ds::dispatch_project(x.data(), p1.data(), n, simd::Isa::generic);
    ds::dispatch_project(x.data(), p2.data(), n, simd::Isa::avx2);
    CHECK((p1.array() == p2.array()).all());
    for (const double t : {0.3, -1.7}) {
      VectorXd x1 = x, v1 = v, x2 = x, v2 = v;
      // The kicked sweep (kick, projection, flow), with a kick that reads x and scales v.
      const auto kick1 = [&](Eigen::Index b, Eigen::Index e) {
        for (Eigen::Index i = b; i < e; ++i) v1[i] = 0.75 * v1[i] + 0.25 * x1[i];
      };
      const auto kick2 = [&](Eigen::Index b, Eigen::Index e) {
        for (Eigen::Index i = b; i < e; ++i) v2[i] = 0.75 * v2[i] + 0.25 * x2[i];
      };
      const auto f1 = ds::dispatch_flow_kicked(x1.data(), v1.data(), n, t, ChunkKick(kick1), simd::Isa::generic);
      const auto f2 = ds::dispatch_flow_kicked(x2.data(), v2.data(), n, t, ChunkKick(kick2), simd::Isa::avx2);
      CHECK(((x1.array() == x2.array()).all() && (v1.array() == v2.array()).all()));
      CHECK((f1.xx == f2.xx && f1.xv == f2.xv && f1.alpha == f2.alpha));
      const auto g1 = ds::dispatch_flow(x1.data(), v1.data(), n, t, simd::Isa::generic);
      const auto g2 = ds::dispatch_flow(x2.data(), v2.data(), n, t, simd::Isa::avx2);
      CHECK(((x1.array() == x2.array()).all() && (v1.array() == v2.array()).all()));
      CHECK((g1.xx == g2.xx && g1.xv == g2.xv && g1.alpha == g2.alpha));
    }
  }
}

TEST_CASE("simplex: the event-driven flow matches brute-force mirror stepping") {
  // Catches: a wrong reflection formula or normal, a missed hit, or a wrong hit time: the exact flow
  // must agree with tiny straight steps mirrored in the face (docs/math.md#simplex: K = 4, |v| ≈ 3, t = 2).
  const Simplex sx{4};
  const int k = 4;
  random::Stream rng(6, 0);
  VectorXd x0(4);
  x0 << 0.1, 0.2, 0.3, 0.4;
  const VectorXd v0 = tangent(sx, x0, rng, 3.0);
  const double t = 2.0;
  VectorXd x = x0, v = v0;
  const std::uint64_t nref = sx.flow(x, v, t);

  // Brute force: steps of dt; a coordinate that went negative is mirrored in its face inside the plane
  // Σx = 1, with normal n_j = e_j - 1/K and |n_j|² = (K-1)/K, and so is v.
  const double dt = 1e-6;
  const long steps = std::lround(t / dt);
  VectorXd xb = x0, vb = v0;
  std::uint64_t nb = 0;
  for (long s = 0; s < steps; ++s) {
    xb += dt * vb;
    for (;;) {
      Eigen::Index j;
      if (xb.minCoeff(&j) >= 0) break;
      const double cx = xb[j], cv = vb[j] - vb.mean();
      xb.array() += 2.0 * cx / (k - 1);
      xb[j] -= 2.0 * cx * k / (k - 1);
      vb.array() += 2.0 * cv / (k - 1);
      vb[j] -= 2.0 * cv * k / (k - 1);
      ++nb;
    }
  }
  CHECK(nref >= 8);  // the test must exercise many reflections
  CHECK(nref == nb);
  CHECK((x - xb).norm() < 1e-5);
  CHECK((v - vb).norm() < 1e-9);
  CHECK(std::abs(v.norm() - v0.norm()) < 1e-14);
  CHECK(std::abs(x.sum() - 1.0) < 1e-15);
  CHECK(std::abs(v.sum()) < 1e-14);
}

TEST_CASE("simplex: corners and edges terminate on the simplex") {
  // Catches: an infinite loop of zero-time reflections at a corner, a negative hit time from a
  // coordinate rounded below 0, and a point left off the simplex (docs/math.md#simplex, "Corners").
  SUBCASE("out through a vertex of Δ²: three zero-time reflections, then straight in") {
    const Simplex sx{3};
    VectorXd x(3), v(3);
    x << 1, 0, 0;
    v << 1, -0.5, -0.5;
    CHECK(sx.flow(x, v, 0.1) == 3);  // ⌈π/φ⌉ = 3 with the 60° dihedral angle of Δ²
    CHECK((v - Eigen::Vector3d(-1, 0.5, 0.5)).norm() < 1e-15);
    CHECK((x - Eigen::Vector3d(0.9, 0.05, 0.05)).norm() < 1e-15);
  }
  SUBCASE("random velocities at vertices, on edges, and from rounding-negative coordinates") {
    random::Stream rng(7, 0);
    for (int k : {2, 3, 4, 10}) {
      const Simplex sx{k};
      for (int rep = 0; rep < 300; ++rep) {
        VectorXd x = VectorXd::Zero(k);
        switch (rep % 3) {
          case 0: x[rep % k] = 1.0; break;                                     // a vertex
          case 1: x[0] = 0.5; x[k - 1] = 0.5; break;                           // an edge (or all of Δ¹)
          default: x = sx.random_point(rng); x[0] = -1e-17; x /= x.sum();      // just outside a face
        }
        VectorXd v = tangent(sx, x, rng, rep % 2 == 0 ? 1.0 : 10.0);
        const double vn = v.norm();
        const std::uint64_t nref = sx.flow(x, v, 0.37);
        CHECK(nref < 1000);
        CHECK(x.allFinite());
        CHECK(x.minCoeff() >= 0.0);
        CHECK(std::abs(x.sum() - 1.0) < 1e-14);
        CHECK(std::abs(v.sum()) < 1e-13);
        CHECK(std::abs(v.norm() - vn) < 1e-12 * vn);
      }
    }
    VectorXd x = VectorXd::Unit(4, 2), v = VectorXd::Zero(4);
    CHECK(Simplex{4}.flow(x, v, 1.0) == 0);  // at rest on a vertex: nothing happens
    CHECK(x == VectorXd::Unit(4, 2));
  }
}

TEST_CASE("simplex: the reflection guard stops a runaway flow and says so") {
  // Catches: an unbounded loop for huge t|v| (gap 3 of the authors' code) and a guard that fires
  // silently: the returned count exceeds max_reflections and guard_events() counts it.
  const Simplex sx{4, 100};
  random::Stream rng(8, 0);
  VectorXd x = sx.random_point(rng), v = tangent(sx, x, rng, 3.0);
  CHECK(sx.guard_events() == 0);
  CHECK(sx.flow(x, v, 1e3) == 101);
  CHECK(sx.guard_events() == 1);
  CHECK(sx.distance_to(x) < 1e-14);
  CHECK(std::abs(v.norm() - 3.0) < 1e-12);
  const Simplex copy = sx;  // copying a sampler forks its diagnostics with it
  CHECK(copy.guard_events() == 1);
  sx.reset_guard_events();
  CHECK(sx.guard_events() == 0);
  CHECK(copy.guard_events() == 1);
  VectorXd y = Simplex{4}.random_point(rng), w = tangent(sx, y, rng, 3.0);
  CHECK(Simplex{4}.flow(y, w, 1e9) == 10001);  // the default guard, reached in a few ms
}

TEST_CASE("long runs do not drift off the manifold") {
  // Catches: a flow without drift control (renormalise x, re-project v; polar factor on Stiefel), whose
  // rounding error random-walks off the manifold over millions of steps (docs/math.md#sphere, #stiefel).
  SUBCASE("sphere: 10⁶ flow + project steps") {
    const Sphere s{3};
    random::Stream rng(9, 0);
    VectorXd x = s.random_point(rng), v = tangent(s, x, rng), z(3);
    double worst = 0, worst_tangent = 0;
    for (int i = 0; i < 1000000; ++i) {
      rng.normals(z);
      v *= 0.9;  // (in place: `v = 0.9 * v + 0.4 * z` trips a GCC 12 -Wuse-after-free false positive here)
      v += 0.4 * z;
      s.project(x, v);
      s.flow(x, v, 0.1);
      if ((i & 1023) == 0) {
        worst = std::max(worst, std::abs(x.norm() - 1.0));
        worst_tangent = std::max(worst_tangent, std::abs(x.dot(v)));
      }
    }
    worst = std::max(worst, std::abs(x.norm() - 1.0));
    CHECK(worst < 1e-10);
    CHECK(worst < 1e-14);  // in fact at rounding level
    CHECK(worst_tangent < 1e-13);
  }
  SUBCASE("Stiefel V_{10,3}: 10⁵ random-velocity flows") {
    const Stiefel st{10, 3};
    random::Stream rng(10, 0);
    VectorXd x = st.random_point(rng);
    for (int i = 0; i < 100000; ++i) {
      VectorXd v = tangent(st, x, rng);
      st.flow(x, v, 0.1);
    }
    CHECK(st.distance_to(x) < 1e-10);
    CHECK(st.distance_to(x) < 1e-13);
  }
}

TEST_CASE("Stiefel random_point is Haar: QR with the sign fix, and why plain QR is not") {
  // Catches: a random_point from plain Householder QR. Its Q_11 = Z_11/R_11 with R_11 = -sign(Z_11)‖z_1‖
  // is negative for every draw, so E[X_11] ≈ -E|Z_11|/‖z_1‖ ≠ 0; Haar has P(X_jj > 0) = 1/2, E[X] = 0,
  // E[X_ij²] = 1/n (docs/math.md#stiefel, #stiefel-targets; Mezzadri 2007).
  const Eigen::Index n = 5, p = 3;
  const Stiefel st{n, p};
  random::Stream rng(12, 0), replay(12, 0);
  const int draws = 20000;
  int plain_negative = 0, sign_mismatch = 0;
  Eigen::ArrayXd positive_diag = Eigen::ArrayXd::Zero(p);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(n, p), sumsq = Eigen::MatrixXd::Zero(n, p);
  for (int i = 0; i < draws; ++i) {
    const VectorXd x = st.random_point(rng);
    const Eigen::MatrixXd X = st.const_matrix(x);
    // The same Z through plain QR: random_point must be exactly Q·diag(sign(diag R)).
    Eigen::MatrixXd z(n, p);
    replay.normals(Eigen::Map<VectorXd>(z.data(), n * p));
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(z);
    const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, p);
    plain_negative += q(0, 0) < 0;
    for (Eigen::Index j = 0; j < p; ++j) {
      const double sgn = qr.matrixQR()(j, j) < 0 ? -1.0 : 1.0;
      sign_mismatch += (X.col(j) - sgn * q.col(j)).norm() > 1e-14;
      positive_diag[j] += X(j, j) > 0;
    }
    // R' = XᵀZ is the R of the sign-fixed decomposition: upper triangular with a positive diagonal.
    const Eigen::MatrixXd r = X.transpose() * z;
    CHECK((r.diagonal().array() > 0).all());
    sum += X;
    sumsq += X.cwiseAbs2();
  }
  CHECK(plain_negative == draws);  // plain QR: Q_11 < 0 always; not Haar
  CHECK(sign_mismatch == 0);
  const double se_half = std::sqrt(0.25 / draws);
  for (Eigen::Index j = 0; j < p; ++j) CHECK(std::abs(positive_diag[j] / draws - 0.5) < 5 * se_half);
  // E[X_ij] = 0 (sd of X_ij is 1/√n) and E[X_ij²] = 1/n (sd of X_ij² = sqrt(3/(n(n+2)) - 1/n²)).
  const double se_mean = std::sqrt(1.0 / n / draws);
  const double se_sq = std::sqrt((3.0 / (n * (n + 2.0)) - 1.0 / (n * n)) / draws);
  CHECK((sum / draws).cwiseAbs().maxCoeff() < 5 * se_mean);
  CHECK(((sumsq / draws).array() - 1.0 / n).abs().maxCoeff() < 5 * se_sq);
}

TEST_CASE("products act blockwise and sum the reflections") {
  // Catches: wrong block offsets, a factor flowed twice or not at all, a dropped reflection count.
  random::Stream rng(13, 0);
  const Product<Sphere, Simplex, Stiefel> prod{Sphere{3}, Simplex{4}, Stiefel{4, 2}};
  CHECK(prod.offset<0>() == 0);
  CHECK(prod.offset<1>() == 3);
  CHECK(prod.offset<2>() == 7);
  CHECK(prod.ambient_size() == 15);
  const VectorXd x = prod.random_point(rng), v = tangent(prod, x, rng, 8.0);
  VectorXd xp = x, vp = v;
  const std::uint64_t nref = prod.flow(xp, vp, 1.3);

  VectorXd x1 = x.head(3), v1 = v.head(3), x2 = x.segment(3, 4), v2 = v.segment(3, 4), x3 = x.tail(8), v3 = v.tail(8);
  Sphere{3}.flow(x1, v1, 1.3);
  const std::uint64_t nref2 = Simplex{4}.flow(x2, v2, 1.3);
  Stiefel{4, 2}.flow(x3, v3, 1.3);
  CHECK(nref == nref2);
  CHECK(nref > 0);
  // Not bitwise: Eigen's vectorised sums round differently on an unaligned segment.
  CHECK((xp.head(3) - x1).norm() < 1e-15);
  CHECK((xp.segment(3, 4) - x2).norm() < 1e-15);
  CHECK((xp.tail(8) - x3).norm() < 1e-15);
  CHECK((vp.head(3) - v1).norm() < 1e-14);
  CHECK((vp.segment(3, 4) - v2).norm() < 1e-14);
  CHECK((vp.tail(8) - v3).norm() < 1e-14);

  // The run-time product computes bit for bit the same thing (same segments), one std::visit per factor.
  const DynamicProduct dyn({Sphere{3}, Simplex{4}, Stiefel{4, 2}});
  CHECK(dyn.size() == 3);
  CHECK(dyn.offset(2) == 7);
  CHECK(dyn.ambient_size() == prod.ambient_size());
  CHECK(dyn.intrinsic_dim() == prod.intrinsic_dim());
  VectorXd xd = x, vd = v;
  CHECK(dyn.flow(xd, vd, 1.3) == nref);
  CHECK(xd == xp);
  CHECK(vd == vp);
  VectorXd pv = v + VectorXd::Ones(15), pd = pv;
  prod.project(x, pv);
  dyn.project(x, pd);
  CHECK(pv == pd);
  random::Stream r1(14, 0), r2(14, 0);
  CHECK(prod.random_point(r1) == dyn.random_point(r2));
  CHECK(dyn.factor(1).get<Simplex>()->guard_events() == 0);
  CHECK(prod.distance_to(VectorXd::Zero(14)) == std::numeric_limits<double>::infinity());
  CHECK(dyn.distance_to(VectorXd::Zero(16)) == std::numeric_limits<double>::infinity());
}

TEST_CASE("Power<Sphere> and the oblique example agree") {
  // Catches: a divergence between the library's K-spheres and a from-scratch implementation of the same
  // manifold: offsets of Power, the per-column speed α_k, the example's own flow.
  const Power<Sphere> pw{Sphere{4}, 3};
  const oblique::Oblique ob{4, 3};
  random::Stream r1(15, 0), r2(15, 0);
  const VectorXd x = pw.random_point(r1);
  CHECK((x - ob.random_point(r2)).norm() < 1e-15);
  const VectorXd v = tangent(pw, x, r1);
  VectorXd x1 = x, v1 = v, x2 = x, v2 = v;
  pw.flow(x1, v1, 0.9);
  ob.flow(x2, v2, 0.9);
  CHECK((x1 - x2).norm() < 1e-14);
  CHECK((v1 - v2).norm() < 1e-14);
  // Each column keeps its own speed: the product flow is not one great circle in R^{12}.
  for (int j = 0; j < 3; ++j) CHECK(std::abs(v1.segment(4 * j, 4).norm() - v.segment(4 * j, 4).norm()) < 1e-14);
}

TEST_CASE("project and flow allocate nothing on Sphere, Simplex and the products") {
  // Catches: a temporary vector in a hot path (an `auto` Eigen expression materialised, a Ref that had
  // to copy a strided block): the samplers call project and flow several times per step.
  random::Stream rng(16, 0);
  const Sphere s{5};
  const Simplex sx{6};
  const Product<Sphere, Simplex, Euclidean> prod{Sphere{3}, Simplex{4}, Euclidean{2}};
  const Power<Sphere> pw{Sphere{3}, 4};
  const DynamicProduct dyn({Sphere{3}, Simplex{4}, Euclidean{2}});
  const Stiefel st{5, 2};
  const auto allocations = [&](const auto& m) {
    VectorXd x = m.random_point(rng), v = tangent(m, x, rng, 4.0), w = VectorXd::Ones(m.ambient_size());
    sgmcmc_test::eigen_assert_failures = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    m.project(x, w);
    m.flow(x, v, 0.8);
    m.flow(x, v, -0.3);
    w = v + VectorXd::Constant(m.ambient_size(), 0.1);
    const auto kick = [&](Eigen::Index b, Eigen::Index e) { w.segment(b, e - b) *= 0.9; };
    flow_kick_flow(m, x, w, 0.0, ChunkKick(kick), 0.2);
    flow_kick_flow(m, x, w, 0.1, ChunkKick(kick), 0.2);
    const double d = m.distance_to(x);
    Eigen::internal::set_is_malloc_allowed(true);
    CHECK(d < 1e-12);
    return sgmcmc_test::eigen_assert_failures;
  };
  CHECK(allocations(s) == 0);
  CHECK(allocations(sx) == 0);
  CHECK(allocations(prod) == 0);
  CHECK(allocations(pw) == 0);
  CHECK(allocations(dyn) == 0);
  CHECK(allocations(st) > 0);  // the guard works: Stiefel's expm does allocate (documented)
  sgmcmc_test::eigen_assert_failures = 0;
}
