#pragma once
// Builds chain i of a run config: the configured sampler on the configured manifold and target, with
// random stream i of the run's seed (so chain i is the same whatever the number of threads).
#include <memory>

#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/config.hpp>

namespace sgmcmc::run {

inline std::unique_ptr<AnyChain> make_chain(const RunConfig& c, std::uint32_t index) {
  random::Stream rng(c.seed, index);
  Eigen::VectorXd x0 = c.init.empty() ? c.manifold.manifold.random_point(rng) : c.init[index];
  // A target's suggested start centres the random one (euclidean: N(start, I); TargetChoice::start).
  if (c.init.empty() && c.target.start && c.manifold.geometry.flat && c.target.start->size() == x0.size()) x0 += *c.target.start;
  return c.sampler.build(c.manifold.manifold, c.target.target, std::move(x0), rng);
}

}  // namespace sgmcmc::run
