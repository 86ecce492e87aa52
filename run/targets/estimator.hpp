#pragma once
// A data target's gradient estimator (`estimator`, docs/config.md): "minibatch" (the default; Welling &
// Teh 2011), "control_variate" (Baker, Fearnhead, Fox & Nemeth 2019; models/control_variate.hpp)
// centred at `centre`: "mode" (the default: found here by L-BFGS on the full data,
// modules/optimize/mode.hpp, and charged to the run's setup_seconds) or a point, or "svrg" (Dubey et
// al. 2016; models/svrg.hpp) with its centre refreshed at the chain's position every `refresh_every`
// steps (default: an epoch). The record keeps a control variate's centre as a point, so a resumed run
// does not search again and continues with the same bits; a search also records its full-data
// evaluations and the final ‖∇U‖ under `centre_search`. SVRG's centre is each chain's own state, in
// the chain's `target` state in the record.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run {

/// SVRG's potential with the run layer's side of its state (AnyTarget's TargetWithState): the centre
/// to and from a run record, per-chain diagnostics.
template <models::DataModel M>
struct SvrgTarget {
  models::Svrg<M> potential;
  Eigen::Index dim = 0;  ///< the centre's size, checked on restore

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    potential.gradient(x, g, rng);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { potential.exact_gradient(x, g); }
  double value(const Eigen::VectorXd& x) const
    requires PotentialWithValue<models::Minibatch<M>>
  {
    return potential.value(x);
  }
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) { potential.after_step(x, t, rng); }
  /// {"centre": θ̃}, or null before the first gradient.
  json state() const { return potential.centred ? json{{"centre", vector_json(potential.cv.centre)}} : json(nullptr); }
  void restore(const json* j, const std::string& path) {
    if (!j || j->is_null()) {
      potential.centred = false;
      return;
    }
    Fields f(*j, path);
    potential.cv.recentre(as_vector(f.get("centre"), f.at("centre"), dim));
    potential.centred = true;
    f.finish();
  }
  json diagnostics(std::uint64_t steps_done) const { return {{"svrg_refreshes", steps_done / potential.period()}}; }
  void own_state() {}  // the centre is held by value: a copy owns it
};

}  // namespace sgmcmc::run

namespace sgmcmc::run::targets {

/// Wraps the minibatch potential `base` of a data target in the estimator the section asks for and
/// makes the target's choice (make_choice), recording `estimator` (and `centre`) in `resolved`.
template <models::DataModel M>
TargetChoice make_estimated_choice(Fields& f, const std::string& name, models::Minibatch<M> base, json resolved,
                                   Eigen::Index dim) {
  const std::string estimator = f.string("estimator", "minibatch");
  if (estimator == "svrg") {
    if (f.find("centre")) fail(f.at("centre"), "svrg's centre is the chain's own position (give refresh_every instead)");
    const std::uint64_t epoch = std::max<std::uint64_t>(1, base.size() / base.batch_size);
    const std::uint64_t every = f.count("refresh_every", epoch, 1);
    resolved["estimator"] = estimator;
    resolved["refresh_every"] = every;
    return make_choice(f, name, SvrgTarget<M>{models::Svrg<M>(std::move(base), every), dim}, std::move(resolved), dim);
  }
  if (f.find("refresh_every"))
    fail(f.at("refresh_every"), fmt::format("only the svrg estimator refreshes (estimator is {})", printable(estimator)));
  if (estimator == "minibatch") {
    if (f.find("centre")) fail(f.at("centre"), "only the control_variate estimator has a centre (estimator is minibatch)");
    resolved["estimator"] = estimator;
    return make_choice(f, name, std::move(base), std::move(resolved), dim);
  }
  if (estimator != "control_variate")
    fail(f.at("estimator"), fmt::format("expected minibatch, control_variate or svrg, got \"{}\"", printable(estimator)));
  Eigen::VectorXd centre;
  const json* c = f.find("centre");
  if (!c || (c->is_string() && *c == "mode")) {
    optimize::Mode mode;
    try {
      mode = optimize::find_mode(base, Eigen::VectorXd::Zero(dim));
    } catch (const Error& e) {
      fail(f.at("centre"), fmt::format("{}; give a centre point instead", e.what()));
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
  resolved["estimator"] = estimator;
  resolved["centre"] = vector_json(centre);
  return make_choice(f, name, models::ControlVariate<M>::at(std::move(base), std::move(centre)), std::move(resolved), dim);
}

}  // namespace sgmcmc::run::targets
