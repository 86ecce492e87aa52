#pragma once
// Registry entry for the generic complete-recipe sampler (Ma, Chen & Fox 2015, Eq. 9): constant D and Q
// over z = θ, (θ, r) or (θ, r, ξ) (samplers/recipe.hpp).
#include <Eigen/Eigenvalues>

#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/run/samplers/riemannian.hpp>
#include <sgmcmc/samplers/recipe.hpp>

namespace sgmcmc::run {

template <>
struct StateJson<recipe::State> {
  static json write(const recipe::State& s) {
    return {{"z", vector_json(s.z)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
  }
  static void read(recipe::State& s, const json& j, const std::string& path) {
    Fields f(j, path);
    s.z = as_vector(f.get("z"), f.at("z"), s.z.size());
    s.x = s.z.head(s.x.size());
    s.gradient_evals = state_count(f, "gradient_evals");
    s.clipped = state_count(f, "clipped");
    f.finish();
  }
};

/// {"name": "recipe", "step_size": h, "augment": none | momentum | thermostat, "D": [[...]], "Q": [[...]],
///  "noise_estimate": B̂ (a matrix over z), "scheme": euler | semi_implicit, "thermostat_a": A, "noise_policy": ...}
inline SamplerEntry recipe_sampler() {
  return {{"recipe"}, "the complete recipe with constant D(z), Q(z) over z",
          [](Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run) -> SamplerChoice {
            const std::string name = f.string("name");
            require_euclidean(f, manifold, name);
            json out = {{"name", name}};
            const auto step = read_step_size(f, out, run);
            const auto policy = read_noise_policy(f, out);
            const auto scheme = read_recipe_scheme(f, out);
            const std::string aug = f.string("augment", "none");
            recipe::Augment augment = recipe::Augment::none;
            if (aug == "momentum") augment = recipe::Augment::momentum;
            else if (aug == "thermostat") augment = recipe::Augment::thermostat;
            else if (aug != "none") fail(f.at("augment"), fmt::format("expected none, momentum or thermostat, got \"{}\"", printable(aug)));
            out["augment"] = aug;
            const Eigen::Index d = *manifold.dim();
            const Eigen::Index n = augment == recipe::Augment::none ? d : augment == recipe::Augment::momentum ? 2 * d : 2 * d + 1;
            auto square = [&](const char* key) {
              const Eigen::MatrixXd m = as_matrix(f.get(key), f.at(key));
              if (m.rows() != n || m.cols() != n)
                fail(f.at(key), fmt::format("expected an {0}×{0} matrix over z (augment {1}, dim {2}), got {3}×{4}", n, aug, d,
                                            m.rows(), m.cols()));
              out[key] = f.get(key);
              return m;
            };
            const Eigen::MatrixXd D = square("D"), Q = square("Q");
            Eigen::MatrixXd noise;
            if (f.find("noise_estimate")) {
              noise = square("noise_estimate");
              require_independent_batches(f.at("noise_estimate"), target, noise.cwiseAbs().maxCoeff(), false);
            }
            if (!(Q + Q.transpose()).isZero(1e-12)) fail(f.at("Q"), "expected a skew-symmetric matrix (Q = -Qᵀ)");
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (D + D.transpose()));
            if (!(D - D.transpose()).isZero(1e-12) || es.eigenvalues().minCoeff() < -1e-12)
              fail(f.at("D"), fmt::format("expected a symmetric positive semidefinite matrix (smallest eigenvalue {:.3g})",
                                          es.eigenvalues().minCoeff()));
            const double thermostat_a = f.number("thermostat_a", 1.0, Range::positive);
            out["thermostat_a"] = thermostat_a;
            return {"recipe", out, [=](const AnyManifold&, const AnyTarget& t, Eigen::VectorXd x0, random::Stream rng) {
                      return chain_of(recipe::Sampler<recipe::Constant>{{D, Q}, augment, step, noise, policy, scheme, thermostat_a}, t,
                                      std::move(x0), rng);
                    }, step};
          }};
}

}  // namespace sgmcmc::run
