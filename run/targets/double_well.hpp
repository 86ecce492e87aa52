#pragma once
// The `double_well` target: U(θ) = θ⁴ − 2θ², one coordinate (models/double_well.hpp; the complete
// recipe's Fig. 2, the SGHMC paper's Fig. 1). It fixes the dimension: 1.
#include <string>

#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry double_well_target() {
  return {{"double_well"}, "U = θ⁴ − 2θ², 1-D (two wells at ±1)", [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "double_well";
            const Eigen::Index dim = targets::fixed_dim(f, name, manifold, 1);
            return targets::make_choice(f, name, models::DoubleWell{}, json{{"name", name}}, dim);
          }};
}

}  // namespace sgmcmc::run
