#pragma once
// A whole run config (DESIGN.md §5.1): sampler, manifold, target, run length, chains, seed, init.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/manifold_spec.hpp>
#include <sgmcmc/run/metric_spec.hpp>
#include <sgmcmc/run/sampler_spec.hpp>
#include <sgmcmc/run/target.hpp>

namespace sgmcmc::run {

struct RunConfig {
  SamplerSpec sampler;
  ManifoldSpec manifold;
  Target target;
  std::uint64_t steps = 1000;
  std::uint64_t burn_in = 0;
  std::uint64_t thin = 1;
  std::uint64_t chains = 1;
  std::uint64_t seed = 0;
  std::vector<Eigen::VectorXd> init;  ///< empty: a random point per chain; else one per chain
  AnyMetric metric;                   ///< sgrld / sgrhmc / naive_sgrhmc
  Eigen::MatrixXd D, Q, noise_matrix; ///< recipe
  json resolved;                      ///< the config with every default filled in
};

/// The embedded default demo: SGHMC on the SGHMC paper's ρ = 0.9 Gaussian (Fig. 3) with N(0, I) gradient
/// noise, corrected by the matching noise estimate V̂ = 1.
inline json default_config() {
  return json::parse(R"({
    "sampler":  {"name": "sghmc", "step_size": 0.05, "friction": 1.0, "noise_estimate": 1.0, "scheme": "aboba"},
    "manifold": {"name": "euclidean", "dim": 2},
    "target":   {"name": "gaussian", "mean": [0, 0], "cov": [[1, 0.9], [0.9, 1]], "grad_noise": 1.0},
    "steps": 200000, "burn_in": 1000, "thin": 10, "chains": 2, "seed": 7
  })");
}

inline RunConfig parse_config(const json& j) {
  Fields f(j, "");
  RunConfig c;
  c.sampler = parse_sampler(f.get("sampler"), "/sampler");
  const json& target = f.get("target");
  c.manifold = parse_manifold(f.find("manifold"), natural_dim(target));
  const Eigen::Index dim = c.manifold.ambient_size();
  c.target = parse_target(target, c.manifold);
  // Potentials singular at the simplex faces break stochastic-gradient samplers with reflection
  // (DESIGN.md §4.3: SGGMC on Dirichlet(2,3,5) gives mean (0.244, 0.310, 0.446) for (0.2, 0.3, 0.5)).
  const std::string& sn = c.sampler.name;
  if (c.target.is_singular_dirichlet() && (sn == "sgld" || sn == "sghmc" || sn == "sgnht" || sn == "naive_sghmc"))
    fail("/sampler/name", fmt::format("'{}' on a Dirichlet target with some alpha_i != 1: its force (alpha_i - 1)/x_i is "
                                      "unbounded at the simplex faces, and stochastic-gradient samplers with reflection "
                                      "are biased or unstable there (DESIGN.md §4.3). Use scir (exact CIR transition), "
                                      "sgrld (expanded-mean) or gmc (Metropolis-corrected)", c.sampler.resolved["name"].get<std::string>()));
  const bool riemannian = sn == "sgrld" || sn == "sgrhmc" || sn == "naive_sgrhmc";
  const bool expanded_mean = sn == "sgrld" && c.manifold.kind == "simplex";
  if ((riemannian || sn == "recipe") && !expanded_mean && c.manifold.kind != "euclidean")
    fail("/manifold/name", fmt::format("'{}' runs on euclidean{}", sn, sn == "sgrld" ? " or simplex (expanded-mean)" : ""));
  if (riemannian && !expanded_mean) {
    json m;
    c.metric = parse_metric(c.sampler.metric, "/sampler/metric", dim, m);
    c.sampler.resolved["metric"] = m;
  }
  if (sn == "recipe") {
    const Eigen::Index d = dim;
    const Eigen::Index n = c.sampler.augment == recipe::Augment::none ? d : c.sampler.augment == recipe::Augment::momentum ? 2 * d : 2 * d + 1;
    auto square = [&](const json& j, const char* key) {
      const Eigen::MatrixXd m = as_matrix(j, std::string("/sampler/") + key);
      if (m.rows() != n || m.cols() != n)
        fail(std::string("/sampler/") + key, fmt::format("expected an {0}×{0} matrix over z (augment {1}, dim {2}), got {3}×{4}", n,
                                                         c.sampler.resolved["augment"].get<std::string>(), d, m.rows(), m.cols()));
      return m;
    };
    c.D = square(c.sampler.D, "D");
    c.Q = square(c.sampler.Q, "Q");
    if (!c.sampler.noise_matrix.is_null()) c.noise_matrix = square(c.sampler.noise_matrix, "noise_estimate");
    if (!(c.Q + c.Q.transpose()).isZero(1e-12)) fail("/sampler/Q", "expected a skew-symmetric matrix (Q = -Qᵀ)");
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (c.D + c.D.transpose()));
    if (!(c.D - c.D.transpose()).isZero(1e-12) || es.eigenvalues().minCoeff() < -1e-12)
      fail("/sampler/D", fmt::format("expected a symmetric positive semidefinite matrix (smallest eigenvalue {:.3g})", es.eigenvalues().minCoeff()));
  }
  if (c.sampler.empirical_fisher && !c.target.supports_noise_estimate())
    fail("/sampler/noise_estimate", fmt::format("empirical_fisher needs a minibatch target with per-example gradients; "
                                                "target '{}' has none (give a number instead)", c.target.resolved["name"].get<std::string>()));
  if (sn == "scir" && !(c.manifold.kind == "simplex" && std::holds_alternative<models::Dirichlet>(c.target.model)))
    fail("/sampler/name", "scir samples Dirichlet-type targets: it needs manifold simplex and target dirichlet");
  c.steps = f.count("steps", 1000, 0);
  c.burn_in = f.count("burn_in", 0, 0);
  c.thin = f.count("thin", 1, 1);
  c.chains = f.count("chains", 1, 1);
  if (c.chains > 4096) fail("/chains", fmt::format("expected at most 4096 chains, got {}", c.chains));
  c.seed = f.count("seed", 0, 0);
  if (const json* init = f.find("init")) {
    auto check_point = [&](const json& p, const std::string& path) {
      Eigen::VectorXd x = as_vector(p, path, dim);
      const double off = std::visit([&](const auto& m) { return m.distance_to(x); }, c.manifold.manifold);
      if (!(off <= 1e-8)) fail(path, fmt::format("point is off the manifold (distance {:.3g})", off));
      return x;
    };
    if (init->is_array() && !init->empty() && (*init)[0].is_array()) {
      if (init->size() != c.chains)
        fail("/init", fmt::format("expected one point per chain ({}), got {}", c.chains, init->size()));
      for (std::size_t i = 0; i < init->size(); ++i) c.init.push_back(check_point((*init)[i], fmt::format("/init/{}", i)));
    } else {
      const Eigen::VectorXd x = check_point(*init, "/init");
      c.init.assign(c.chains, x);
    }
  }
  f.finish();
  c.resolved = {{"sampler", c.sampler.resolved}, {"manifold", c.manifold.resolved}, {"target", c.target.resolved},
                {"steps", c.steps}, {"burn_in", c.burn_in}, {"thin", c.thin}, {"chains", c.chains}, {"seed", c.seed}};
  if (f.find("init")) c.resolved["init"] = j.at("init");
  return c;
}

}  // namespace sgmcmc::run
