#pragma once
// The `gaussian` target: N(mean, cov) (models/gaussian.hpp), cov a matrix (list of rows), a list (its
// diagonal) or a number (σ²I). Its dimension is the length of `mean`, else of `cov`, when the manifold
// section gives none.
#include <optional>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry gaussian_target() {
  return {{"gaussian"}, "N(mean, cov): cov a matrix, a diagonal or a number (default mean 0, cov 1)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "gaussian";
            const json* m = f.find("mean");
            const json* c = f.find("cov");
            std::optional<Eigen::Index> own;  // the target's own dimension, if its fields fix one
            if (m && m->is_array()) own = static_cast<Eigen::Index>(m->size());
            else if (c && c->is_array()) own = static_cast<Eigen::Index>(c->size());
            // An empty list would make a target of no coordinates (found by fuzz_config).
            if (own && *own == 0) fail(f.at(m && m->is_array() ? "mean" : "cov"), "expected at least one coordinate, got an empty list");
            const Eigen::Index dim = own && !manifold.dim() ? *own : targets::manifold_dim(manifold);
            json out = {{"name", name}};
            Eigen::VectorXd mean = Eigen::VectorXd::Zero(dim);
            if (m) mean = as_vector(*m, f.at("mean"), dim);
            out["mean"] = vector_json(mean);
            models::Gaussian model;
            if (!c) {
              model = models::Gaussian::isotropic(mean, 1.0);
              out["cov"] = 1.0;
            } else if (c->is_number()) {
              model = models::Gaussian::isotropic(mean, as_number(*c, f.at("cov"), Range::positive));
              out["cov"] = *c;
            } else if (c->is_array() && !c->empty() && (*c)[0].is_number()) {
              const Eigen::VectorXd diag = as_vector(*c, f.at("cov"), dim);
              if (!(diag.array() > 0).all()) fail(f.at("cov"), "expected positive variances on the diagonal");
              model = models::Gaussian::dense(mean, diag.asDiagonal().toDenseMatrix());
              out["cov"] = *c;
            } else {
              const Eigen::MatrixXd cov = as_matrix(*c, f.at("cov"));
              try {
                model = models::Gaussian::dense(mean, cov);
              } catch (const Error& e) {  // the model's "cov: ..." under the field's JSON path
                fail(f.at("cov"), std::string(e.what()).substr(std::string("cov: ").size()));
              }
              out["cov"] = *c;
            }
            return targets::make_choice(f, name, std::move(model), std::move(out), own);
          }};
}

}  // namespace sgmcmc::run
