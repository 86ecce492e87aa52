#pragma once
// The gradient of a scalar function of a parameter vector, f: R^d → R written once over a generic scalar,
// by forward mode in chunks (Revels, Lubin & Papamarkou 2016, "Forward-mode automatic differentiation in
// Julia", §3: ForwardDiff's chunk mode): θ is seeded W directions at a time, f runs on Dual<W>
// (models/autodiff/dual.hpp) ⌈d/W⌉ times, and each run gives W partial derivatives. Cost ≈ ⌈d/W⌉·W·(cost
// of f): forward mode suits f with few inputs or a d small next to f's own work (the per-example
// models/autodiff/example_model.hpp, a vector prior). The chunk width is fixed at compile time so the
// tangent's loops unroll; `chunk` is the width measured best (docs/benchmarks.md, "Automatic
// differentiation": at d = 50, 16 against 4, 8 and 32; a narrower chunk runs more passes, a wider one
// carries unused directions through every operation).
#include <algorithm>
#include <cstddef>

#include <Eigen/Core>

#include <sgmcmc/models/autodiff/dual.hpp>

namespace sgmcmc::models::autodiff {

/// A column vector of scalars T: what the user's generic functions of θ take.
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

/// The default chunk width W.
inline constexpr int chunk = 16;

/// g += scale · ∇f(θ), f called as f(const Vector<Dual<W>>&) → Dual<W>; returns f(θ). `seeded` is
/// scratch (θ as Duals), reused across calls: no allocation once it has θ's size.
template <int W, class F>
double add_forward_gradient(const F& f, const Eigen::VectorXd& theta, Eigen::VectorXd& g, double scale, Vector<Dual<W>>& seeded) {
  const Eigen::Index d = theta.size();
  if (seeded.size() != d) seeded.resize(d);
  for (Eigen::Index k = 0; k < d; ++k) seeded[k] = Dual<W>(theta[k]);
  if (d == 0) return f(static_cast<const Vector<Dual<W>>&>(seeded)).v;
  double value = 0;
  for (Eigen::Index begin = 0; begin < d; begin += W) {
    const Eigen::Index width = std::min<Eigen::Index>(W, d - begin);
    for (Eigen::Index j = 0; j < width; ++j) seeded[begin + j].d[j] = 1;
    const Dual<W> r = f(static_cast<const Vector<Dual<W>>&>(seeded));
    for (Eigen::Index j = 0; j < width; ++j) {
      g[begin + j] += scale * r.d[j];
      seeded[begin + j].d[j] = 0;
    }
    value = r.v;  // the same in every pass
  }
  return value;
}

}  // namespace sgmcmc::models::autodiff
