#pragma once
// The `dirichlet` target: Dirichlet(α) on a simplex (models/dirichlet.hpp), U = −Σ (α_i − 1) log x_i.
// Its concentration α is what SCIR's exact CIR transition uses (AnyTarget's DirichletType); with some
// α_i ≠ 1 its force is unbounded at the faces (docs/math.md#singular-potentials-on-the-simplex), which the
// sampler entries check.
#include <string>

#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

static_assert(DirichletType<models::Dirichlet>);  // what SCIR asks of the target

inline TargetEntry dirichlet_target() {
  return {{"dirichlet"}, "Dirichlet(alpha) on a simplex", [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "dirichlet";
            const Eigen::Index dim = targets::manifold_dim(manifold);
            targets::require_manifold(f, name, manifold.geometry.simplex, "a simplex", "simplex");
            const Eigen::VectorXd alpha = as_vector(f.get("alpha"), f.at("alpha"), dim);
            if (!(alpha.array() > 0).all()) fail(f.at("alpha"), "expected positive concentrations");
            return targets::make_choice(f, name, models::Dirichlet{alpha}, json{{"name", name}, {"alpha", vector_json(alpha)}});
          }};
}

}  // namespace sgmcmc::run
