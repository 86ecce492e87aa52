#pragma once
// A data target's gradient estimator (`estimator`, docs/config.md), on every data target and with
// every sampler: "minibatch" (the default; Welling & Teh 2011), "control_variate" (Baker, Fearnhead,
// Fox & Nemeth 2019; models/control_variate.hpp) centred at `centre`: "mode" (the default on
// euclidean space: found here by L-BFGS on the full data, modules/optimize/mode.hpp, and charged to
// the run's setup_seconds) or a point, "svrg" (Dubey et al. 2016; models/svrg.hpp) with its centre
// refreshed at the chain's position every `refresh_every` steps (default: an epoch), or "saga" (Dubey
// et al. 2016; models/saga.hpp) with its table of per-example gradients. The record keeps a control
// variate's centre as a point, so a resumed run does not search again and continues with the same
// bits; a search also records its full-data evaluations and the final ‖∇U‖ under `centre_search`.
// SVRG's centre and SAGA's table are each chain's own state (run/targets/data_target.hpp).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/data_target.hpp>

namespace sgmcmc::run::targets {

/// Where a data target lives and what it reads before its estimator: its parameter's size, whether
/// L-BFGS may search its space for a mode (euclidean), and its Gibbs step (0: none or never).
struct DataSpace {
  Eigen::Index dim = 0;
  bool euclidean = true;
  std::uint64_t gibbs_every = 0;
  distributed::GroupSum sum = {};  ///< a sharded target's reduction over its chain group (empty: the whole data here)
  std::optional<output::Parameters> names = {};  ///< the parameter's own named blocks, if the target has any
};

/// A potential's full-data value and gradient added up over a chain group: what the mode search of a
/// sharded target runs on, so every rank follows the same L-BFGS path to the same centre.
template <class P>
struct GroupTotal {
  const P& part;
  distributed::GroupSum sum;
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R&) const { exact_gradient(x, g); }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    part.exact_gradient(x, g);
    sum(g);
  }
  double value(const Eigen::VectorXd& x) const { return sum(part.value(x)); }
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const
    requires PotentialWithValueAndGradient<P>
  {
    const double u = part.value_and_gradient(x, g);
    sum(g);
    return sum(u);
  }
};

/// The most numbers SAGA's table may hold per chain when the model offers no scalar table (1 GiB of
/// doubles): past it the run is refused before it exhausts the machine's memory.
inline constexpr std::uint64_t saga_table_limit = std::uint64_t{1} << 27;

/// Wraps the minibatch potential `base` of a data target in the estimator the section asks for and
/// makes the target's choice (make_choice), recording `estimator` (and its fields) in `resolved`.
template <models::DataModel M>
TargetChoice make_estimated_choice(Fields& f, const std::string& name, models::Minibatch<M> base, json resolved,
                                   const DataSpace& space) {
  if constexpr (!GibbsModel<M>) read_gibbs_every(f, name, false);
  const Eigen::Index dim = space.dim;
  // N over the chain group's shards (the sum is collective: every rank of the group parses the config).
  const auto examples = static_cast<std::uint64_t>(space.sum(static_cast<double>(base.size())));
  bool independent_batches = base.sampling == models::Sampling::with_replacement;
  using Estimator = GradientFacts::Estimator;
  std::optional<Eigen::VectorXd> start;
  if constexpr (models::ModelWithStart<M>) start = base.model.start();
  const auto choice = [&]<class E>(E estimator, Estimator kind, std::optional<Eigen::VectorXd> centre = std::nullopt) {
    E copy = estimator;  // the tuner's batch-size arms (TargetChoice::with_batch_size) start from it
    TargetChoice c = make_choice(f, name, DataTarget<E>{std::move(estimator), space.gibbs_every, dim, space.sum}, std::move(resolved),
                                 space.euclidean ? std::optional<Eigen::Index>(dim) : std::nullopt, space.names);
    c.with_batch_size = [copy = std::move(copy), gibbs = space.gibbs_every, dim, sum = space.sum, sigma = c.gradient.added_noise_sd,
                         resolved = c.resolved](std::uint64_t n) {
      E e = copy;
      models::minibatch_of(e).batch_size = static_cast<std::size_t>(n);
      json r = resolved;
      r["batch_size"] = n;
      if constexpr (requires { e.refresh_every; })  // svrg: an epoch by default, at the new batch size
        if (e.refresh_every == 0) r["refresh_every"] = e.period();
      return Rebatched{AnyTarget(DataTarget<E>{std::move(e), gibbs, dim, sum}, sigma), std::move(r)};
    };
    c.examples = examples;
    c.gradient.estimator = kind;
    c.gradient.independent_batches = independent_batches;
    c.gradient.gibbs_every = space.gibbs_every;
    c.gradient.centre = std::move(centre);
    c.start = start;
    return c;
  };
  const std::string estimator = f.string("estimator", "minibatch");
  resolved["estimator"] = estimator;
  if (estimator != "svrg" && f.find("refresh_every"))
    fail(f.at("refresh_every"), fmt::format("only the svrg estimator refreshes (estimator is {})", printable(estimator)));
  if (estimator != "control_variate" && f.find("centre")) {
    const std::string why = estimator == "svrg" ? "svrg's centre is the chain's own position (give refresh_every instead)"
                                                : fmt::format("only the control_variate estimator has a centre (estimator is {})", printable(estimator));
    fail(f.at("centre"), why);
  }
  if (estimator == "minibatch") return choice(std::move(base), Estimator::minibatch);
  if (estimator == "svrg") {
    const std::uint64_t epoch = std::max<std::uint64_t>(1, base.size() / base.batch_size);
    const std::uint64_t every = f.count("refresh_every", epoch, 1);
    resolved["refresh_every"] = every;
    // Not given: 0, an epoch at whatever batch size the estimator runs with (the same m here).
    return choice(models::Svrg<M>(std::move(base), f.find("refresh_every") ? every : 0), Estimator::svrg);
  }
  if (estimator == "saga") {
    // SAGA's estimate is unbiased only for a batch drawn independently of its table. Without
    // replacement a step's batch is the examples whose entries are the oldest, and the estimate carries
    // a delayed force that acts as friction without its noise: the chain runs cold (docs/config.md).
    // So saga draws with replacement: the default here, whatever the target's, and the other order
    // refused when asked for (a record written under the old rule included: its resume is refused).
    if (base.sampling != models::Sampling::with_replacement) {
      if (const json* w = f.find("with_replacement"); w && *w == false)
        fail(f.at("with_replacement"),
             "the saga estimator draws its batches with replacement: without replacement a step's batch is the examples whose "
             "table entries are the oldest, not independent of the table, and SAGA's gradient is biased (the chain runs cold, "
             "docs/config.md); set \"with_replacement\": true or leave it out, or use svrg (a record written so, before saga drew "
             "with replacement, cannot be resumed: run it again)");
      base.sampling = models::Sampling::with_replacement;
      resolved["with_replacement"] = true;
      independent_batches = true;
    }
    const std::uint64_t numbers = models::Saga<M>::table_size(base.size(), dim);
    if (numbers > saga_table_limit)
      fail(f.at("estimator"), fmt::format("saga's table of per-example gradients would hold {} × {} = {} numbers ({:.1f} GiB) per chain: "
                                          "only generalised linear models (logistic) keep one number per example; use svrg or "
                                          "control_variate here",
                                          base.size(), dim, numbers, static_cast<double>(numbers) * 8 / (1 << 30)));
    return choice(models::Saga<M>(std::move(base)), Estimator::saga);
  }
  if (estimator != "control_variate")
    fail(f.at("estimator"), fmt::format("expected minibatch, control_variate, svrg or saga, got \"{}\"", printable(estimator)));
  Eigen::VectorXd centre;
  const json* c = f.find("centre");
  if (!c || (c->is_string() && *c == "mode")) {
    if (!space.euclidean)
      fail(f.at("centre"), fmt::format("{}the mode search (L-BFGS) runs on euclidean space and target '{}' lives on a manifold: give a "
                                       "centre point on it, or use svrg",
                                       c ? "" : "required field is missing: ", name));
    optimize::Mode mode;
    // The search needs U; a model with a gradient alone (a Python model without value) gives a point.
    if constexpr (!PotentialWithValue<models::Minibatch<M>>) {
      fail(f.at("centre"), fmt::format("{}the mode search (L-BFGS) needs the model's value U, which target '{}' does not give: give a "
                                       "centre point, or use svrg", c ? "" : "required field is missing: ", name));
    } else {
      try {
        mode = optimize::find_mode(GroupTotal<models::Minibatch<M>>{base, space.sum}, start.value_or(Eigen::VectorXd::Zero(dim)));
      } catch (const Error& e) {
        fail(f.at("centre"), fmt::format("{}; give a centre point instead", e.what()));
      }
    }
    centre = std::move(mode.x);
    resolved["centre_search"] = {{"method", "lbfgs"}, {"evaluations", mode.evaluations}, {"gradient_norm", mode.gradient_norm}};
  } else if (c->is_string()) {
    fail(f.at("centre"), fmt::format("expected \"mode\" or a point of {} numbers, got {}", dim, describe(*c)));
  } else {
    centre = as_vector(*c, f.at("centre"), dim);
    // A record's own search, carried over on resume.
    if (const json* s = f.find("centre_search")) resolved["centre_search"] = *s;
  }
  resolved["centre"] = vector_json(centre);
  auto at = models::ControlVariate<M>::at(std::move(base), centre);
  return choice(std::move(at), Estimator::control_variate, std::move(centre));
}

}  // namespace sgmcmc::run::targets
