#pragma once
// A product of manifolds whose factors are chosen at run time (docs/math.md#products), for configurations read
// from JSON: `{"name": "product", "factors": [{"name": "sphere", "n": 3}, {"name": "simplex", "n": 4}]}`
// (docs/config.md). Each factor is an AnyManifold — a shipped manifold or a user's — and every
// operation is one indirect call per factor on its block (no allocation for manifolds whose operations
// take Eigen::Ref, as the shipped ones do). For factors known at compile time prefer Product<...>
// (product.hpp), which inlines everything.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/manifolds/any_manifold.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/product.hpp>
#include <sgmcmc/manifolds/simplex.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/manifolds/stiefel.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

class DynamicProduct {
 public:
  using Point = Eigen::VectorXd;
  using Factor = AnyManifold;  ///< any manifold: a shipped one, or a user's

  DynamicProduct() : DynamicProduct(std::vector<Factor>{Factor{Euclidean{}}}) {}
  explicit DynamicProduct(std::vector<Factor> factors) : factors_(std::move(factors)) {
    require(!factors_.empty(), "product: factors must not be empty");
    offsets_.reserve(factors_.size() + 1);
    offsets_.push_back(0);
    for (const auto& f : factors_)
      offsets_.push_back(offsets_.back() + f.ambient_size());
  }

  std::size_t size() const { return factors_.size(); }
  const Factor& factor(std::size_t i) const { return factors_.at(i); }
  const std::vector<Factor>& factors() const { return factors_; }
  /// Where factor i's block starts in a point; offset(size()) is the ambient size.
  Eigen::Index offset(std::size_t i) const { return offsets_.at(i); }

  Eigen::Index ambient_size() const { return offsets_.back(); }
  Eigen::Index intrinsic_dim() const {
    Eigen::Index m = 0;
    for (const auto& f : factors_) m += f.intrinsic_dim();
    return m;
  }

  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      factors_[i].project(x.segment(off, len), v.segment(off, len));
    }
  }
  /// Every factor flows for the same t; returns the total number of reflections.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    std::uint64_t nref = 0;
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      nref += factors_[i].flow(x.segment(off, len), v.segment(off, len), t);
    }
    return nref;
  }
  /// The fused sweep factor by factor (ManifoldWithFusedSweep), the chunk kick offset to each block
  /// (as Product's): each factor's own flow_kick_flow, or its plain sequence.
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
    std::uint64_t nref = 0;
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      const auto block_kick = [&](Eigen::Index b, Eigen::Index e) { kick(off + b, off + e); };
      nref += factors_[i].flow_kick_flow(x.segment(off, len), v.segment(off, len), t1, ChunkKick(block_kick), t2);
    }
    return nref;
  }
  /// The largest of the factors' constraint violations; infinite for a vector of the wrong size.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != ambient_size()) return std::numeric_limits<double>::infinity();
    double d = 0.0;
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      d = std::max(d, factors_[i].distance_to(x.segment(off, len)));
    }
    return d;
  }
  template <class R>
  Point random_point(R& rng) const {
    Point x(ambient_size());
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      x.segment(off, len) = factors_[i].random_point(rng);
    }
    return x;
  }

 private:
  std::vector<Factor> factors_;
  std::vector<Eigen::Index> offsets_;  ///< size() + 1 entries, from the factors' ambient sizes
};

static_assert(BlockManifold<DynamicProduct> && ManifoldWithFusedSweep<DynamicProduct>);

}  // namespace sgmcmc
