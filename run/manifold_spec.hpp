#pragma once
// The `manifold` section of a run config (DESIGN.md §5.1): euclidean, sphere, simplex, stiefel, or a
// product of them. Euclidean runs on its own type (the flat fast path); every other manifold runs as a
// DynamicProduct (one std::visit per factor per operation), which keeps the CLI's template
// instantiations few.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/manifolds/dynamic_product.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/run/fields.hpp>

namespace sgmcmc::run {

struct ManifoldSpec {
  std::variant<Euclidean, DynamicProduct> manifold;
  std::string kind;              ///< euclidean, sphere, simplex, stiefel or product
  Eigen::Index rows = 0, cols = 0;  ///< Stiefel's n and p (for matrix-valued target fields)
  json resolved;
  Eigen::Index ambient_size() const { return std::visit([](const auto& m) { return m.ambient_size(); }, manifold); }
};

inline DynamicProduct::Factor parse_factor(const json& j, const std::string& path, json& out, Eigen::Index* rows = nullptr,
                                           Eigen::Index* cols = nullptr) {
  Fields f(j, path);
  const std::string name = f.string("name");
  out = {{"name", name}};
  auto size = [&](const char* key, std::uint64_t minimum) {
    const auto v = static_cast<Eigen::Index>(as_count(f.get(key), f.at(key), minimum));
    out[key] = v;
    return v;
  };
  DynamicProduct::Factor factor;
  if (name == "euclidean") {
    factor = Euclidean(size("dim", 1));
  } else if (name == "sphere") {
    factor = Sphere(size("n", 2));
  } else if (name == "simplex") {
    const auto n = size("n", 2);
    const auto max_refl = f.count("max_reflections", 10000, 1);
    out["max_reflections"] = max_refl;
    factor = Simplex(n, max_refl);
  } else if (name == "stiefel") {
    const auto n = size("n", 1), p = size("p", 1);
    if (p > n) fail(f.at("p"), fmt::format("expected p <= n = {}, got {}", n, p));
    factor = Stiefel(n, p);
    if (rows) *rows = n;
    if (cols) *cols = p;
  } else {
    fail(f.at("name"), fmt::format("unknown manifold '{}' (known: euclidean, sphere, simplex, stiefel, product)", name));
  }
  f.finish();
  return factor;
}

/// `fallback_dim` is the target's own dimension, used when the manifold (or its dim) is not given.
inline ManifoldSpec parse_manifold(const json* j, std::optional<Eigen::Index> fallback_dim,
                                   const std::string& path = "/manifold") {
  ManifoldSpec s;
  if (!j) {
    if (!fallback_dim) fail(path, "required field is missing (the target does not fix a dimension)");
    s.manifold = Euclidean(*fallback_dim);
    s.kind = "euclidean";
    s.resolved = {{"name", "euclidean"}, {"dim", *fallback_dim}};
    return s;
  }
  Fields f(*j, path);
  const std::string name = f.string("name");
  s.kind = name;
  if (name == "euclidean") {
    const json* d = f.find("dim");
    if (!d && !fallback_dim) fail(f.at("dim"), "required field is missing (the target does not fix a dimension)");
    const auto dim = d ? static_cast<Eigen::Index>(as_count(*d, f.at("dim"), 1)) : *fallback_dim;
    s.manifold = Euclidean(dim);
    s.resolved = {{"name", name}, {"dim", dim}};
    f.finish();
  } else if (name == "product") {
    const json& factors = f.get("factors");
    if (!factors.is_array() || factors.empty()) fail(f.at("factors"), "expected a non-empty list of manifolds");
    std::vector<DynamicProduct::Factor> list;
    json out = json::array();
    for (std::size_t i = 0; i < factors.size(); ++i) {
      json o;
      list.push_back(parse_factor(factors[i], fmt::format("{}/{}", f.at("factors"), i), o));
      out.push_back(o);
    }
    f.finish();
    s.manifold = DynamicProduct(std::move(list));
    s.resolved = {{"name", name}, {"factors", out}};
  } else {
    json o;
    s.manifold = DynamicProduct({parse_factor(*j, path, o, &s.rows, &s.cols)});
    s.resolved = o;
  }
  return s;
}

}  // namespace sgmcmc::run
