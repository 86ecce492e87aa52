#pragma once
// The SGGMC paper's §5.2 synthetic posterior (Liu, Zhu & Song 2016), as the issue tracker specifies
// it: N = 100 points on the circle S¹ drawn from ½ vMF(v₁, κ) + ½ vMF(v₂, κ) with v₁ = -π/24,
// v₂ = π/8, κ = 20; the unknown means (μ₁, μ₂) ∈ S¹ × S¹ have a uniform prior, so
//   U(μ₁, μ₂) = -Σ_i log(½ e^{κ μ₁ᵀx_i} + ½ e^{κ μ₂ᵀx_i}) + const,
// bimodal by label switching. A DataModel for models::Minibatch (batch size 10 in the paper). The
// normaliser of vMF(κ) is the same for both components and cancels. Points are (μ₁, μ₂) ∈ R⁴.
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace sgmcmc::models {

struct VmfMixturePosterior {
  Eigen::Matrix2Xd data;  ///< 2×N: the observed points on S¹
  double kappa = 20.0;

  /// Draws N points from the model with means at angles v1, v2, from random stream (seed, 0).
  static VmfMixturePosterior generate(std::size_t n, double v1, double v2, double kappa, std::uint64_t seed) {
    random::Stream rng(seed, 0);
    VmfMixturePosterior m;
    m.kappa = kappa;
    m.data.resize(2, static_cast<Eigen::Index>(n));
    for (Eigen::Index i = 0; i < m.data.cols(); ++i) {
      const double angle = random::von_mises(rng, rng.uniform() < 0.5 ? v1 : v2, kappa);
      m.data.col(i) << std::cos(angle), std::sin(angle);
    }
    return m;
  }

  std::size_t size() const { return static_cast<std::size_t>(data.cols()); }
  void add_prior_gradient(const Eigen::VectorXd& /*x*/, Eigen::VectorXd& /*g*/) const {}  // uniform prior
  double prior_value(const Eigen::VectorXd& /*x*/) const { return 0.0; }

  /// g += scale · ∇(-log(½e^{κμ₁ᵀx_i} + ½e^{κμ₂ᵀx_i})) = -scale · κ (r₁ x_i, r₂ x_i), r the responsibilities.
  void add_example_gradient(const Eigen::VectorXd& x, std::size_t i, Eigen::VectorXd& g, double scale) const {
    const Eigen::Vector2d xi = data.col(static_cast<Eigen::Index>(i));
    const double a = kappa * (x[0] * xi[0] + x[1] * xi[1]), b = kappa * (x[2] * xi[0] + x[3] * xi[1]);
    const double r1 = 1.0 / (1.0 + std::exp(b - a));  // stable logistic form of e^a/(e^a + e^b)
    const double r2 = 1.0 - r1;
    g.segment<2>(0) -= scale * kappa * r1 * xi;
    g.segment<2>(2) -= scale * kappa * r2 * xi;
  }
  double example_value(const Eigen::VectorXd& x, std::size_t i) const {
    const Eigen::Vector2d xi = data.col(static_cast<Eigen::Index>(i));
    const double a = kappa * (x[0] * xi[0] + x[1] * xi[1]), b = kappa * (x[2] * xi[0] + x[3] * xi[1]);
    const double m = std::max(a, b);
    return -(m + std::log(0.5 * std::exp(a - m) + 0.5 * std::exp(b - m)));
  }
};

}  // namespace sgmcmc::models
