// SGHMC on your own potential, in 25 lines: a 2-D Gaussian with correlation 0.9 and noisy gradients.
#include <cmath>
#include <cstdio>
#include <Eigen/LU>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

struct Correlated {  // U(θ) = ½θᵀΣ⁻¹θ with a noisy gradient Σ⁻¹θ + N(0, I)
  Eigen::Matrix2d precision = Eigen::Matrix2d{{1, 0.9}, {0.9, 1}}.inverse();
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto& rng) const {
    g = precision * x;
    for (auto& gi : g) gi += rng.normal();
  }
};

int main() {
  using namespace sgmcmc;
  const auto dynamics = sghmc::Dynamics<Euclidean>{Euclidean(2), sghmc::Friction(1.0), /*noise_estimate=*/1.0};
  const auto sampler = sghmc::Sampler<Euclidean>{dynamics, splitting::aboba, schedule::StepSize::constant(0.05)};
  Chain chain(sampler, Correlated{}, Eigen::VectorXd::Zero(2), random::Stream(/*seed=*/7, /*stream=*/0));
  Draws draws;
  if (const ChainStatus status = chain.advance(200000, Retention{/*burn_in=*/1000, /*thin=*/10}, draws); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.error.c_str());  // e.g. a step size that made it diverge
    return 1;
  }
  const Eigen::MatrixXd m = draws.matrix(), centered = m.rowwise() - m.colwise().mean();
  const Eigen::Matrix2d cov = centered.transpose() * centered / double(m.rows() - 1);
  std::printf("correlation %.3f (exact 0.9)\n", cov(0, 1) / std::sqrt(cov(0, 0) * cov(1, 1)));
}
