#pragma once
// A product of manifolds whose factors are chosen at run time (MATH.md §1.5), for configurations read
// from JSON: `{"name": "product", "factors": [{"name": "sphere", "n": 3}, {"name": "simplex", "n": 4}]}`
// (DESIGN.md §5.1). Each factor is a std::variant of the shipped manifolds and every operation is one
// std::visit per factor: no virtual calls, no allocation in project/flow. For factors known at compile
// time prefer Product<...> (product.hpp), which inlines everything.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
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
  using Factor = std::variant<Euclidean, Sphere, Simplex, Stiefel>;

  DynamicProduct() : DynamicProduct(std::vector<Factor>{Factor{Euclidean{}}}) {}
  explicit DynamicProduct(std::vector<Factor> factors) : factors_(std::move(factors)) {
    require(!factors_.empty(), "product: factors must not be empty");
    offsets_.reserve(factors_.size() + 1);
    offsets_.push_back(0);
    for (const auto& f : factors_)
      offsets_.push_back(offsets_.back() + std::visit([](const auto& m) { return m.ambient_size(); }, f));
  }

  std::size_t size() const { return factors_.size(); }
  const Factor& factor(std::size_t i) const { return factors_.at(i); }
  const std::vector<Factor>& factors() const { return factors_; }
  /// Where factor i's block starts in a point; offset(size()) is the ambient size.
  Eigen::Index offset(std::size_t i) const { return offsets_.at(i); }

  Eigen::Index ambient_size() const { return offsets_.back(); }
  Eigen::Index intrinsic_dim() const {
    Eigen::Index m = 0;
    for (const auto& f : factors_) m += std::visit([](const auto& g) { return g.intrinsic_dim(); }, f);
    return m;
  }

  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      std::visit([&](const auto& g) { g.project(x.segment(off, len), v.segment(off, len)); }, factors_[i]);
    }
  }
  /// Every factor flows for the same t; returns the total number of reflections.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    std::uint64_t nref = 0;
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      nref += std::visit([&](const auto& g) -> std::uint64_t { return g.flow(x.segment(off, len), v.segment(off, len), t); },
                         factors_[i]);
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
      nref += std::visit(
          [&](const auto& g) -> std::uint64_t {
            return sgmcmc::flow_kick_flow(g, x.segment(off, len), v.segment(off, len), t1, ChunkKick(block_kick), t2);
          },
          factors_[i]);
    }
    return nref;
  }
  /// The largest of the factors' constraint violations; infinite for a vector of the wrong size.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != ambient_size()) return std::numeric_limits<double>::infinity();
    double d = 0.0;
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      d = std::max(d, std::visit([&](const auto& g) { return g.distance_to(x.segment(off, len)); }, factors_[i]));
    }
    return d;
  }
  template <class R>
  Point random_point(R& rng) const {
    Point x(ambient_size());
    for (std::size_t i = 0; i < factors_.size(); ++i) {
      const Eigen::Index off = offsets_[i], len = offsets_[i + 1] - off;
      std::visit([&](const auto& g) { x.segment(off, len) = g.random_point(rng); }, factors_[i]);
    }
    return x;
  }

 private:
  std::vector<Factor> factors_;
  std::vector<Eigen::Index> offsets_;  ///< size() + 1 entries, from the factors' ambient sizes
};

static_assert(BlockManifold<DynamicProduct> && ManifoldWithFusedSweep<DynamicProduct>);

}  // namespace sgmcmc
