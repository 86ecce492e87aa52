// Four SGHMC chains on the double well U(θ) = θ⁴ - 2θ² with noisy gradients (the SGHMC paper's Fig. 1
// setting), run in parallel on the library's thread pool, each watched by observers: a step limit, a
// wall-clock budget, a divergence check and an observer of our own. Then the convergence diagnostics of
// modules/diagnostics (split-R̂, bulk/tail ESS, MCSE; Vehtari et al. 2021) and the estimates beside the
// exact E θ = 0, E θ² = 0.832745 (docs/math.md#double-well). Exits 1 if a chain stopped with an error
// or an estimate is absurd. docs/api.md walks through it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/diagnostics.hpp>
#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

using namespace sgmcmc;

namespace {

// A user observer: counts the chain's crossings between the wells (θ changing sign), a direct measure
// of mixing on this target. It never stops the chain; returning Control::stop would end the run.
struct CountCrossings {
  std::uint64_t crossings = 0;
  bool positive = true;
  Control operator()(const StepEvent& e) {
    const bool now_positive = e.position[0] > 0;
    if (now_positive != positive) ++crossings;
    positive = now_positive;
    return Control::proceed;
  }
};

}  // namespace

int main() {
  // SGHMC with the Euler scheme of the paper's Algorithm 2, friction C = 3 and the noise estimate V̂ = 4
  // equal to the gradient noise's variance (σ = 2).
  const sghmc::Sampler<Euclidean> sampler{{Euclidean(1), sghmc::Friction(3.0), /*noise_estimate=*/4.0}, splitting::euler,
                                          schedule::StepSize::constant(0.1)};
  const models::WithGradientNoise<models::DoubleWell> target{models::DoubleWell{}, /*sd=*/2.0};
  using DoubleWellChain = Chain<sghmc::Sampler<Euclidean>, models::WithGradientNoise<models::DoubleWell>>;

  // Chain i starts at its own point and draws from random stream i of one seed (as run configs do):
  // the chains are independent and each one's draws do not depend on the thread that runs it.
  const std::uint64_t seed = 11;
  const double starts[] = {-2.0, -1.0, 1.0, 2.0};
  std::vector<DoubleWellChain> chains;
  for (std::uint32_t i = 0; i < 4; ++i)
    chains.emplace_back(sampler, target, Eigen::VectorXd::Constant(1, starts[i]), random::Stream(seed, i));

  const std::uint64_t steps = 400'000;
  const Retention keep{/*burn_in=*/2'000, /*thin=*/10};
  std::vector<Draws> draws(chains.size());
  std::vector<ChainStatus> status(chains.size());
  std::vector<CountCrossings> crossings(chains.size());
  std::vector<StopAfter> limits(chains.size(), StopAfter{steps});

  // The library's one thread pool (modules/parallel/worker_pool.hpp): for_each(n, fn) calls fn(i, worker)
  // once for every i; an exception thrown by fn is rethrown here, after every worker has stopped.
  parallel::WorkerPool pool(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  auto run_chain = [&](std::size_t i, unsigned /*worker*/) {
    status[i] = chains[i].run(keep, limits[i], WallClockBudget{/*seconds=*/20.0}, StopOnNonFinite{}, KeepDraws{draws[i]},
                              crossings[i]);
  };
  pool.for_each(chains.size(), run_chain);

  bool ok = true;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    if (!status[i].ok()) {  // diverged: its draws so far are kept, but it is not a sample of the target
      std::printf("chain %zu stopped: %s\n", i, status[i].error.c_str());
      ok = false;
      continue;
    }
    // A chain that stopped without an error stopped because an observer asked: the step limit, or the
    // wall-clock budget on a slow machine (then it has fewer draws; the diagnostics use the shortest).
    std::printf("chain %zu: %llu steps (%s), %zu draws, %llu crossings between the wells\n", i,
                static_cast<unsigned long long>(chains[i].steps_done),
                limits[i].exhausted() ? "step limit" : "wall-clock budget", draws[i].count(),
                static_cast<unsigned long long>(crossings[i].crossings));
  }
  if (!ok) return 1;

  // Diagnostics of two quantities, θ and θ²: each as one vector of draws per chain.
  std::vector<Eigen::VectorXd> theta, theta_squared;
  for (const Draws& d : draws) {
    theta.push_back(d.matrix().col(0));
    theta_squared.push_back(theta.back().array().square().matrix());
  }
  const diagnostics::Summary s_theta = diagnostics::summarize(theta);
  const diagnostics::Summary s_squared = diagnostics::summarize(theta_squared);
  std::printf("%-8s %8s %8s %8s %9s %9s %7s %8s\n", "", "mean", "exact", "mcse", "ess_bulk", "ess_tail", "rhat", "q5..q95");
  std::printf("%-8s %8.4f %8.4f %8.4f %9.0f %9.0f %7.4f %4.2f..%4.2f\n", "theta", s_theta.mean, 0.0, s_theta.mcse_mean,
              s_theta.ess_bulk, s_theta.ess_tail, s_theta.rhat, s_theta.q5, s_theta.q95);
  std::printf("%-8s %8.4f %8.4f %8.4f %9.0f %9.0f %7.4f %4.2f..%4.2f\n", "theta^2", s_squared.mean, 0.832745,
              s_squared.mcse_mean, s_squared.ess_bulk, s_squared.ess_tail, s_squared.rhat, s_squared.q5, s_squared.q95);
  // The same numbers one function at a time (e.g. for a quantity you compute yourself):
  std::printf("rhat(theta) = %.4f, ess_bulk = %.0f, ess_tail = %.0f, mcse_mean = %.4f\n", diagnostics::rhat(theta),
              diagnostics::ess_bulk(theta), diagnostics::ess_tail(theta), diagnostics::mcse_mean(theta));

  // Stan's warnings (R̂ > 1.01, ESS < 100 per chain); none is expected here. They say the chains
  // agree and mixed, not that a stochastic-gradient chain is free of step-size bias.
  const std::vector<std::string> warnings = diagnostics::convergence_warnings({s_theta, s_squared}, chains.size());
  for (const std::string& w : warnings) std::printf("warning: %s\n", w.c_str());
  if (warnings.empty()) std::printf("no convergence warnings\n");

  // Absurd: off by more than 6 MCSEs plus SGHMC's O(h) bias (about 0.01 at h = 0.1: docs/math.md).
  ok = std::abs(s_theta.mean) < 6 * s_theta.mcse_mean + 0.02 &&
       std::abs(s_squared.mean - 0.832745) < 6 * s_squared.mcse_mean + 0.02 && s_theta.rhat < 1.05;
  std::printf(ok ? "estimates agree with the exact values\n" : "ESTIMATES ARE OFF\n");
  return ok ? 0 : 1;
}
