#pragma once
// A posterior mode θ̂ = argmin U by L-BFGS (Liu & Nocedal 1989) on the exact U and ∇U, with Debian's
// LBFGSpp (liblbfgspp-dev, header-only): the centre of the control-variate gradient
// (models/control_variate.hpp; Baker, Fearnhead, Fox & Nemeth 2019 take θ̂ from an optimiser too).
// Each iteration costs one or more full-data passes; the count is returned so that a timing can
// charge the mode to the sampler that uses it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <LBFGS.h>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::optimize {

struct Mode {
  Eigen::VectorXd x;            ///< θ̂
  double value = 0;             ///< U(θ̂)
  double gradient_norm = 0;     ///< ‖∇U(θ̂)‖ at the end
  std::uint64_t evaluations = 0;  ///< full-data (U, ∇U) evaluations, line searches included
};

struct ModeOptions {
  /// Converged when ‖∇U‖ ≤ tolerance · max(1, ‖∇U(x0)‖). Near the target, rounding in U (about 1e-16·|U|)
  /// can stall the line search; a point within `slack` × the target is then accepted as converged.
  double tolerance = 1e-9;
  double slack = 1e3;
  int max_iterations = 1000;
};

/// Minimises U from x0. Throws sgmcmc::Error if L-BFGS ends, or its line search fails, farther than
/// `slack` × the target from a stationary point (no minimum, a non-finite U, too few iterations).
template <class P>
  requires PotentialWithValue<P, Eigen::VectorXd>
Mode find_mode(const P& potential, Eigen::VectorXd x0, const ModeOptions& options = {}) {
  Mode m;
  Eigen::VectorXd g(x0.size());
  potential.exact_gradient(x0, g);
  const double target = options.tolerance * std::max(1.0, g.norm());
  // The best point L-BFGS evaluated, which is where its line search leaves it if it stalls.
  Eigen::VectorXd best = x0;
  double best_value = potential.value(x0), best_norm = g.norm();
  auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    ++m.evaluations;
    double u;
    if constexpr (PotentialWithValueAndGradient<P, Eigen::VectorXd>) {
      u = potential.value_and_gradient(x, grad);
    } else {
      potential.exact_gradient(x, grad);
      u = potential.value(x);
    }
    if (std::isfinite(u) && u <= best_value) best = x, best_value = u, best_norm = grad.norm();
    return u;
  };
  LBFGSpp::LBFGSParam<double> param;
  param.epsilon = target;
  param.epsilon_rel = 0;
  param.max_iterations = options.max_iterations;
  LBFGSpp::LBFGSSolver<double> solver(param);
  double fx = 0;
  std::string stalled;
  try {
    solver.minimize(objective, x0, fx);
  } catch (const std::exception& e) {
    stalled = e.what();
  }
  if (!(best_norm <= options.slack * target))
    throw Error(fmt::format("finding the posterior mode (L-BFGS): {} after {} evaluations with ‖∇U‖ = {:.3g} "
                            "(wanted {:.3g}), U = {:.6g}", stalled.empty() ? "stopped" : stalled, m.evaluations,
                            best_norm, target, best_value));
  m.x = std::move(best);
  m.value = best_value;
  m.gradient_norm = best_norm;
  return m;
}

}  // namespace sgmcmc::optimize
