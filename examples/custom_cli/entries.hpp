#pragma once
// The user's own registry entries for examples/custom_cli: the manifold "oblique" (examples/oblique/:
// n×k matrices with unit columns) and the target "columns_vmf", a potential written here: each column
// of X an independent vMF(μ, κ) on S^{n−1}, U(X) = −κ Σ_j μᵀx_j (so E[μᵀx_j] = A_n(κ); for n = 3,
// coth κ − 1/κ). tests/cli/custom_cli_stat.cpp checks sampling them through the run layer.
#include <cmath>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/targets/common.hpp>

#include "../oblique/oblique.hpp"

namespace user {

using sgmcmc::run::Fields;
using sgmcmc::run::json;

// The user potential: a plain value type with a gradient (concepts/potential.hpp); `value` too, so the
// exact samplers (gmc) can run on it.
struct ColumnsVmf {
  Eigen::VectorXd mu;  // unit vector in R^n
  double kappa = 1;
  Eigen::Index k = 1;  // columns
  double value(const Eigen::VectorXd& x) const {
    double u = 0;
    for (Eigen::Index j = 0; j < k; ++j) u -= kappa * mu.dot(x.segment(j * mu.size(), mu.size()));
    return u;
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    g.resize(x.size());
    for (Eigen::Index j = 0; j < k; ++j) g.segment(j * mu.size(), mu.size()) = -kappa * mu;
  }
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R&) const {
    exact_gradient(x, g);
  }
};

// {"name": "oblique", "n": n, "k": k}
inline sgmcmc::run::ManifoldEntry oblique_manifold() {
  return {{"oblique"}, "the oblique manifold OB(n, k): n×k matrices with unit-norm columns (n, k)",
          [](Fields& f, const sgmcmc::run::Registry&) {
            sgmcmc::run::ManifoldChoice c;
            c.kind = "oblique";
            const auto n = static_cast<Eigen::Index>(sgmcmc::run::as_count(f.get("n"), f.at("n"), 2));
            const auto k = static_cast<Eigen::Index>(f.count("k", 1, 1));  // default: one column, a sphere
            if (n * k > (Eigen::Index{1} << 30)) sgmcmc::run::fail(f.path(), "n·k: at most 2^30 coordinates");
            c.resolved = {{"name", "oblique"}, {"n", n}, {"k", k}};
            c.manifold = oblique::Oblique(n, k);
            c.rows = n, c.cols = k;
            c.geometry.compact = true;  // what entries ask of a manifold: typed facts (run/registry.hpp, Geometry)
            c.geometry.ambient = n * k;
            return c;
          }};
}

// {"name": "columns_vmf", "mu": [n numbers, unit norm], "kappa": κ ≥ 0}
inline sgmcmc::run::TargetEntry columns_vmf_target() {
  return {{"columns_vmf"}, "each column of an oblique point an independent vMF(mu, kappa)",
          [](Fields& f, const sgmcmc::run::ManifoldChoice& manifold) {
            sgmcmc::run::targets::require_manifold(f, "columns_vmf", manifold.rows > 0 && manifold.cols > 0, "a matrix manifold", "oblique");
            const Eigen::Index n = manifold.rows, k = manifold.cols;
            ColumnsVmf p{sgmcmc::run::as_vector(f.get("mu"), f.at("mu"), n), f.number("kappa", sgmcmc::run::Range::non_negative), k};
            if (std::abs(p.mu.norm() - 1.0) > 1e-8)
              sgmcmc::run::fail(f.at("mu"), "expected a unit vector, got norm " + std::to_string(p.mu.norm()));
            json resolved = {{"name", "columns_vmf"}, {"mu", sgmcmc::run::vector_json(p.mu)}, {"kappa", p.kappa}};
            return sgmcmc::run::targets::make_choice(f, "columns_vmf", std::move(p), std::move(resolved));
          }};
}

}  // namespace user
