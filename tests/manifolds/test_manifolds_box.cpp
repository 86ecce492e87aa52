// Unit tests of the box manifold (manifolds/box.hpp) and its registry entry (run/manifolds/box.hpp): the
// conformance kit on two-sided, one-sided, free and mixed boxes, the billiard flow against hand-worked
// reflections, and the entry's fields, record and geometry facts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/manifolds/box.hpp>
#include <sgmcmc/modules/conformance/doctest.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/registry.hpp>

namespace test_manifolds_box {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using Eigen::VectorXd;
constexpr double inf = std::numeric_limits<double>::infinity();

VectorXd vec(std::initializer_list<double> v) {
  VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double e : v) out[i++] = e;
  return out;
}

TEST_CASE("every kind of box obeys the manifold laws") {
  // Catches: a fold that leaves x outside [l, u] or reverses v at the wrong parity (flow keeps x on M,
  // conserves ‖v‖, time-reversible), a fold that is not a flow (one-parameter group: two short flows
  // must equal one long one, across several reflections at the fast tangent), reflections at an
  // infinite bound, and a projection that is not the identity of an n-dimensional manifold.
  const Box boxes[] = {Box(3, 0.0, 1.0),                                  // the unit cube
                       Box(vec({-2, 0, -inf, 1e-3}), vec({5, inf, 4, 2e-3})),  // two-sided, one-sided, a thin slab
                       Box(2, 0.0, inf),                                  // the positive quadrant
                       Box(vec({-inf, -inf}), vec({inf, inf}))};           // no bound at all: R²
  std::uint64_t seed = 31;
  for (const Box& b : boxes) {
    CAPTURE(b.ambient_size());
    const conformance::Report r = conformance::check_manifold_laws(b, seed++);
    CHECK(r.laws.size() >= 12);
  }
}

TEST_CASE("the box's flow folds each coordinate's straight path into its interval") {
  // Catches: a wrong fold (hand-worked: x = 0.2 in [0, 1] moving at 1 for time 1.0 hits u = 1 once and
  // ends at 0.8 moving at −1; for time 2.5 it hits 1 and 0 and ends at 0.7 moving at +1; run backwards
  // for time 0.5 it meets 0 at −0.2 and ends at 0.3 with v = −1), a one-sided bound that reflects at its
  // infinite side or not at its finite one, and a wrong count of face hits.
  const Box b(vec({0, 1, -inf}), vec({1, inf, inf}));
  VectorXd x = vec({0.2, 1.5, 3.0}), v = vec({1.0, -1.0, -7.0});
  CHECK(b.flow(x, v, 1.0) == 1 + 1);
  CHECK(x[0] == doctest::Approx(0.8).epsilon(1e-15));
  CHECK(v[0] == -1.0);
  CHECK(x[1] == doctest::Approx(1.5).epsilon(1e-15));  // 1.5 − 1 = 0.5 below the face at 1: back to 1.5
  CHECK(v[1] == 1.0);
  CHECK(x[2] == -4.0);  // a free coordinate moves straight
  CHECK(v[2] == -7.0);

  VectorXd y = vec({0.2, 2.0, 0.0}), w = vec({1.0, 0.0, 0.0});
  CHECK(b.flow(y, w, 2.5) == 2);
  CHECK(y[0] == doctest::Approx(0.7).epsilon(1e-15));
  CHECK(w[0] == 1.0);
  VectorXd z = vec({0.2, 2.0, 0.0}), u = vec({1.0, 0.0, 0.0});
  CHECK(b.flow(z, u, -0.5) == 1);  // backwards: 0.2 − 0.5 = −0.3 → 0.3, still moving towards 0 in reverse
  CHECK(z[0] == doctest::Approx(0.3).epsilon(1e-15));
  CHECK(u[0] == -1.0);
}

TEST_CASE("the box's distance, random points and construction") {
  // Catches: points outside counted as on M, random points outside a bound (or not uniform-looking at
  // the edges of the range), and bounds that cannot form a box accepted.
  const Box b(vec({0, -inf, -1}), vec({1, 2, inf}));
  CHECK(b.distance_to(vec({0.5, 0, 0})) == 0.0);
  CHECK(b.distance_to(vec({1.5, 2, -1})) == doctest::Approx(0.5));
  CHECK(b.distance_to(vec({0.5, 0})) == inf);
  CHECK(b.distance_to(vec({std::nan(""), 0, 0})) == inf);
  CHECK_FALSE(b.compact());
  CHECK(Box(2, -1, 1).compact());
  random::Stream rng(5, 0);
  for (int i = 0; i < 1000; ++i) REQUIRE(b.distance_to(b.random_point(rng)) == 0.0);
  CHECK_THROWS_WITH_AS(Box(vec({0, 1}), vec({1, 1})), "box: coordinate 1 needs lower < upper (lower 1, upper 1)", Error);
  CHECK_THROWS_AS(Box(vec({inf}), vec({inf})), Error);
  CHECK_THROWS_AS(Box(vec({0, 0}), vec({1})), Error);
}

TEST_CASE("the box entry: bounds as numbers, lists and nulls; its record; its geometry facts") {
  // Catches: a bound list read at the wrong coordinates, a null not taken as unbounded, a record that
  // does not re-parse to the same box (resume), a box that claims to be flat (the coordinate-wise
  // samplers, preconditioners and L-BFGS would step through its faces) or compact with an infinite
  // bound (the uniform target would have no law), and errors that do not name the field.
  const run::Registry& registry = run::shipped_registry();
  const run::json given = {{"name", "box"}, {"lower", {0, nullptr, -1}}, {"upper", 2}};
  const run::ManifoldChoice c = registry.parse_manifold(given, "/manifold");
  CHECK(c.kind == "box");
  CHECK(c.dim() == 3);
  CHECK_FALSE(c.geometry.flat);
  CHECK_FALSE(c.geometry.compact);
  CHECK(c.resolved == run::json{{"name", "box"}, {"dim", 3}, {"lower", {0, nullptr, -1}}, {"upper", 2}});
  const run::ManifoldChoice again = registry.parse_manifold(c.resolved, "/manifold");
  CHECK(again.resolved == c.resolved);
  random::Stream rng(1, 0);
  for (int i = 0; i < 200; ++i) {
    const VectorXd x = again.manifold.random_point(rng);
    REQUIRE((x[0] >= 0 && x[0] <= 2 && x[1] <= 2 && x[2] >= -1 && x[2] <= 2));
  }
  CHECK(registry.parse_manifold({{"name", "box"}, {"dim", 2}, {"lower", 0}, {"upper", 1}}, "/manifold").geometry.compact);

  const auto error = [&](const run::json& j) -> std::string {
    try {
      registry.parse_manifold(j, "/manifold");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error({{"name", "box"}, {"lower", 0}}) == "/manifold/dim: required field is missing (no list of bounds gives the dimension)");
  CHECK(error({{"name", "box"}, {"dim", 2}, {"lower", {0, 1, 2}}}) == "/manifold/lower: expected 2 bounds (the box's dim), got 3");
  CHECK(error({{"name", "box"}, {"lower", {0, 1}}, {"upper", {1, 1}}}) ==
        "/manifold: coordinate 1 needs lower < upper, got lower 1 and upper 1");
  CHECK(error({{"name", "box"}, {"dim", 2}, {"upper", "one"}}) == "/manifold/upper: expected a number or a list of numbers and nulls, got \"one\"");
  CHECK(error({{"name", "box"}, {"dim", 2}, {"lower", {0, "a"}}}) == "/manifold/lower/1: expected a finite number, got \"a\"");
  CHECK(error({{"name", "box"}, {"dim", std::uint64_t{1} << 40}}) == "/manifold/dim: expected between 1 and 2^26 coordinates, got 1099511627776");
}

}  // namespace test_manifolds_box
