#pragma once
// The log-prior a user writes once over a generic scalar, and its gradient. Two shapes:
//   - CoordinatePrior: independent coordinates, `log_prior(k, θ_k)` for each k: the gradient is one
//     Dual<1> per coordinate, d evaluations of a scalar function (what a regression or a net's
//     Gaussian weight prior is; the cheap form);
//   - VectorPrior: any log p(θ), `log_prior(θ)` on a whole vector: the gradient by chunked forward mode
//     (models/autodiff/forward.hpp), ⌈d/W⌉ evaluations of the whole prior, so for a dependent prior of
//     modest d (a hierarchical scale shared by coordinates).
// Both return log p(θ) up to a constant (the potential adds −log p).
#include <concepts>
#include <cstddef>

#include <Eigen/Core>

#include <sgmcmc/models/autodiff/dual.hpp>
#include <sgmcmc/models/autodiff/forward.hpp>

namespace sgmcmc::models::autodiff {

/// `log_prior(k, t)`: log p_k(t) of coordinate k, for t a double and a Dual<1>.
/// @code
/// struct P { template <class T> T log_prior(std::size_t, const T& t) const { return -0.5 * t * t; } };
/// @endcode
template <class L>
concept CoordinatePrior = requires(const L l, std::size_t k, double t, Dual<1> td) {
  { l.log_prior(k, t) } -> std::convertible_to<double>;
  { l.log_prior(k, td) } -> std::same_as<Dual<1>>;
};

/// `log_prior(θ)`: log p(θ) for θ a Vector<double> and a Vector<Dual<chunk>>.
/// @code
/// struct P { template <class T> T log_prior(const Vector<T>& th) const { return -0.5 * th.squaredNorm(); } };
/// @endcode
template <class L>
concept VectorPrior = requires(const L l, const Vector<double>& x, const Vector<Dual<chunk>>& xd) {
  { l.log_prior(x) } -> std::convertible_to<double>;
  { l.log_prior(xd) } -> std::same_as<Dual<chunk>>;
};

/// Either shape (a type offering both is taken as a CoordinatePrior, the cheaper one).
template <class L>
concept LogPrior = CoordinatePrior<L> || VectorPrior<L>;

/// log p(θ).
template <LogPrior L>
double log_prior_value(const L& l, const Eigen::VectorXd& theta) {
  if constexpr (CoordinatePrior<L>) {
    double lp = 0;
    for (Eigen::Index k = 0; k < theta.size(); ++k) lp += l.log_prior(static_cast<std::size_t>(k), theta[k]);
    return lp;
  } else {
    return l.log_prior(theta);
  }
}

/// g += ∇(−log p)(θ); `seeded` is forward mode's scratch (unused by a CoordinatePrior).
template <LogPrior L>
void add_negative_log_prior_gradient(const L& l, const Eigen::VectorXd& theta, Eigen::VectorXd& g, Vector<Dual<chunk>>& seeded) {
  if constexpr (CoordinatePrior<L>) {
    for (Eigen::Index k = 0; k < theta.size(); ++k) g[k] -= l.log_prior(static_cast<std::size_t>(k), Dual<1>::variable(theta[k], 0)).d[0];
  } else {
    add_forward_gradient<chunk>([&](const Vector<Dual<chunk>>& x) { return l.log_prior(x); }, theta, g, -1.0, seeded);
  }
}

}  // namespace sgmcmc::models::autodiff
