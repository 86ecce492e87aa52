#pragma once
// The `uniform` target: U = 0 on a compact manifold (models/uniform.hpp): the sphere's uniform law,
// Dirichlet(1) on a simplex, Haar on Stiefel. Euclidean space has no uniform law to sample.
#include <string>

#include <sgmcmc/models/uniform.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry uniform_target() {
  return {{"uniform"}, "U = 0 on a compact manifold (sphere, simplex, stiefel, products of them)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "uniform";
            targets::manifold_dim(manifold);  // no dimension of its own
            if (!manifold.geometry.compact)
              fail(f.at("name"), fmt::format("there is no uniform law on {}: it needs a compact manifold", manifold.kind));
            return targets::make_choice(f, name, models::Uniform{}, json{{"name", name}});
          }};
}

}  // namespace sgmcmc::run
