#pragma once
// The von Mises–Fisher targets on a sphere S^{n−1} (the manifold gives n):
//   `vmf`: vMF(μ, κ), U = −κμᵀx (models/linear.hpp, docs/math.md#von-mises-fisher);
//   `vmf_mixture`: U = −log Σ_k w_k exp(κ_k μ_kᵀx) (models/vmf_mixture.hpp; the SGGMC paper's Fig. 3
//   circle target is w = (1, 2), κ = 5, μ₂ = −μ₁), the weights multiplying exp(κ_k μ_kᵀx) as the
//   paper writes it.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/models/vmf_mixture.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

inline TargetEntry vmf_target() {
  return {{"vmf"}, "vMF(mu, kappa) on a sphere: U = −κμᵀx", [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "vmf";
            const Eigen::Index dim = targets::manifold_dim(manifold);
            targets::require_manifold(f, name, manifold.geometry.unit_sphere, "a sphere", "sphere");
            const Eigen::VectorXd mu = as_vector(f.get("mu"), f.at("mu"), dim);
            if (std::abs(mu.norm() - 1.0) > 1e-8) fail(f.at("mu"), fmt::format("expected a unit vector, got norm {}", mu.norm()));
            const double kappa = f.number("kappa", Range::non_negative);
            return targets::make_choice(f, name, models::von_mises_fisher(mu, kappa),
                                        json{{"name", name}, {"mu", vector_json(mu)}, {"kappa", kappa}});
          }};
}

inline TargetEntry vmf_mixture_target() {
  return {{"vmf_mixture"}, "a mixture of vMFs on a sphere: U = −log Σ w_k exp(κ_k μ_kᵀx) (default weights 1)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "vmf_mixture";
            const Eigen::Index dim = targets::manifold_dim(manifold);
            targets::require_manifold(f, name, manifold.geometry.unit_sphere, "a sphere", "sphere");
            const json& mus = f.get("mus");
            if (!mus.is_array() || mus.empty()) fail(f.at("mus"), "expected a non-empty list of unit vectors");
            const auto k = static_cast<Eigen::Index>(mus.size());
            models::VmfMixture m{Eigen::MatrixXd(dim, k), Eigen::VectorXd(k), Eigen::VectorXd::Zero(k)};
            for (Eigen::Index i = 0; i < k; ++i) {
              const std::string p = fmt::format("{}/{}", f.at("mus"), i);
              m.mus.col(i) = as_vector(mus[static_cast<std::size_t>(i)], p, dim);
              if (std::abs(m.mus.col(i).norm() - 1.0) > 1e-8) fail(p, "expected a unit vector");
            }
            const json& kappas = f.get("kappas");
            if (kappas.is_number()) m.kappas.setConstant(as_number(kappas, f.at("kappas"), Range::non_negative));
            else m.kappas = as_vector(kappas, f.at("kappas"), k);
            if ((m.kappas.array() < 0).any()) fail(f.at("kappas"), "expected numbers >= 0");
            Eigen::VectorXd w = Eigen::VectorXd::Ones(k);
            if (const json* wj = f.find("weights")) w = as_vector(*wj, f.at("weights"), k);
            if (!(w.array() > 0).all()) fail(f.at("weights"), "expected positive weights");
            m.log_weights = w.array().log();
            json out = {{"name", name}, {"mus", mus}, {"kappas", vector_json(m.kappas)}, {"weights", vector_json(w)}};
            return targets::make_choice(f, name, std::move(m), std::move(out));
          }};
}

}  // namespace sgmcmc::run
