#pragma once
// Successive halving (Jamieson & Talwalkar 2016, Algorithm 1; Karnin, Koren & Somekh 2013) as MAMBA
// runs it over SG-MCMC settings (Coullon, South & Nemeth 2023, "MAMBA"): every arm gets an equal
// share of a round's budget, the best 1/η by score go on to the next round, each continuing from its
// own last state, until one is left. The budget B is split evenly over R = ⌈log_η n⌉ rounds, so round
// r gives each of its n_r arms B/(R n_r). Scores are "lower is better"; a diverged arm scores +∞ and
// never goes on. Ties go to the lower index, so the choice depends on nothing but the scores.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::tuning {

/// The rounds of successive halving over `arms` arms, keeping ⌈n/η⌉ of n each round.
struct HalvingPlan {
  std::size_t arms = 0;
  unsigned eta = 3;
  double budget = 0;  ///< in the caller's unit (the run layer: gradient evaluations)

  std::size_t rounds() const {
    std::size_t r = 0;
    for (std::size_t n = arms; n > 1; n = (n + eta - 1) / eta) ++r;
    return std::max<std::size_t>(r, 1);
  }
  /// The arms alive in round r (0-based).
  std::size_t alive_in(std::size_t round) const {
    std::size_t n = arms;
    for (std::size_t r = 0; r < round; ++r) n = (n + eta - 1) / eta;
    return n;
  }
  /// What each arm of round r may spend.
  double per_arm(std::size_t round) const {
    return budget / (static_cast<double>(rounds()) * static_cast<double>(alive_in(round)));
  }
  void validate() const {
    require(arms >= 1, "successive halving: no arm to choose from");
    require(eta >= 2, "successive halving: eta must be at least 2, got {}", eta);
    require(budget > 0 && std::isfinite(budget), "successive halving: the budget must be positive, got {}", budget);
  }
};

/// The indices of the ⌈n/η⌉ best of `alive` by `score` (lower first; ties by index), never one whose
/// score is not finite. Empty when every arm failed.
inline std::vector<std::size_t> survivors(const std::vector<std::size_t>& alive, const std::vector<double>& score, unsigned eta) {
  std::vector<std::size_t> ok;
  for (std::size_t a : alive)
    if (std::isfinite(score[a])) ok.push_back(a);
  std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) { return score[a] < score[b] || (score[a] == score[b] && a < b); });
  ok.resize(std::min(ok.size(), (alive.size() + eta - 1) / eta));
  std::sort(ok.begin(), ok.end());
  return ok;
}

/// Runs the plan: `play(round, alive, per_arm, score)` advances every arm in `alive` by `per_arm` of the
/// budget and writes each one's score into score[arm] (the caller may run them in parallel).
/// `round_done(round, alive, score)` sees each round's scores. Returns the chosen arm, or arms when
/// every arm of some round failed (the caller says why: nothing was chosen).
template <class Play, class RoundDone>
std::size_t successive_halving(const HalvingPlan& plan, Play&& play, RoundDone&& round_done) {
  plan.validate();
  std::vector<std::size_t> alive(plan.arms);
  std::iota(alive.begin(), alive.end(), std::size_t{0});
  std::vector<double> score(plan.arms, std::numeric_limits<double>::infinity());
  const std::size_t rounds = plan.rounds();
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t a : alive) score[a] = std::numeric_limits<double>::infinity();
    play(r, alive, plan.per_arm(r), score);
    round_done(r, alive, score);
    const bool last = r + 1 == rounds;
    std::vector<std::size_t> next = survivors(alive, score, last ? static_cast<unsigned>(alive.size()) : plan.eta);
    if (next.empty()) return plan.arms;
    alive = std::move(next);
  }
  return alive.front();
}

}  // namespace sgmcmc::tuning
