#pragma once
// The `manifold` section of a run config (DESIGN.md §5.1).
#include <optional>
#include <string>
#include <variant>

#include <fmt/format.h>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/run/fields.hpp>

namespace sgmcmc::run {

struct ManifoldSpec {
  std::variant<Euclidean> manifold;
  json resolved;
  Eigen::Index ambient_size() const { return std::visit([](const auto& m) { return m.ambient_size(); }, manifold); }
};

/// `fallback_dim` is the target's own dimension, used when the manifold (or its dim) is not given.
inline ManifoldSpec parse_manifold(const json* j, std::optional<Eigen::Index> fallback_dim,
                                   const std::string& path = "/manifold") {
  ManifoldSpec s;
  if (!j) {
    if (!fallback_dim) fail(path, "required field is missing (the target does not fix a dimension)");
    s.manifold = Euclidean(*fallback_dim);
    s.resolved = {{"name", "euclidean"}, {"dim", *fallback_dim}};
    return s;
  }
  Fields f(*j, path);
  const std::string name = f.string("name");
  if (name == "euclidean") {
    const json* d = f.find("dim");
    if (!d && !fallback_dim) fail(f.at("dim"), "required field is missing (the target does not fix a dimension)");
    const auto dim = d ? static_cast<Eigen::Index>(as_count(*d, f.at("dim"), 1)) : *fallback_dim;
    s.manifold = Euclidean(dim);
    s.resolved = {{"name", name}, {"dim", dim}};
  } else {
    fail(f.at("name"), fmt::format("unknown manifold '{}' (known: euclidean)", name));
  }
  f.finish();
  return s;
}

}  // namespace sgmcmc::run
