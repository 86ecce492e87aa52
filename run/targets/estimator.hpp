#pragma once
// A data target's gradient estimator (`estimator`, docs/config.md): "minibatch" (the default; Welling &
// Teh 2011) or "control_variate" (Baker, Fearnhead, Fox & Nemeth 2019; models/control_variate.hpp)
// centred at `centre`: "mode" (the default: found here by L-BFGS on the full data,
// modules/optimize/mode.hpp, and charged to the run's setup_seconds) or a point. The record keeps the
// centre as a point, so a resumed run does not search again and continues with the same bits; a
// search also records its full-data evaluations and the final ‖∇U‖ under `centre_search`.
#include <string>
#include <utility>

#include <fmt/format.h>

#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>
#include <sgmcmc/run/targets/common.hpp>

namespace sgmcmc::run::targets {

/// Wraps the minibatch potential `base` of a data target in the estimator the section asks for and
/// makes the target's choice (make_choice), recording `estimator` (and `centre`) in `resolved`.
template <models::DataModel M>
TargetChoice make_estimated_choice(Fields& f, const std::string& name, models::Minibatch<M> base, json resolved,
                                   Eigen::Index dim) {
  const std::string estimator = f.string("estimator", "minibatch");
  if (estimator == "minibatch") {
    if (f.find("centre")) fail(f.at("centre"), "only the control_variate estimator has a centre (estimator is minibatch)");
    resolved["estimator"] = estimator;
    return make_choice(f, name, std::move(base), std::move(resolved), dim);
  }
  if (estimator != "control_variate")
    fail(f.at("estimator"), fmt::format("expected minibatch or control_variate, got \"{}\"", printable(estimator)));
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
