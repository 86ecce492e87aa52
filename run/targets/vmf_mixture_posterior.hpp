#pragma once
// The `vmf_mixture_posterior` target: the SGGMC paper's §5.2 posterior (Liu, Zhu & Song 2016;
// models/vmf_mixture_posterior.hpp): the means (μ₁, μ₂) of a two-component vMF mixture on S¹ given
// n_data points drawn from it, on the torus S¹ × S¹, by minibatches (batch size 10 in the paper) or
// any of the estimators (run/targets/estimator.hpp; a control variate needs its centre given).
#include <cstdint>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/vmf_mixture_posterior.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

namespace targets {
/// S¹ × S¹: a product of two unit circles.
inline bool is_circle_torus(const ManifoldChoice& m) {
  const auto& fs = m.geometry.factors;
  const auto circle = [](const Geometry& g) { return g.unit_sphere && g.ambient == 2; };
  return fs.size() == 2 && circle(fs[0]) && circle(fs[1]);
}
}  // namespace targets

inline TargetEntry vmf_mixture_posterior_target() {
  return {{"vmf_mixture_posterior"},
          "the SGGMC paper's §5.2 posterior of two vMF means on S¹×S¹ (n_data 100, angles (−π/24, π/8), kappa 20, "
          "data_seed 0, batch_size 10)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "vmf_mixture_posterior";
            const Eigen::Index dim = targets::manifold_dim(manifold);  // no dimension of its own
            if (!targets::is_circle_torus(manifold))
              fail(f.at("name"), "vmf_mixture_posterior lives on S¹×S¹: manifold {\"name\": \"product\", \"factors\": "
                                 "[{\"name\": \"sphere\", \"n\": 2}, {\"name\": \"sphere\", \"n\": 2}]}");
            const auto n_data = f.count("n_data", 100, 1);
            // The data are generated here (2 × n_data doubles): at most 2³¹ numbers (16 GiB), as for the
            // logistic target's generated data, so a mistyped size is an error, not an abort in malloc.
            if (n_data > (std::uint64_t{1} << 30))
              fail(f.at("n_data"), fmt::format("expected at most 2^30 generated points, got {} ({:.3g} GB of data)", n_data,
                                               16e-9 * static_cast<double>(n_data)));
            Eigen::VectorXd angles(2);
            angles << -std::numbers::pi / 24, std::numbers::pi / 8;
            if (const json* a = f.find("angles")) angles = as_vector(*a, f.at("angles"), 2);
            const double kappa = f.number("kappa", 20.0, Range::non_negative);
            const auto data_seed = f.count("data_seed", 0, 0);
            const auto batch = f.count("batch_size", 10, 1);
            if (batch > n_data) fail(f.at("batch_size"), fmt::format("expected at most n_data = {}, got {}", n_data, batch));
            const bool replace = f.boolean("with_replacement", false);
            models::Minibatch<models::VmfMixturePosterior> model{
                models::VmfMixturePosterior::generate(n_data, angles[0], angles[1], kappa, data_seed), batch,
                targets::sampling(replace), {}};
            json out = {{"name", name}, {"n_data", n_data}, {"angles", vector_json(angles)}, {"kappa", kappa},
                        {"data_seed", data_seed}, {"batch_size", batch}, {"with_replacement", replace}};
            return targets::make_estimated_choice(f, name, std::move(model), std::move(out), {dim, false});
          }};
}

}  // namespace sgmcmc::run
