// SGLD on a unit Gaussian through the core alone (samplers, manifolds, Chain). Prints the sample mean
// and variance of x₀; install_test.cmake checks they are near 0 and 1.
#include <cstdio>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/sgld.hpp>

struct UnitGaussian {
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, auto&) const { g = x; }
};

int main() {
  using namespace sgmcmc;
  const auto sampler = sgld::Sampler<Euclidean>{Euclidean(2), schedule::StepSize::constant(0.05)};
  Chain chain(sampler, UnitGaussian{}, Eigen::VectorXd::Zero(2), random::Stream(/*seed=*/3, /*stream=*/0));
  Draws draws;
  if (const ChainStatus status = chain.advance(100000, Retention{/*burn_in=*/1000, /*thin=*/1}, draws); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.error.c_str());
    return 1;
  }
  const Eigen::VectorXd x = draws.matrix().col(0);
  const double mean = x.mean(), var = (x.array() - mean).square().mean();
  std::printf("mean %.4f variance %.4f\n", mean, var);
}
