#pragma once
// The recipe's correction term Γ_i(z) = Σ_j ∂_j (D_ij(z) + Q_ij(z)) (Ma, Chen & Fox 2015, Eq. 3), by
// forward-mode automatic differentiation (Eigen's unsupported AutoDiffScalar) or by central finite
// differences, and the "fields" objects that give D(z), Q(z) and Γ(z) to the generic sampler.
//
// A user writes D and Q as callables z ↦ matrix. For autodiff they must be templates over the scalar
// (a generic lambda taking `const auto& z` and building `Eigen::Matrix<typename Z::Scalar, -1, -1>`);
// finite differences need only doubles. One autodiff pass seeds all n directions at once, so Γ costs
// one evaluation of D + Q over n-vector dual numbers.
#include <cmath>
#include <concepts>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::recipe {

using Dual = Eigen::AutoDiffScalar<Eigen::VectorXd>;
using DualVector = Eigen::Matrix<Dual, Eigen::Dynamic, 1>;
using DualMatrix = Eigen::Matrix<Dual, Eigen::Dynamic, Eigen::Dynamic>;

/// z as dual numbers with ∂z_i/∂z_j = δ_ij.
inline DualVector seed(const Eigen::VectorXd& z) {
  const Eigen::Index n = z.size();
  DualVector zd(n);
  for (Eigen::Index i = 0; i < n; ++i) zd[i] = Dual(z[i], n, i);
  return zd;
}

/// Σ_j ∂_j M_ij from a matrix of dual numbers (an entry that does not depend on z has no derivatives).
inline void divergence(const DualMatrix& m, Eigen::VectorXd& out) {
  out.setZero(m.rows());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (m(i, j).derivatives().size() > j) out[i] += m(i, j).derivatives()[j];
}

/// Γ(z) = ∇·(D + Q) by forward-mode autodiff; `d` and `q` must accept a DualVector.
template <class DF, class QF>
void gamma_autodiff(const DF& d, const QF& q, const Eigen::VectorXd& z, Eigen::VectorXd& out) {
  const DualVector zd = seed(z);
  const DualMatrix m = DualMatrix(d(zd)) + DualMatrix(q(zd));
  divergence(m, out);
}

/// Γ(z) = ∇·(D + Q) by central differences with step δ_j = rel·max(1, |z_j|): error O(δ²) + O(ε/δ);
/// rel = 6e-6 ≈ ε^{1/3} balances the two (about 1e-10 for smooth fields of unit scale).
template <class DF, class QF>
void gamma_finite_difference(const DF& d, const QF& q, const Eigen::VectorXd& z, Eigen::VectorXd& out,
                             double rel = 6e-6) {
  const Eigen::Index n = z.size();
  out.setZero(n);
  Eigen::VectorXd zp = z, zm = z;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double dj = rel * std::max(1.0, std::abs(z[j]));
    zp[j] = z[j] + dj, zm[j] = z[j] - dj;
    const double width = zp[j] - zm[j];  // the step actually taken after rounding
    const Eigen::MatrixXd mp = Eigen::MatrixXd(d(zp)) + Eigen::MatrixXd(q(zp));
    const Eigen::MatrixXd mm = Eigen::MatrixXd(d(zm)) + Eigen::MatrixXd(q(zm));
    out += (mp.col(j) - mm.col(j)) / width;
    zp[j] = z[j], zm[j] = z[j];
  }
}

/// A field z ↦ matrix (D or Q) that autodiff can differentiate: callable on a vector of dual numbers,
/// giving a matrix of them — a template over the scalar (`[](const auto& z) { using T = typename
/// std::decay_t<decltype(z)>::Scalar; Eigen::Matrix<T, -1, -1> m(...); ... }`). A field written for
/// doubles only is not one: use recipe::FiniteDifference{} for it.
/// (The result's scalar is what is asked: a field for doubles is callable on dual numbers too — Eigen
/// converts them without a constraint, and fails only inside the conversion.)
template <class F>
concept ScalarGenericField = requires(const F f, const DualVector& z) {
  requires std::same_as<typename std::decay_t<decltype(f(z))>::Scalar, Dual>;
};

template <class>
inline constexpr bool always_false = false;

/// How Γ is obtained.
struct Autodiff {};                      ///< forward-mode autodiff of D + Q (the default)
struct FiniteDifference { double rel = 6e-6; };  ///< central differences of D + Q
template <class F> struct UserGamma { F f; };     ///< f(z) returns Γ(z) (an analytic correction)

/// D(z), Q(z) given as callables, with Γ by `GammaMethod`. The generic sampler calls `evaluate`.
/// @code
///   auto d = [](const auto& z) { using T = typename std::decay_t<decltype(z)>::Scalar; ... };
///   recipe::Fields f{d, q};                                  // Γ by autodiff
///   recipe::Fields f2{d, q, recipe::FiniteDifference{}};     // Γ by finite differences
/// @endcode
template <class DF, class QF, class GammaMethod = Autodiff>
struct Fields {
  DF d;
  QF q;
  GammaMethod gamma{};

  void evaluate(const Eigen::VectorXd& z, Eigen::MatrixXd& dm, Eigen::MatrixXd& qm, Eigen::VectorXd& g) const {
    dm = d(z);
    qm = q(z);
    if constexpr (std::same_as<GammaMethod, Autodiff>) {
      // Said here, before Eigen's AutoDiffScalar errors from deep inside the product would be.
      if constexpr (!ScalarGenericField<DF> || !ScalarGenericField<QF>)
        static_assert(always_false<DF>, "recipe::Fields: for Γ by autodiff (the default), D and Q must be generic over the "
                                        "scalar (take `const auto& z` and build Eigen::Matrix<typename Z::Scalar, -1, -1>: "
                                        "recipe::ScalarGenericField), or use finite differences: "
                                        "recipe::Fields{d, q, recipe::FiniteDifference{}}");
      else
        gamma_autodiff(d, q, z, g);
    } else if constexpr (std::same_as<GammaMethod, FiniteDifference>) {
      gamma_finite_difference(d, q, z, g, gamma.rel);
    } else {
      g = gamma.f(z);
    }
  }
};
template <class DF, class QF> Fields(DF, QF) -> Fields<DF, QF, Autodiff>;
template <class DF, class QF, class G> Fields(DF, QF, G) -> Fields<DF, QF, G>;

/// Constant D and Q (the CLI's `recipe` sampler): Γ = 0.
struct Constant {
  Eigen::MatrixXd d, q;
  void evaluate(const Eigen::VectorXd& z, Eigen::MatrixXd& dm, Eigen::MatrixXd& qm, Eigen::VectorXd& g) const {
    dm = d;
    qm = q;
    g.setZero(z.size());
  }
};

}  // namespace sgmcmc::recipe
