#pragma once
// Euclidean space R^n: the flat case of the Manifold interface (DESIGN.md §4.3, first row).
// Λ(x) = I and the geodesic flow is the straight line, so every geodesic sampler run on Euclidean is
// exactly its flat textbook form (SGGMC → SGHMC, gSGNHT → SGNHT, geodesic SGLD → SGLD).
#include <cstdint>
#include <limits>
#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

struct Euclidean {
  using Point = Eigen::VectorXd;
  Eigen::Index n = 1;

  Euclidean() = default;
  explicit Euclidean(Eigen::Index dim) : n(dim) { require(dim >= 1, "euclidean: dim must be at least 1"); }

  Eigen::Index ambient_size() const { return n; }
  Eigen::Index intrinsic_dim() const { return n; }
  void project(Eigen::Ref<const Eigen::VectorXd> /*x*/, Eigen::Ref<Eigen::VectorXd> /*v*/) const {}
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    x += t * v;
    return 0;
  }
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    return x.size() == n && x.allFinite() ? 0.0 : std::numeric_limits<double>::infinity();
  }
  // There is no uniform law on R^n: a standard normal point is the conventional default start.
  template <class R>
  Point random_point(R& rng) const {
    Point x(n);
    rng.normals(x);
    return x;
  }
};

static_assert(Manifold<Euclidean>);

}  // namespace sgmcmc
