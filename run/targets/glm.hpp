#pragma once
// The `glm` target: a generalised linear model stated in brms's vocabulary (issue #35; docs/glm.md,
// docs/config.md): the section (data, response, predictors, intercept, family, link, trials, prior) read
// by run/targets/glm_section.hpp into models/glm/model.hpp's model, sampled by minibatches with any of
// the estimators (run/targets/estimator.hpp), as the logistic and poisson targets are. On euclidean
// space of the model's own dimension (intercept, slopes, auxiliary parameters).
//
// Sampled on θ = (centred intercept, slopes, log aux), reported as brms reports it — b_Intercept on the
// original design, b_<predictor>, sigma, shape, nu — in every output (the model is a
// ReparametrisedModel: run/reported_scale.hpp); an `init` point is given on the reported scale too.
//
// Sharded (`distributed.shards` > 1): every rank reads the whole file — the column means that centre
// the design, the errors and the collinearity warnings are the whole data's — and keeps its own rows
// (models::glm::rows_of), the chain group adding up the parts.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/shard.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>
#include <sgmcmc/run/targets/glm_section.hpp>

namespace sgmcmc::run {

namespace targets {

/// The reported draw's names, one scalar block each: b_Intercept, b_<predictor>…, then the family's
/// auxiliary parameters (sigma, shape, nu), as brms names them.
inline output::Parameters glm_parameters(const models::glm::Glm& model) {
  output::Parameters p;
  for (std::string& name : model.names()) p.add(std::move(name), {});
  return p;
}

inline TargetChoice glm_choice(Fields& f, const ManifoldChoice& manifold, const distributed::Shard& shard) {
  const std::string name = "glm";
  GlmSection s = read_glm_section(f);  // the file first: its errors before the other fields'
  DataFile file = read_data_file(f, "data", s.path);
  require_manifold(f, name, manifold.geometry.flat, "euclidean space", "euclidean");
  const std::string what = data::shown(s.path);
  const auto n = static_cast<std::uint64_t>(s.data.y.size());
  const double coordinates = static_cast<double>(s.data.x.rows()) + (s.intercept ? 1 : 0) + static_cast<double>(models::glm::aux_size(s.family));
  check_size(f, "predictors", manifold, coordinates, what);
  models::glm::Glm model;
  try {
    model = models::glm::make_glm(std::move(s.data), s.family, std::move(s.priors), s.intercept);
  } catch (const Error& e) {
    fail(f.at("data"), fmt::format("{}: {}", what, e.what()));
  }
  const Eigen::Index own = model.dim();
  if (const auto dim = manifold.dim(); dim && own != *dim)
    fail(f.at("predictors"), fmt::format("the model has {} parameters ({}) but the manifold has {} coordinates", own,
                                         fmt::join(model.names(), ", "), *dim));
  if (n < static_cast<std::uint64_t>(shard.count))
    fail(f.at("data"), fmt::format("{} has {} examples and cannot be split over {} shards", what, n, shard.count));
  const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, n), 1);
  if (batch > n) fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", n, what, batch));
  const bool replace = f.boolean("with_replacement", false);
  json out = s.resolved;
  out["batch_size"] = batch;
  out["with_replacement"] = replace;
  std::optional<output::Parameters> names;
  if (!f.find("names")) names = glm_parameters(model);
  const DataSpace space{own, true, 0, shard.sum, std::move(names)};
  TargetChoice c = [&] {
    if (!shard.sharded())
      return make_estimated_choice(f, name, models::minibatch(std::move(model), batch, sampling(replace)), std::move(out), space);
    // Part k of P holds rows [kN/P, (k+1)N/P): every rank computes the same split from N alone.
    const auto k = static_cast<std::uint64_t>(shard.index), parts = static_cast<std::uint64_t>(shard.count);
    const std::uint64_t first = k * n / parts, last = (k + 1) * n / parts;
    models::Shard<models::glm::Glm> part{models::glm::rows_of(model, first, last - first), first, n, shard.index == 0};
    return make_estimated_choice(f, name, models::minibatch(std::move(part), batch, sampling(replace)), std::move(out), space);
  }();
  c.warnings = std::move(s.warnings);
  return with_file(std::move(c), std::move(file));
}

}  // namespace targets

inline TargetEntry glm_target() {
  return {{"glm"},
          "a generalised linear model in brms's vocabulary on a headed CSV: data, response, predictors (every other column), "
          "family gaussian (bernoulli, binomial, poisson, negative_binomial, student, gamma), link (canonical), intercept true, "
          "trials (binomial), prior by class (flat), batch_size min(100, N), estimator minibatch",
          [](Fields& f, const ManifoldChoice& manifold) { return targets::glm_choice(f, manifold, {}); },
          targets::glm_choice};
}

}  // namespace sgmcmc::run
