#pragma once
// A data target in the run layer: a gradient estimator over the minibatch base (models::Minibatch,
// ControlVariate, Svrg or Saga; run/targets/estimator.hpp picks it) plus, for a model with prior
// precisions, the Gibbs step on them (run/targets/gibbs.hpp). What the chain carries between steps —
// SVRG's centre, SAGA's table, the precisions — is the target's state (AnyTarget's TargetWithState):
// the driver's after_step hook moves it, a run record keeps it under the chain's `target`
// (docs/run-format.md), and a resumed chain restores it and continues with the same bits. A target
// with none of these has no state, as before.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/targets/gibbs.hpp>

namespace sgmcmc::run {

/// An estimator's own state to and from a run record, as keys of the chain's target state:
/// `write(e, j)` adds them (none yet: nothing), `read(e, f, dim)` takes them from the fields (absent:
/// back to the unfilled start), `diagnostics(e, steps, j)` adds per-chain counts. The minibatch and
/// control-variate estimators hold no state (a control variate's centre is configuration, in the
/// target's record).
template <class E>
struct EstimatorState {
  static constexpr bool stateful = false;
  static constexpr bool one_shard = false;  ///< the state written is one shard's only (see Saga)
};

template <models::DataModel M>
struct EstimatorState<models::Svrg<M>> {
  static constexpr bool stateful = true;
  static constexpr bool one_shard = false;  // the centre is the chain's position, the same on every rank
  static void write(const models::Svrg<M>& e, json& j) {
    if (e.centred) j["centre"] = vector_json(e.cv.centre);
  }
  static void read(models::Svrg<M>& e, Fields& f, Eigen::Index dim) {
    e.centred = false;
    if (!f.find("centre")) return;
    const Eigen::VectorXd centre = as_vector(f.get("centre"), f.at("centre"), dim);
    if (!centre.allFinite()) fail(f.at("centre"), "expected finite numbers");
    e.cv.recentre(centre);  // the same code as the refresh: the same bits
    e.centred = true;
  }
  static void diagnostics(const models::Svrg<M>& e, std::uint64_t steps_done, json& j) {
    j["svrg_refreshes"] = steps_done / e.period();
  }
};

template <models::DataModel M>
struct EstimatorState<models::Saga<M>> {
  static constexpr bool stateful = true;
  /// On sharded data each rank's table holds its own examples' entries (zeros elsewhere) and its own
  /// part of A; the record keeps the reporting rank's alone, so it cannot restore the others.
  static constexpr bool one_shard = true;
  /// {"saga_table": ψ or the d × N entries column by column, "saga_sum": A}. A is kept, not recomputed
  /// from the table: its running sum has rounding of its own, and the resumed chain must add to it.
  static void write(const models::Saga<M>& e, json& j) {
    if (!e.filled()) return;
    j["saga_table"] = vector_json(e.table.reshaped());
    j["saga_sum"] = vector_json(e.sum);
  }
  static void read(models::Saga<M>& e, Fields& f, Eigen::Index dim) {
    e.table.resize(0, 0);
    if (!f.find("saga_table")) {
      if (f.find("saga_sum")) fail(f.at("saga_sum"), "given without saga_table");
      return;
    }
    const auto N = static_cast<Eigen::Index>(e.size());
    const auto rows = models::Saga<M>::scalar_table ? N : dim;
    const auto cols = models::Saga<M>::scalar_table ? Eigen::Index{1} : N;
    const Eigen::VectorXd flat = as_vector(f.get("saga_table"), f.at("saga_table"), rows * cols);
    Eigen::VectorXd sum = as_vector(f.get("saga_sum"), f.at("saga_sum"), dim);
    if (!flat.allFinite()) fail(f.at("saga_table"), "expected finite numbers");
    if (!sum.allFinite()) fail(f.at("saga_sum"), "expected finite numbers");
    e.table = flat.reshaped(rows, cols);
    check_sum(e, sum, f.at("saga_sum"));
    e.sum = std::move(sum);
  }
  /// A = Σ_i a_i recomputed from the table must agree with the saved A: an edited table or sum would
  /// bias the chain for good (every later gradient adds to A). The saved A is a running sum with its own
  /// rounding (about 1e-16 relative per update), so they agree to 1e-6 of the scale Σ_i |ψ_i| x_i
  /// (a GLM's table) or Σ_i |a_i| (any other) — far above rounding, far below any edit that matters.
  static void check_sum(const models::Saga<M>& e, const Eigen::VectorXd& saved, const std::string& path) {
    const auto N = static_cast<Eigen::Index>(e.size());
    Eigen::VectorXd total = Eigen::VectorXd::Zero(saved.size()), scale = Eigen::VectorXd::Zero(saved.size());
    if constexpr (models::Saga<M>::scalar_table) {
      for (Eigen::Index i = 0; i < N; ++i) {
        e.base.model.add_example_features(static_cast<std::size_t>(i), total, e.table(i, 0));
        e.base.model.add_example_features(static_cast<std::size_t>(i), scale, std::abs(e.table(i, 0)));
      }
    } else {
      total = e.table.rowwise().sum();
      scale = e.table.cwiseAbs().rowwise().sum();
    }
    for (Eigen::Index j = 0; j < saved.size(); ++j) {
      const double bound = 1e-6 * std::max({std::abs(total[j]), std::abs(saved[j]), std::abs(scale[j])});
      if (!(std::abs(total[j] - saved[j]) <= bound))
        fail(fmt::format("{}/{}", path, j), fmt::format("is {:.17g}, but the saga_table's entries add up to {:.17g}: the table or "
                                                       "its sum was edited", saved[j], total[j]));
    }
  }
  static void diagnostics(const models::Saga<M>&, std::uint64_t, json&) {}
};

template <class E>
struct DataTarget {
  using Model = std::remove_cvref_t<decltype(models::minibatch_of(std::declval<const E&>()).model)>;
  static constexpr bool gibbs = GibbsModel<Model>;
  static constexpr bool stateful = gibbs || EstimatorState<E>::stateful;

  E potential;
  std::uint64_t gibbs_every = 0;  ///< a Gibbs step on the prior precisions after steps k, 2k, ... (0: never)
  Eigen::Index dim = 0;           ///< the parameter's size, checked on restore
  /// A sharded target's reduction (docs/distributed.md): the estimator computes this rank's part of
  /// every sum over examples (models::Shard) and the chain group adds the parts in rank order, so all
  /// ranks of the group hold the same gradient and take the same step. Empty: the data are all here.
  distributed::GroupSum sum = {};

  const Model& model() const { return models::minibatch_of(potential).model; }

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    potential.gradient(x, g, rng);
    sum(g);
  }
  /// The empirical-Fisher variance: the plain minibatch estimator's only (another estimator's noise is
  /// not the batch's spread). Not on a shard: the batch's spread is not a sum of the shards' spreads.
  template <class R>
  void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var, R& rng) const
    requires PotentialWithNoiseEstimate<E>
  {
    if (sum)
      throw Error("empirical_fisher: the minibatch's spread of per-example gradients is not estimated on sharded data "
                  "(distributed.shards > 1); give the sampler a fixed noise_estimate");
    potential.gradient_and_variance(x, g, var, rng);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    potential.exact_gradient(x, g);
    sum(g);
  }
  double value(const Eigen::VectorXd& x) const
    requires PotentialWithValue<E>
  {
    return sum(potential.value(x));
  }
  /// The pointwise log-likelihood over every example (PotentialWithPointwiseLikelihood). A sharded
  /// target's model (models::Shard) holds a part of the examples and has none.
  Eigen::Index examples() const
    requires models::PointwiseLikelihoodModel<Model>
  {
    return static_cast<Eigen::Index>(model().size());
  }
  void log_likelihood(const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> out) const
    requires models::PointwiseLikelihoodModel<Model>
  {
    if constexpr (requires { model().pointwise_log_likelihood(x, out); }) model().pointwise_log_likelihood(x, out);
    else
      for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = model().example_log_likelihood(x, static_cast<std::size_t>(i));
  }

  /// The model's reported scale (ReparametrisedPotential), when it has one.
  Eigen::VectorXd reported(const Eigen::VectorXd& x) const
    requires models::ReparametrisedModel<Model>
  {
    return model().reported(x);
  }
  Eigen::VectorXd sampled(const Eigen::VectorXd& y) const
    requires models::ReparametrisedModel<Model>
  {
    return model().sampled(y);
  }

  /// The driver's hook after step t: the estimator's (SVRG's refresh) first, then the Gibbs step.
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng)
    requires stateful
  {
    if constexpr (PotentialWithAfterStep<E, random::Stream>) potential.after_step(x, t, rng);
    if constexpr (gibbs) gibbs_after_step(model(), gibbs_every, x, t, rng);
  }
  /// {"precisions": {...}} for a Gibbs model, and the estimator's keys; null when there is nothing yet.
  json state() const
    requires stateful
  {
    json j = json::object();
    if constexpr (gibbs) j["precisions"] = PrecisionsJson<PrecisionsOf<Model>>::write(*model().precisions);
    if constexpr (EstimatorState<E>::stateful) EstimatorState<E>::write(potential, j);
    return j.empty() ? json(nullptr) : j;
  }
  /// Restores state(). Absent precisions are allowed only when no Gibbs step ever changed them
  /// (gibbs_every = 0: they are the config's prior_precision).
  void restore(const json* j, const std::string& path)
    requires stateful
  {
    const bool none = !j || j->is_null();
    if constexpr (gibbs)
      if (gibbs_every > 0 && (none || (j->is_object() && !j->contains("precisions"))))
        fail(none ? path : path + "/precisions", "required field is missing (the precisions drawn by the Gibbs steps, gibbs_every > 0)");
    if (none) {
      if constexpr (EstimatorState<E>::stateful) {
        const json nothing = json::object();  // named: Fields keeps a reference to it (a temporary would dangle)
        Fields empty(nothing, path);
        EstimatorState<E>::read(potential, empty, dim);
      }
      return;
    }
    Fields f(*j, path);
    if constexpr (EstimatorState<E>::one_shard)
      if (sum && f.find("saga_table"))
        fail(f.at("saga_table"), "a saga chain on sharded data (distributed.shards > 1) cannot be resumed: the record keeps "
                                 "one shard's table and sum, not the others'. Run it again whole, or use estimator svrg or "
                                 "control_variate, which resume on sharded data");
    if constexpr (gibbs)
      if (const json* p = f.find("precisions")) PrecisionsJson<PrecisionsOf<Model>>::read(*model().precisions, *p, f.at("precisions"));
    if constexpr (EstimatorState<E>::stateful) EstimatorState<E>::read(potential, f, dim);
    f.finish();
  }
  /// Per-chain diagnostics: the current precisions and Gibbs steps done; the estimator's counts.
  json diagnostics(std::uint64_t steps_done) const
    requires stateful
  {
    json d = json::object();
    if constexpr (gibbs) {
      d["precisions"] = PrecisionsJson<PrecisionsOf<Model>>::write(*model().precisions);
      d["gibbs_steps"] = gibbs_every ? steps_done / gibbs_every : 0;
    }
    if constexpr (EstimatorState<E>::stateful) EstimatorState<E>::diagnostics(potential, steps_done, d);
    return d;
  }
  /// Makes this copy own its precisions, which the model keeps behind a shared_ptr: every chain gets
  /// its own copy of the target (AnyTarget's copy calls this), and one chain's Gibbs step must neither
  /// race with another chain's thread nor change another chain's potential. The estimators' state is
  /// held by value.
  void own_state()
    requires stateful
  {
    if constexpr (gibbs) {
      auto& p = models::minibatch_of(potential).model.precisions;
      p = std::make_shared<PrecisionsOf<Model>>(*p);
    }
  }
};

}  // namespace sgmcmc::run
