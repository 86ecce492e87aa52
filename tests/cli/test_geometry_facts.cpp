// Registry entries ask a manifold typed facts (run/registry.hpp, Geometry), never its name: a user's
// manifold registered under a name of its own gets the answers its facts give. Catches: an entry that
// decides by `kind == "euclidean"` (a user's flat manifold refused, or a non-compact one given a uniform
// law), a product whose facts are not its factors'.
#include <doctest/doctest.h>

#include <string>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>

namespace test_geometry_facts {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::json;

namespace {

// "my_flat": R^n under another name, its facts set as a user's entry sets them.
run::ManifoldEntry my_flat_manifold() {
  return {{"my_flat"}, "R^n under a user's name (dim)", [](run::Fields& f, const run::Registry&) {
            run::ManifoldChoice c;
            c.kind = "my_flat";
            const auto n = static_cast<Eigen::Index>(f.count("dim", 1, 1));
            c.resolved = {{"name", "my_flat"}, {"dim", n}};
            c.manifold = Euclidean(n);
            c.geometry.flat = true;
            c.geometry.ambient = n;
            return c;
          }};
}

// "my_circle": S¹ under another name.
run::ManifoldEntry my_circle_manifold() {
  return {{"my_circle"}, "S^1 under a user's name", [](run::Fields&, const run::Registry&) {
            run::ManifoldChoice c;
            c.kind = "my_circle";
            c.resolved = {{"name", "my_circle"}};
            c.manifold = Sphere(2);
            c.geometry.compact = c.geometry.unit_sphere = true;
            c.geometry.ambient = 2;
            return c;
          }};
}

run::Registry registry() {
  run::Registry r = run::builtin_registry();
  r.add(my_flat_manifold()).add(my_circle_manifold());
  return r;
}

json config(json manifold, json target, json sampler) {
  return {{"manifold", std::move(manifold)}, {"target", std::move(target)}, {"sampler", std::move(sampler)}, {"steps", 10}};
}

std::string error_of(const json& c) {
  try {
    run::parse_config(c, registry(), {});
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("a user's flat manifold takes what euclidean takes, under its own name") {
  const json flat = {{"name", "my_flat"}, {"dim", 2}};
  const json gauss = {{"name", "gaussian"}, {"cov", 1}};
  CHECK(error_of(config(flat, gauss, {{"name", "psgld"}, {"step_size", 0.01}})) == "");
  CHECK(error_of(config(flat, gauss, {{"name", "sgld"}, {"step_size", 0.01}, {"preconditioner", {{"scale", {1, 2}}}}})) == "");
  CHECK(error_of(config(flat, gauss, {{"name", "sgrld"}, {"step_size", 0.01}, {"metric", {{"name", "diagonal"}, {"inverse", {1, 1}}}}})) == "");
  // Not compact: no uniform law, and the message names the manifold.
  CHECK(error_of(config(flat, {{"name", "uniform"}}, {{"name", "sgld"}, {"step_size", 0.01}})).find("no uniform law on my_flat") !=
        std::string::npos);
}

TEST_CASE("a user's compact manifold takes the uniform law and is refused where flat coordinates are needed") {
  const json circle = {{"name", "my_circle"}};
  CHECK(error_of(config(circle, {{"name", "uniform"}}, {{"name", "sgld"}, {"step_size", 0.01}})) == "");
  CHECK(error_of(config(circle, {{"name", "vmf"}, {"mu", {1, 0}}, {"kappa", 2}}, {{"name", "sgld"}, {"step_size", 0.01}})) == "");
  CHECK(error_of(config(circle, {{"name", "uniform"}}, {{"name", "psgld"}, {"step_size", 0.01}})).find("runs on euclidean") !=
        std::string::npos);
}

TEST_CASE("a product's facts are its factors'") {
  const json two_flats = {{"name", "product"}, {"factors", {{{"name", "euclidean"}, {"dim", 1}}, {{"name", "my_flat"}, {"dim", 1}}}}};
  CHECK(error_of(config(two_flats, {{"name", "gaussian"}, {"cov", 1}}, {{"name", "psgld"}, {"step_size", 0.01}})) == "");
  // S¹ × S¹ from user circles is the torus the vMF-mixture posterior lives on; S¹ × R is not.
  const json torus = {{"name", "product"}, {"factors", {{{"name", "my_circle"}}, {{"name", "sphere"}, {"n", 2}}}}};
  CHECK(error_of(config(torus, {{"name", "vmf_mixture_posterior"}}, {{"name", "sgld"}, {"step_size", 0.01}})) == "");
  const json cylinder = {{"name", "product"}, {"factors", {{{"name", "my_circle"}}, {{"name", "euclidean"}, {"dim", 1}}}}};
  CHECK(error_of(config(cylinder, {{"name", "vmf_mixture_posterior"}}, {{"name", "sgld"}, {"step_size", 0.01}})) != "");
  CHECK(error_of(config(cylinder, {{"name", "uniform"}}, {{"name", "sgld"}, {"step_size", 0.01}})).find("no uniform law") !=
        std::string::npos);
}

}  // namespace test_geometry_facts
