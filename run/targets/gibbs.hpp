#pragma once
// A minibatch target with prior precisions that a Gibbs step resamples between SG steps (the bnn and
// bpmf targets; SGHMC paper App. H.1/H.2): models::Minibatch<M> plus the run layer's side of the
// Gibbs step, as AnyTarget's TargetWithState asks for it — the driver's after_step hook, the
// precisions as the chain's target state in a run record (docs/run-format.md), per-chain diagnostics,
// and copies that own their precisions.
//
// M is a DataModel with `std::shared_ptr<Precisions> precisions` and `gibbs(θ, rng)`, the conjugate
// draw of every precision given θ (models/bnn.hpp, models/bpmf.hpp). Its precisions go to and from
// JSON through PrecisionsJson<Precisions>, specialised next to the model's entry (run/targets/bnn.hpp,
// run/targets/bpmf.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/fields.hpp>

namespace sgmcmc::run {

/// A model's prior precisions to and from JSON: `static json write(const P&)` and
/// `static void read(P&, const json&, const std::string& path)` (errors naming the path).
template <class P>
struct PrecisionsJson;

template <class M>
struct GibbsTarget {
  using Precisions = std::remove_cvref_t<decltype(*std::declval<const M&>().precisions)>;

  models::Minibatch<M> potential;
  std::uint64_t gibbs_every = 0;  ///< a Gibbs step on the prior precisions after steps k, 2k, ... (0: never)

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    potential.gradient(x, g, rng);
  }
  template <class R>
  void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var, R& rng) const {
    potential.gradient_and_variance(x, g, var, rng);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { potential.exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const
    requires PotentialWithValue<models::Minibatch<M>>
  {
    return potential.value(x);
  }

  /// Called by the driver after every step t (1-based, over the chain's life). Every gibbs_every-th
  /// step resamples the precisions given x (models' `gibbs`), drawing from substream t / gibbs_every of
  /// the chain's stream: a pure function of (seed, chain, Gibbs step), so nothing but the precisions
  /// needs saving for an exact resume, and the chain's own stream (minibatches, noise) is untouched.
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) {
    if (gibbs_every == 0 || t % gibbs_every != 0) return;
    random::Stream g = random::substream(rng.seed(), rng.stream_id(), t / gibbs_every);
    potential.model.gibbs(x, g);
  }
  /// The target's own state between steps, for a run record: {"precisions": {...}}.
  json state() const { return json{{"precisions", PrecisionsJson<Precisions>::write(*potential.model.precisions)}}; }
  /// Restores state() (nullptr: absent from the record, allowed when no Gibbs step ever changed the
  /// precisions, i.e. gibbs_every = 0: they are the config's prior_precision).
  void restore(const json* j, const std::string& path) {
    if (!j) {
      if (gibbs_every > 0) fail(path, "required field is missing (the precisions drawn by the Gibbs steps, gibbs_every > 0)");
      return;
    }
    Fields f(*j, path);
    PrecisionsJson<Precisions>::read(*potential.model.precisions, f.get("precisions"), f.at("precisions"));
    f.finish();
  }
  /// Per-chain diagnostics: the current precisions and the Gibbs steps done.
  json diagnostics(std::uint64_t steps_done) const {
    json d = json::object();
    d["precisions"] = PrecisionsJson<Precisions>::write(*potential.model.precisions);
    d["gibbs_steps"] = gibbs_every ? steps_done / gibbs_every : 0;
    return d;
  }
  /// Makes this copy own its precisions, which the model keeps behind a shared_ptr: every chain gets
  /// its own copy of the target (AnyTarget's copy calls this), and one chain's Gibbs step must neither
  /// race with another chain's thread nor change another chain's potential. A plain copy shares them.
  void own_state() { potential.model.precisions = std::make_shared<Precisions>(*potential.model.precisions); }
};

}  // namespace sgmcmc::run
