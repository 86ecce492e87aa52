#pragma once
// The `metric` of a Riemannian sampler in a run config (docs/config.md, `metric`): chosen at run time, held
// in a std::variant so sgrld/sgrhmc are instantiated once for all metrics.
#include <string>
#include <variant>

#include <fmt/format.h>

#include <sgmcmc/modules/recipe/metric.hpp>
#include <sgmcmc/run/fields.hpp>

namespace sgmcmc::run {

struct AnyMetric {
  std::variant<recipe::metric::LevelSet, recipe::metric::FisherDiagonal, recipe::metric::ConstantDiagonal,
               recipe::metric::ConstantDense>
      metric;
  void validate() const { std::visit([](const auto& m) { m.validate(); }, metric); }
  template <class P>
  void evaluate(const P& potential, const Eigen::VectorXd& theta, recipe::metric::Value& out) const {
    std::visit([&](const auto& m) { m.evaluate(potential, theta, out); }, metric);
  }
};

/// {"name": "level_set", "scale": 1.5, "offset": 0.5} (G⁻¹ = scale·sqrt|U + offset|), {"name": "fisher_diag"}
/// (G⁻¹ = diag(θ)), {"name": "diagonal", "inverse": [...]}, {"name": "dense", "inverse": [[...], ...]}.
inline AnyMetric parse_metric(const json& j, const std::string& path, Eigen::Index dim, json& out) {
  Fields f(j, path);
  const std::string name = f.string("name");
  out = {{"name", name}};
  AnyMetric m;
  if (name == "level_set") {
    recipe::metric::LevelSet l;
    l.scale = f.number("scale", 1.5, Range::positive);
    l.offset = f.number("offset", 0.5);
    l.min_level = f.number("min_level", 1e-3, Range::positive);
    out.update({{"scale", l.scale}, {"offset", l.offset}, {"min_level", l.min_level}});
    m.metric = l;
  } else if (name == "fisher_diag") {
    m.metric = recipe::metric::FisherDiagonal{};
  } else if (name == "diagonal") {
    const Eigen::VectorXd inv = as_vector(f.get("inverse"), f.at("inverse"), dim);
    if (!(inv.array() > 0).all()) fail(f.at("inverse"), "expected positive entries");
    m.metric = recipe::metric::ConstantDiagonal{inv};
    out["inverse"] = vector_json(inv);
  } else if (name == "dense") {
    const Eigen::MatrixXd inv = as_matrix(f.get("inverse"), f.at("inverse"));
    if (inv.rows() != dim || inv.cols() != dim) fail(f.at("inverse"), fmt::format("expected a {0}×{0} matrix", dim));
    m.metric = recipe::metric::ConstantDense{inv};
    out["inverse"] = f.get("inverse");
  } else {
    fail(f.at("name"), fmt::format("unknown metric '{}' (known: level_set, fisher_diag, diagonal, dense)", name));
  }
  f.finish();
  try {
    m.validate();
  } catch (const Error& e) {
    fail(path, e.what());
  }
  return m;
}

}  // namespace sgmcmc::run
