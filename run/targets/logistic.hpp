#pragma once
// The `logistic` target: Bayesian logistic regression (models/logistic.hpp), θ ~ N(0, prior_sd²I), on
// a CSV of examples (the features, then a 0/1 label in the last column; a header row allowed),
// by minibatches. On euclidean space of the CSV's feature columns: the manifold's `dim` when it gives
// none. The file is read once, here; its errors name /target/data and the file's row. The gradient:
// any of the estimators (run/targets/estimator.hpp).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/data/text.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

inline TargetEntry logistic_target() {
  return {{"logistic"},
          "Bayesian logistic regression on a CSV (features, then a 0/1 label): data, prior_sd 1, batch_size min(100, N), estimator minibatch",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "logistic";
            // The file first: a missing or malformed file is named before the other fields are checked.
            const std::string path = f.string("data");
            data::Dataset<double> d;
            try {
              d = data::load_labelled_csv(path);
            } catch (const Error& e) {
              fail(f.at("data"), e.what());
            }
            targets::require_manifold(f, manifold, name, "euclidean", "euclidean space");
            if (const auto dim = manifold.dim(); dim && d.dim() != *dim)
              fail(f.at("data"), fmt::format("{} has {} feature columns but the manifold has {} coordinates", path, d.dim(), *dim));
            const Eigen::Index own = d.dim();
            const double prior_sd = f.number("prior_sd", 1.0, Range::positive);
            const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.size()), 1);
            if (batch > d.size())
              fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.size(), path, batch));
            const bool replace = f.boolean("with_replacement", false);
            // The CSV loader fills a matrix of its own, on 4 KiB pages; a minibatch step gathers ~100 random
            // columns, and on a large set nearly every one also misses the TLB. cast() copies the examples
            // (same values) into storage advised onto transparent huge pages (data::detail::advise_huge_pages),
            // as the library benchmark's synthetic_logistic data are, so the CLI reads its data the way the
            // benchmark does (docs/benchmarks.md, "CLI against the library": the measured effect).
            d = d.cast<double>();
            auto model = data::minibatch(models::LogisticRegression{std::make_shared<const data::Dataset<double>>(std::move(d)), prior_sd},
                                         batch, targets::sampling(replace));
            json out = {{"name", name}, {"data", path}, {"prior_sd", prior_sd}, {"batch_size", batch}, {"with_replacement", replace}};
            return targets::make_estimated_choice(f, name, std::move(model), std::move(out), {own});
          }};
}

}  // namespace sgmcmc::run
