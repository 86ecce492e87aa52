#pragma once
// The shipped manifolds' registry entries: euclidean (its dimension may come from the target),
// sphere, simplex, stiefel, product (its factors parsed through the registry, so a registered
// manifold can be a factor), and box (its entry in run/manifolds/box.hpp).
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/manifolds/dynamic_product.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/simplex.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/manifolds/stiefel.hpp>
#include <sgmcmc/run/manifolds/box.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

namespace detail {
inline Eigen::Index read_size(Fields& f, json& out, const char* key, std::uint64_t minimum) {
  const auto v = as_count(f.get(key), f.at(key), minimum);
  if (v > (std::uint64_t{1} << 40)) fail(f.at(key), fmt::format("expected at most 2^40, got {}", v));
  out[key] = v;
  return static_cast<Eigen::Index>(v);
}
}  // namespace detail

/// {"name": "euclidean", "dim": n}; without dim the target fixes it (a data set's columns, a mean).
inline ManifoldEntry euclidean_manifold() {
  return {{"euclidean"}, "R^n (dim)", [](Fields& f, const Registry&) {
            ManifoldChoice c;
            c.kind = "euclidean";
            c.geometry.flat = true;
            c.resolved = {{"name", "euclidean"}};
            if (f.find("dim")) c.manifold = Euclidean(detail::read_size(f, c.resolved, "dim", 1)), c.geometry.ambient = c.manifold.ambient_size();
            else c.deferred = true;
            return c;
          }};
}
/// {"name": "sphere", "n": n}: S^{n-1} in R^n.
inline ManifoldEntry sphere_manifold() {
  return {{"sphere"}, "the unit sphere S^{n-1} in R^n (n)", [](Fields& f, const Registry&) {
            ManifoldChoice c;
            c.kind = "sphere";
            c.resolved = {{"name", "sphere"}};
            c.manifold = Sphere(detail::read_size(f, c.resolved, "n", 2));
            c.geometry.compact = c.geometry.unit_sphere = true;
            c.geometry.ambient = c.manifold.ambient_size();
            return c;
          }};
}
/// {"name": "simplex", "n": n, "max_reflections": k}: the probability simplex in R^n.
inline ManifoldEntry simplex_manifold() {
  return {{"simplex"}, "the probability simplex in R^n (n, max_reflections)", [](Fields& f, const Registry&) {
            ManifoldChoice c;
            c.kind = "simplex";
            c.resolved = {{"name", "simplex"}};
            const auto n = detail::read_size(f, c.resolved, "n", 2);
            const auto max_refl = f.count("max_reflections", 10000, 1);
            c.resolved["max_reflections"] = max_refl;
            c.manifold = Simplex(n, max_refl);
            c.geometry.compact = c.geometry.simplex = true;
            c.geometry.ambient = n;
            return c;
          }};
}
/// {"name": "stiefel", "n": n, "p": p}: n×p matrices with orthonormal columns, flattened column-major.
inline ManifoldEntry stiefel_manifold() {
  return {{"stiefel"}, "the Stiefel manifold of n×p orthonormal frames (n, p)", [](Fields& f, const Registry&) {
            ManifoldChoice c;
            c.kind = "stiefel";
            c.resolved = {{"name", "stiefel"}};
            const auto n = detail::read_size(f, c.resolved, "n", 2), p = detail::read_size(f, c.resolved, "p", 1);
            if (p > n) fail(f.at("p"), fmt::format("expected p <= n = {}, got {}", n, p));
            c.manifold = Stiefel(n, p);
            c.rows = n, c.cols = p;
            c.geometry.compact = true;
            c.geometry.ambient = n * p;
            return c;
          }};
}
/// {"name": "product", "factors": [manifold, ...]}: points are the factors' points concatenated. Each
/// factor is a parameter block of its own shape (a Stiefel factor a matrix), named by the factor's
/// optional "parameter" field (its "name" is the manifold's), else x1, x2, ... (docs/config.md).
inline ManifoldEntry product_manifold() {
  return {{"product"}, "a product of manifolds (factors; each may name its block: parameter)", [](Fields& f, const Registry& registry) {
            const json& factors = f.get("factors");
            if (!factors.is_array() || factors.empty()) fail(f.at("factors"), "expected a non-empty list of manifolds");
            ManifoldChoice c;
            c.kind = "product";
            c.resolved = {{"name", "product"}, {"factors", json::array()}};
            std::vector<AnyManifold> list;
            std::vector<Geometry> parts;
            output::Parameters blocks;
            for (std::size_t i = 0; i < factors.size(); ++i) {
              const std::string path = fmt::format("{}/{}", f.at("factors"), i);
              json section = factors[i];
              std::string parameter = fmt::format("x{}", i + 1);
              if (section.is_object() && section.contains("parameter")) {
                if (!section["parameter"].is_string()) fail(path + "/parameter", fmt::format("expected a string, got {}", describe(section["parameter"])));
                parameter = section["parameter"].get<std::string>();
                if (const auto why = output::invalid_name(parameter)) fail(path + "/parameter", fmt::format("'{}' is not a parameter name: {}", printable(parameter), *why));
                section.erase("parameter");  // the factor's own section, as its entry reads it
              }
              const ManifoldChoice factor = registry.parse_manifold(section, path);
              if (factor.deferred) fail(path + "/dim", "required field is missing");
              list.push_back(factor.manifold);
              parts.push_back(factor.geometry);
              json resolved = factor.resolved;
              if (factors[i].contains("parameter")) resolved["parameter"] = parameter;
              c.resolved["factors"].push_back(std::move(resolved));
              blocks.add(parameter, factor.rows > 0 && factor.cols > 0 ? std::vector<Eigen::Index>{factor.rows, factor.cols}
                                                                       : std::vector<Eigen::Index>{factor.manifold.ambient_size()});
            }
            c.manifold = DynamicProduct(std::move(list));
            c.geometry = Geometry::product_of(std::move(parts));
            output::check_parameters(blocks, c.manifold.ambient_size(), f.at("factors"));  // distinct names
            c.parameters = std::move(blocks);
            return c;
          }};
}

inline void add_builtin_manifolds(Registry& r) {
  r.add(euclidean_manifold());
  r.add(sphere_manifold());
  r.add(simplex_manifold());
  r.add(stiefel_manifold());
  r.add(product_manifold());
  r.add(box_manifold());
}

}  // namespace sgmcmc::run
