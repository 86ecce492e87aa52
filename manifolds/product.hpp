#pragma once
// Products of manifolds (docs/math.md#products): M_1 × … × M_k with the product metric. A point
// is the concatenation of the factors' points; projection and flow act blockwise, with the same t in
// every block; m = Σ m_i; the Hausdorff measure and the uniform law are the products of the factors'.
//
// - `Product<Ms...>`: factors fixed at compile time, e.g. the torus `Product<Sphere, Sphere>` of the
//   SGGMC two-vMF-mixture posterior (Liu, Zhu & Song 2016, §5.2).
// - `Power<M>`: K copies of one manifold, K at run time, e.g. K topics on a sphere (spherical admixture:
//   the columns of an n×K matrix, which the column-major layout makes contiguous blocks).
// - `DynamicProduct` (dynamic_product.hpp): factors chosen at run time, for JSON configs.
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {


template <BlockManifold... Ms>
  requires(sizeof...(Ms) >= 1)
struct Product {
  using Point = Eigen::VectorXd;
  std::tuple<Ms...> factors;

  Product() = default;
  explicit Product(Ms... ms) : factors(std::move(ms)...) {}

  static constexpr std::size_t size() { return sizeof...(Ms); }
  template <std::size_t I>
  const auto& factor() const { return std::get<I>(factors); }
  /// Where factor I's block starts in a point.
  template <std::size_t I>
  Eigen::Index offset() const {
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      return (Eigen::Index{0} + ... + std::get<J>(factors).ambient_size());
    }(std::make_index_sequence<I>{});
  }

  Eigen::Index ambient_size() const {
    return std::apply([](const auto&... f) { return (Eigen::Index{0} + ... + f.ambient_size()); }, factors);
  }
  Eigen::Index intrinsic_dim() const {
    return std::apply([](const auto&... f) { return (Eigen::Index{0} + ... + f.intrinsic_dim()); }, factors);
  }

  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    for_each_block([&](const auto& f, Eigen::Index off, Eigen::Index len) {
      f.project(x.segment(off, len), v.segment(off, len));
    });
  }
  /// Every factor flows for the same time t; returns the total number of reflections.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    std::uint64_t nref = 0;
    for_each_block([&](const auto& f, Eigen::Index off, Eigen::Index len) {
      nref += f.flow(x.segment(off, len), v.segment(off, len), t);
    });
    return nref;
  }
  /// The fused sweep, factor by factor (ManifoldWithFusedSweep): each factor's own flow_kick_flow on its
  /// block (the plain sequence when it has none), with the chunk kick's indices offset to the block.
  /// The blocks come in order, so the kick still sees consecutive chunks covering [0, N).
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
    std::uint64_t nref = 0;
    for_each_block([&](const auto& f, Eigen::Index off, Eigen::Index len) {
      const auto block_kick = [&](Eigen::Index b, Eigen::Index e) { kick(off + b, off + e); };
      nref += sgmcmc::flow_kick_flow(f, x.segment(off, len), v.segment(off, len), t1, ChunkKick(block_kick), t2);
    });
    return nref;
  }
  /// The largest of the factors' constraint violations; infinite for a vector of the wrong size.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != ambient_size()) return std::numeric_limits<double>::infinity();
    double d = 0.0;
    for_each_block([&](const auto& f, Eigen::Index off, Eigen::Index len) {
      d = std::max(d, static_cast<double>(f.distance_to(x.segment(off, len))));
    });
    return d;
  }
  /// Independent points of the factors: uniform on the product when each factor's is uniform.
  template <class R>
  Point random_point(R& rng) const {
    Point x(ambient_size());
    for_each_block([&](const auto& f, Eigen::Index off, Eigen::Index len) { x.segment(off, len) = f.random_point(rng); });
    return x;
  }

  /// Calls fn(factor, offset, length) for each factor in order.
  template <class F>
  void for_each_block(F&& fn) const {
    Eigen::Index off = 0;
    std::apply([&](const auto&... f) { ((fn(f, off, f.ambient_size()), off += f.ambient_size()), ...); }, factors);
  }
};

/// M^K: K copies of one manifold, K chosen at run time. Block i is coordinates
/// [i·N, (i+1)·N) with N = factor.ambient_size(); for Power<Sphere> these are the columns of an n×K
/// matrix in column-major order, each flowed with its own speed α_k (docs/math.md#sphere, K spheres).
template <BlockManifold M>
struct Power {
  using Point = Eigen::VectorXd;
  M factor{};
  Eigen::Index copies = 1;

  Power() = default;
  Power(M m, Eigen::Index k) : factor(std::move(m)), copies(k) { require(k >= 1, "power: copies must be at least 1"); }

  Eigen::Index offset(Eigen::Index i) const { return i * factor.ambient_size(); }
  Eigen::Index ambient_size() const { return copies * factor.ambient_size(); }
  Eigen::Index intrinsic_dim() const { return copies * factor.intrinsic_dim(); }

  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    const Eigen::Index len = factor.ambient_size();
    for (Eigen::Index i = 0; i < copies; ++i) factor.project(x.segment(i * len, len), v.segment(i * len, len));
  }
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    const Eigen::Index len = factor.ambient_size();
    std::uint64_t nref = 0;
    for (Eigen::Index i = 0; i < copies; ++i) nref += factor.flow(x.segment(i * len, len), v.segment(i * len, len), t);
    return nref;
  }
  /// The fused sweep copy by copy, the chunk kick offset to each block (as Product's).
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
    const Eigen::Index len = factor.ambient_size();
    std::uint64_t nref = 0;
    for (Eigen::Index i = 0; i < copies; ++i) {
      const Eigen::Index off = i * len;
      const auto block_kick = [&](Eigen::Index b, Eigen::Index e) { kick(off + b, off + e); };
      nref += sgmcmc::flow_kick_flow(factor, x.segment(off, len), v.segment(off, len), t1, ChunkKick(block_kick), t2);
    }
    return nref;
  }
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != ambient_size()) return std::numeric_limits<double>::infinity();
    const Eigen::Index len = factor.ambient_size();
    double d = 0.0;
    for (Eigen::Index i = 0; i < copies; ++i)
      d = std::max(d, static_cast<double>(factor.distance_to(x.segment(i * len, len))));
    return d;
  }
  template <class R>
  Point random_point(R& rng) const {
    const Eigen::Index len = factor.ambient_size();
    Point x(ambient_size());
    for (Eigen::Index i = 0; i < copies; ++i) x.segment(i * len, len) = factor.random_point(rng);
    return x;
  }
};

static_assert(BlockManifold<Euclidean>);
static_assert(BlockManifold<Product<Euclidean, Euclidean>>);  // products nest
static_assert(BlockManifold<Power<Euclidean>>);
static_assert(ManifoldWithFusedSweep<Product<Euclidean, Euclidean>> && ManifoldWithFusedSweep<Power<Euclidean>>);

}  // namespace sgmcmc
