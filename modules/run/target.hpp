#pragma once
// The `target` section of a run config (DESIGN.md §5.1): one potential chosen at run time. The
// alternatives live in a std::variant, so a gradient call is a switch, not a virtual call.
#include <optional>
#include <string>
#include <variant>

#include <fmt/format.h>

#include <sgmcmc/models/banana.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/run/fields.hpp>

namespace sgmcmc::run {

struct Target {
  using Model = std::variant<models::Gaussian, models::DoubleWell, models::Banana>;
  Model model;
  double grad_noise = 0.0;  ///< σ of additive N(0, σ²I) gradient noise
  json resolved;            ///< the section with defaults filled in

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    std::visit([&](const auto& m) { m.exact_gradient(x, g); }, model);
    if (grad_noise > 0)
      for (Eigen::Index i = 0; i < g.size(); ++i) g[i] += grad_noise * rng.normal();
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    std::visit([&](const auto& m) { m.exact_gradient(x, g); }, model);
  }
  double value(const Eigen::VectorXd& x) const {
    return std::visit([&](const auto& m) { return m.value(x); }, model);
  }
};

/// The dimension a target fixes by itself (double_well: 1, banana: 2, gaussian: its mean or cov), if any.
inline std::optional<Eigen::Index> natural_dim(const json& j) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return std::nullopt;
  const std::string name = j["name"];
  if (name == "double_well") return 1;
  if (name == "banana") return 2;
  if (name == "gaussian") {
    if (j.contains("mean") && j["mean"].is_array()) return static_cast<Eigen::Index>(j["mean"].size());
    if (j.contains("cov") && j["cov"].is_array()) return static_cast<Eigen::Index>(j["cov"].size());
  }
  return std::nullopt;
}

/// Builds the target for points of `dim` coordinates.
inline Target parse_target(const json& j, Eigen::Index dim, const std::string& path = "/target") {
  Fields f(j, path);
  Target t;
  const std::string name = f.string("name");
  json out = {{"name", name}};
  auto fixed_dim = [&](Eigen::Index d) {
    if (dim != d) fail(path, fmt::format("target '{}' is {}-dimensional but the manifold has {} coordinates", name, d, dim));
  };
  if (name == "gaussian") {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(dim);
    if (const json* m = f.find("mean")) mean = as_vector(*m, f.at("mean"), dim);
    out["mean"] = vector_json(mean);
    const json* c = f.find("cov");
    if (!c) {
      t.model = models::Gaussian::isotropic(mean, 1.0);
      out["cov"] = 1.0;
    } else if (c->is_number()) {
      t.model = models::Gaussian::isotropic(mean, as_number(*c, f.at("cov"), Range::positive));
      out["cov"] = *c;
    } else if (c->is_array() && !c->empty() && (*c)[0].is_number()) {
      const Eigen::VectorXd diag = as_vector(*c, f.at("cov"), dim);
      if (!(diag.array() > 0).all()) fail(f.at("cov"), "expected positive variances on the diagonal");
      t.model = models::Gaussian::dense(mean, diag.asDiagonal().toDenseMatrix());
      out["cov"] = *c;
    } else {
      const Eigen::MatrixXd cov = as_matrix(*c, f.at("cov"));
      try {
        t.model = models::Gaussian::dense(mean, cov);
      } catch (const Error& e) {
        fail(f.at("cov"), std::string(e.what()).substr(std::string("cov: ").size()));
      }
      out["cov"] = *c;
    }
  } else if (name == "double_well") {
    fixed_dim(1);
    t.model = models::DoubleWell{};
  } else if (name == "banana") {
    fixed_dim(2);
    t.model = models::Banana{};
  } else {
    fail(f.at("name"), fmt::format("unknown target '{}' (known: gaussian, double_well, banana)", name));
  }
  t.grad_noise = f.number("grad_noise", 0.0, Range::non_negative);
  out["grad_noise"] = t.grad_noise;
  f.finish();
  t.resolved = out;
  return t;
}

}  // namespace sgmcmc::run
