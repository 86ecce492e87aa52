#pragma once
// The `poisson` target: Bayesian Poisson regression with the canonical log link (models/poisson.hpp),
// θ ~ N(0, prior_sd²I), y_i ~ Poisson(exp(θᵀx_i)), by minibatches, on a CSV of examples (the
// features, then a count, a non-negative integer, in the last column; a header row allowed, whose
// columns name the coefficients: run/targets/coefficient_names.hpp). On
// euclidean space of the data's feature columns: the manifold's `dim` when it gives none. The file is
// read once, here; its errors name /target/data and the file's row. The gradient: any of the
// estimators (run/targets/estimator.hpp). Not sharded: the whole file is read by every chain group.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/poisson.hpp>
#include <sgmcmc/run/targets/coefficient_names.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

namespace targets {

/// A count the data set can hold: finite, ≥ 0, a whole number, and at most INT_MAX (labels are int).
inline bool is_count_label(double l) { return l >= 0 && l <= 2147483647.0 && l == std::floor(l); }

inline TargetChoice poisson_choice(Fields& f, const ManifoldChoice& manifold) {
  const std::string name = "poisson";
  // The file first: a missing or malformed file is named before the other fields are checked.
  const std::string path = f.string("data");
  data::Dataset<double> d;
  try {
    d = data::detail::load_features_and_label(path, is_count_label, "a count (a non-negative integer)");
  } catch (const Error& e) {
    fail(f.at("data"), e.what());
  }
  DataFile file = read_data_file(f, "data", path);
  require_manifold(f, name, manifold.geometry.flat, "euclidean space", "euclidean");
  if (const auto dim = manifold.dim(); dim && d.dim() != *dim)
    fail(f.at("data"), fmt::format("{} has {} feature columns but the manifold has {} coordinates", printable(path, 200), d.dim(), *dim));
  const Eigen::Index own = d.dim();
  check_size(f, "data", manifold, static_cast<double>(own), path);
  const double prior_sd = f.number("prior_sd", 1.0, Range::positive);
  const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.size()), 1);
  if (batch > d.size()) fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.size(), printable(path, 200), batch));
  const bool replace = f.boolean("with_replacement", false);
  models::PoissonRegression model{std::make_shared<const data::Dataset<double>>(std::move(d)), prior_sd};
  json out = {{"name", name}, {"data", path}, {"prior_sd", prior_sd}, {"batch_size", batch}, {"with_replacement", replace}};
  // A headed CSV names the coefficients b_<column> (unless `names` does).
  std::optional<output::Parameters> names;
  if (!f.find("names")) names = coefficient_names(f, "data", path, own);
  return with_file(make_estimated_choice(f, name, models::minibatch(std::move(model), batch, sampling(replace)), std::move(out),
                                         {own, true, 0, {}, std::move(names)}),
                   std::move(file));
}

}  // namespace targets

inline TargetEntry poisson_target() {
  return {{"poisson"},
          "Bayesian Poisson regression (log link) on a CSV (features, then a count): data, prior_sd 1, batch_size min(100, N), "
          "estimator minibatch",
          targets::poisson_choice};
}

}  // namespace sgmcmc::run
