// Statistical tests of the box manifold (manifolds/box.hpp): GMC keeps the uniform law of a compact box,
// and a Gaussian restricted to a box — through the run layer's `box` entry, as a config states it — has
// the truncated normal's exact moments under the exact sampler and the stochastic-gradient ones.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/manifolds/box.hpp>
#include <sgmcmc/modules/conformance/doctest.hpp>
#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/run/runner.hpp>

namespace test_manifolds_box_stat {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;

TEST_CASE("GMC on the uniform target preserves the uniform law of a box") {
  // Catches: a fold that is not measure-preserving (a reflection at the wrong place or with v kept),
  // and random points that are not uniform on the box: either moves the chain's E[x], E[xxᵀ] off the
  // i.i.d. draws'. A thin, a unit and a wide side.
  conformance::check_uniform_law(Box(Eigen::Vector3d(-1, 0, 0.25), Eigen::Vector3d(3, 0.1, 0.75)), 7);
}

/// The first two moments of N(0, 1) restricted to [a, b] (b may be +∞): with Z = Φ(b) − Φ(a),
/// E x = (φ(a) − φ(b))/Z and E x² = 1 + (aφ(a) − bφ(b))/Z.
struct Truncated {
  double mean, second;
};
Truncated truncated_normal(double a, double b) {
  const auto phi = [](double x) { return std::isfinite(x) ? std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi) : 0.0; };
  const auto Phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
  const double z = Phi(b) - Phi(a);
  const double b_phi_b = std::isfinite(b) ? b * phi(b) : 0.0;
  return {(phi(a) - phi(b)) / z, 1.0 + (a * phi(a) - b_phi_b) / z};
}

TEST_CASE("a Gaussian on a box: the truncated normal's moments, exact and stochastic-gradient samplers") {
  // N(0, I₂) on [0.5, ∞) × [−1, 2]: E x₁ = 1.14108, E x₁² = 1.57054, E x₂ = 0.22964, E x₂² = 0.57250
  // (the closed forms above). Catches: the entry's bounds reaching the wrong coordinates or a null
  // taken as 0 (x₁ would be a half-normal at 0.5 either way, x₂'s upper face at 2 matters), a fold
  // that loses probability near a face (the means shift towards the interior), and a sampler whose
  // sub-steps do not use the manifold's flow (draws outside the box).
  const std::vector<Truncated> exact = {truncated_normal(0.5, INFINITY), truncated_normal(-1, 2)};
  struct Case {
    run::json sampler;
    std::uint64_t steps;
    double bias;  ///< the SG samplers' allowance for their O(h) discretisation bias (measured, below)
  };
  // Bias allowances: 3× the largest |bias| of the four moments measured on 2 chains × 2·10⁷ steps of
  // each SG sampler at its h (this config through `sgmcmc run`, thin 20; docs/manifolds.md#box): sggmc
  // at h = 0.05: 0.0007 (E x₁²; the others 0.0002–0.0005, all within that run's own error of ~0.001),
  // sgld at h = 0.01: 0.0097 (E x₁²; E x₁ 0.0037, E x₂ 0.0012, E x₂² 0.0054). gmc is exact (MH).
  const Case cases[] = {
      {{{"name", "gmc"}, {"step_size", 0.3}, {"leapfrog_steps", 5}}, 20000, 0.0},
      {{{"name", "sggmc"}, {"step_size", 0.05}, {"friction", 1}}, 100000, 0.002},
      {{{"name", "sgld"}, {"step_size", 0.01}}, 200000, 0.03},
  };
  for (const auto& c : cases) {
    const run::json config = {{"manifold", {{"name", "box"}, {"lower", {0.5, -1}}, {"upper", {nullptr, 2}}}},
                              {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                              {"sampler", c.sampler},
                              {"steps", c.steps},
                              {"burn_in", c.steps / 10},
                              {"chains", 2},
                              {"seed", 17}};
    const run::json record = run::run(config);
    REQUIRE(record["status"] == "ok");
    std::vector<Eigen::MatrixXd> chains;
    for (const auto& ch : record["chains"]) {
      const auto& s = ch["samples"];
      Eigen::MatrixXd m(static_cast<Eigen::Index>(s.size()), 4);  // x₁, x₂, x₁², x₂²
      for (std::size_t i = 0; i < s.size(); ++i) {
        const double x1 = s[i][0].get<double>(), x2 = s[i][1].get<double>();
        REQUIRE((x1 >= 0.5 && x2 >= -1 && x2 <= 2));
        m.row(static_cast<Eigen::Index>(i)) << x1, x2, x1 * x1, x2 * x2;
      }
      chains.push_back(std::move(m));
    }
    const auto sums = diagnostics::summarize_columns(chains);
    const std::string name = c.sampler["name"];
    const double expected[] = {exact[0].mean, exact[1].mean, exact[0].second, exact[1].second};
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& s = sums[k];
      CHECK_MESSAGE(std::abs(s.mean - expected[k]) < 5 * s.mcse_mean + c.bias,
                    name << " moment " << k << ": " << s.mean << " ± " << s.mcse_mean << ", exact " << expected[k]);
    }
  }
}

}  // namespace test_manifolds_box_stat
