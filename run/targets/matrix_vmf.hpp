#pragma once
// The `matrix_vmf` target: the matrix von Mises–Fisher law etr(FᵀX) on Stiefel V_{n,p}
// (models/linear.hpp: U = −tr(FᵀX), a linear potential in X flattened column-major;
// docs/math.md#stiefel-targets). F is n×p, the manifold section's rows and columns.
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry matrix_vmf_target() {
  return {{"matrix_vmf"}, "U = −tr(FᵀX) on Stiefel: F an n×p matrix (list of rows)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "matrix_vmf";
            targets::manifold_dim(manifold);  // no dimension of its own
            targets::require_manifold(f, name, manifold.rows > 0 && manifold.cols > 0, "a matrix manifold", "stiefel");
            const Eigen::MatrixXd F = as_matrix(f.get("F"), f.at("F"));
            if (F.rows() != manifold.rows || F.cols() != manifold.cols)
              fail(f.at("F"), fmt::format("expected an {}×{} matrix, got {}×{}", manifold.rows, manifold.cols, F.rows(), F.cols()));
            return targets::make_choice(f, name, models::matrix_von_mises_fisher(F), json{{"name", name}, {"F", f.get("F")}});
          }};
}

}  // namespace sgmcmc::run
