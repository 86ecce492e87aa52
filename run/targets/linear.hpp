#pragma once
// The `linear` target: U(x) = −⟨b, x⟩ (models/linear.hpp): vMF on a sphere, exp(bᵀx) on a simplex,
// matrix vMF on Stiefel. `b` is a vector, or a matrix as a list of rows, flattened column-major as a
// Stiefel point is. The manifold gives the dimension.
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry linear_target() {
  return {{"linear"}, "U = −⟨b, x⟩: b a vector or a matrix (list of rows, flattened column-major)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "linear";
            const Eigen::Index dim = targets::manifold_dim(manifold);
            const json& b = f.get("b");
            Eigen::VectorXd v;
            if (b.is_array() && !b.empty() && b[0].is_array()) {  // a matrix as a list of rows: flattened column-major
              const Eigen::MatrixXd m = as_matrix(b, f.at("b"));
              if (m.size() != dim)
                fail(f.at("b"), fmt::format("expected {} entries (the manifold's coordinates), got {}", dim, m.size()));
              v = Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
            } else {
              v = as_vector(b, f.at("b"), dim);
            }
            return targets::make_choice(f, name, models::Linear{v}, json{{"name", name}, {"b", b}});
          }};
}

}  // namespace sgmcmc::run
