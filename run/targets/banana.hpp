#pragma once
// The `banana` target: U(θ) = θ₁⁴/10 + (4(θ₂ + 1.2) − θ₁²)²/2 (models/banana.hpp; the complete
// recipe's Fig. 2 right). It fixes the dimension: 2.
#include <string>

#include <sgmcmc/models/banana.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry banana_target() {
  return {{"banana"}, "U = θ₁⁴/10 + (4(θ₂ + 1.2) − θ₁²)²/2, 2-D", [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "banana";
            const Eigen::Index dim = targets::fixed_dim(f, name, manifold, 2);
            return targets::make_choice(f, name, models::Banana{}, json{{"name", name}}, dim);
          }};
}

}  // namespace sgmcmc::run
