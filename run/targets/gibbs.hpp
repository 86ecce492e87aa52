#pragma once
// The Gibbs step on a data model's prior precisions, between SG steps (the bnn and bpmf targets; SGHMC
// paper App. H.1/H.2): which models have one (GibbsModel), how their precisions go to and from a run
// record (PrecisionsJson), and the step itself. run/targets/data_target.hpp runs it from the driver's
// after_step hook, whatever gradient estimator the target uses: the precisions enter the prior only,
// which every estimator evaluates exactly at θ.
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/fields.hpp>

namespace sgmcmc::run {

/// A model's prior precisions to and from JSON: `static json write(const P&)` and
/// `static void read(P&, const json&, const std::string& path)` (errors naming the path).
template <class P>
struct PrecisionsJson;

/// A data model with prior precisions behind a shared_ptr and `gibbs(θ, rng)`, the conjugate draw of
/// every precision given θ (models/bnn.hpp, models/bpmf.hpp).
template <class M>
concept GibbsModel = models::DataModel<M> && requires(const M m, const Eigen::VectorXd& x, random::Stream& rng) {
  requires std::same_as<std::remove_cvref_t<decltype(m.precisions)>,
                        std::shared_ptr<std::remove_cvref_t<decltype(*m.precisions)>>>;
  m.gibbs(x, rng);
};

template <GibbsModel M>
using PrecisionsOf = std::remove_cvref_t<decltype(*std::declval<const M&>().precisions)>;

/// The Gibbs step after step t (1-based, over the chain's life), every `every`-th step (0: never):
/// resamples the precisions given x, drawing from substream t / every of the chain's stream — a pure
/// function of (seed, chain, Gibbs step), so nothing but the precisions needs saving for an exact
/// resume, and the chain's own stream (minibatches, noise) is untouched.
template <GibbsModel M>
void gibbs_after_step(const M& model, std::uint64_t every, const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) {
  if (every == 0 || t % every != 0) return;
  random::Stream g = random::substream(rng.seed(), rng.stream_id(), t / every);
  model.gibbs(x, g);
}

}  // namespace sgmcmc::run
