#pragma once
// The driver: runs one chain of any sampler for N steps with burn-in and thinning, keeping the draws.
// Draws are kept by the *global* step index, so a chain advanced N steps and then N more keeps
// exactly the draws of one 2N-step run (resume is exact). A non-finite position stops the chain with
// a clear error; the draws made before it are kept. A potential with an `after_step(x, t, rng)` member
// (modules/run/target.hpp: the Gibbs step of the bnn and bpmf targets) is called after every step.
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace sgmcmc {

/// Which steps keep a draw: step t (1-based) is kept when t > burn_in and (t - burn_in) % thin == 0.
struct Retention {
  std::uint64_t burn_in = 0;
  std::uint64_t thin = 1;
  bool keeps(std::uint64_t t) const { return t > burn_in && (t - burn_in) % thin == 0; }
};

/// Kept draws of one chain, row after row (each row one point's embedded coordinates).
struct Draws {
  Eigen::Index dim = 0;
  std::vector<double> values;
  std::vector<double> accept_stats;  ///< the sampler's acceptance statistic at each kept draw
  std::size_t count() const { return dim == 0 ? 0 : values.size() / static_cast<std::size_t>(dim); }
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> matrix() const {
    return {values.data(), static_cast<Eigen::Index>(count()), dim};
  }
};

/// Why a chain stopped early (empty when it did not).
struct ChainStatus {
  std::string error;
  bool ok() const { return error.empty(); }
};

/// A chain: sampler + potential + state + its own random stream. Copying a chain forks it.
template <class S, class P>
struct Chain {
  S sampler;
  P potential;
  typename S::State state;
  random::Stream rng;
  std::uint64_t steps_done = 0;
  double accept_sum = 0.0;  ///< sum of acceptance statistics over all steps

  Chain(S s, P p, Eigen::VectorXd x0, random::Stream r)
      : sampler(std::move(s)), potential(std::move(p)), rng(r) {
    state = sampler.init(std::move(x0), rng);
  }

  const Eigen::VectorXd& position() const { return sampler.position(state); }

  /// Runs n more steps, appending kept draws to `out`. `progress`, if given, counts steps done.
  ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out,
                      std::atomic<std::uint64_t>* progress = nullptr) {
    if (out.dim == 0) out.dim = position().size();
    constexpr std::uint64_t check_every = 16;  // a NaN never heals: checking every few steps loses nothing
    for (std::uint64_t i = 0; i < n; ++i) {
      const double a = sampler.step(state, potential, rng, steps_done);
      ++steps_done;
      accept_sum += a;
      const bool kept = keep.keeps(steps_done);
      if ((kept || steps_done % check_every == 0 || i + 1 == n) && !position().allFinite()) {
        return {fmt::format("non-finite state at step {} (checked every {} steps): the gradient or the step size "
                            "made the chain diverge; the {} draws kept before it are written",
                            steps_done, check_every, out.count())};
      }
      if (kept) {
        out.values.insert(out.values.end(), position().data(), position().data() + position().size());
        out.accept_stats.push_back(a);
      }
      // A potential with state of its own (the run targets' Gibbs step on prior precisions) updates it
      // between steps, given the new position, the global step count and the chain's stream (for its
      // key: the hook draws from a substream, never from the chain's own stream).
      if constexpr (requires { potential.after_step(position(), steps_done, std::as_const(rng)); })
        potential.after_step(position(), steps_done, std::as_const(rng));
      if (progress && (i & 255) == 255) progress->fetch_add(256, std::memory_order_relaxed);
    }
    if (progress) progress->fetch_add(n & 255, std::memory_order_relaxed);
    return {};
  }
};

}  // namespace sgmcmc
