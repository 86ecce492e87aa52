// Must NOT compile: the README's potential with the engine parameter forgotten. The install test builds
// it against the installed package and checks that the error is one screen naming the requirement
// (PotentialFor: `p.gradient(x, g, rng)`), not pages from inside the sampler's step.
#include <Eigen/Core>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

struct NoEngine {  // gradient(x, g) without the rng the minibatch or the noise is drawn from
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { g = x; }
};

int main() {
  using namespace sgmcmc;
  const auto sampler = sghmc::Sampler<Euclidean>{{Euclidean(2), sghmc::Friction(1.0)}};
  Chain chain(sampler, NoEngine{}, Eigen::VectorXd::Zero(2), random::Stream(7, 0));
  Draws draws;
  return chain.advance(100, Retention{}, draws).ok() ? 0 : 1;
}
