#pragma once
// SVRG-LD's gradient (Dubey, Reddi, Póczos, Smola, Xing & Williamson 2016, "Variance reduction in
// stochastic gradient Langevin dynamics", Alg. 1): the control-variate gradient of
// models/control_variate.hpp whose centre θ̃ is the chain's own position, refreshed every m steps (an
// epoch, m = N/n, by default), each refresh one full-data pass. No mode is needed; between refreshes
// the estimator is unbiased as the control variate is, and its noise grows with the distance the chain
// has moved since the refresh.
//
// The centre is the chain's state, not the potential's configuration: it is set at the first gradient
// (the chain's first evaluation point) and moved by the driver's after_step hook
// (PotentialWithAfterStep) after steps m, 2m, ...; a resumed chain restores it (run/targets/estimator.hpp)
// and recomputes the full gradient there with the same code, so it continues with the same bits.
#include <algorithm>
#include <cstdint>

#include <Eigen/Core>

#include <sgmcmc/models/control_variate.hpp>

namespace sgmcmc::models {

template <DataModel M>
struct Svrg {
  /// The estimator; its centre is meaningful once `centred`.
  mutable ControlVariate<M> cv;
  std::uint64_t refresh_every = 0;  ///< m; 0: an epoch, max(1, N/n)
  mutable bool centred = false;

  explicit Svrg(Minibatch<M> base, std::uint64_t every = 0) : cv{std::move(base), {}, {}}, refresh_every(every) {}

  std::size_t size() const { return cv.size(); }
  std::uint64_t period() const {
    return refresh_every ? refresh_every : std::max<std::uint64_t>(1, cv.base.size() / cv.base.batch_size);
  }

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    if (!centred) cv.recentre(x), centred = true;  // the epoch's first centre: the chain's first point
    cv.gradient(x, g, rng);
  }
  /// After step t (1-based): a new centre at x after steps m, 2m, ...
  template <class R>
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const R&) {
    if (t % period() == 0) cv.recentre(x), centred = true;
  }

  double value(const Eigen::VectorXd& x) const
    requires requires { cv.value(x); }
  {
    return cv.value(x);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { cv.exact_gradient(x, g); }
};

template <DataModel M>
Minibatch<M>& minibatch_of(Svrg<M>& e) { return e.cv.base; }
template <DataModel M>
const Minibatch<M>& minibatch_of(const Svrg<M>& e) { return e.cv.base; }

}  // namespace sgmcmc::models
