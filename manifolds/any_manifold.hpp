#pragma once
// A manifold chosen at run time: any type satisfying the Manifold concept, behind one small vtable.
// The run layer builds each sampler once on AnyManifold, so a user's own manifold reaches the CLI by
// registration alone (run/registry.hpp), without recompiling a sampler for it. Each operation is one
// indirect call on whole vectors; the loops inside are the concrete manifold's own, so the cost is a
// few nanoseconds per sub-step, whatever the dimension.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/concepts/random.hpp>

namespace sgmcmc {

/// A reference to any RandomEngine, for the one operation a manifold draws with (`random_point`).
class AnyEngineRef {
 public:
  template <RandomEngine R>
  explicit AnyEngineRef(R& r)
      : engine_(&r),
        normal_([](void* e) { return static_cast<R*>(e)->normal(); }),
        normals_([](void* e, Eigen::Ref<Eigen::VectorXd> out) { static_cast<R*>(e)->normals(out); }),
        uniform_([](void* e) { return static_cast<R*>(e)->uniform(); }),
        below_([](void* e, std::uint64_t n) { return static_cast<R*>(e)->below(n); }) {}
  double normal() { return normal_(engine_); }
  void normals(Eigen::Ref<Eigen::VectorXd> out) { normals_(engine_, out); }
  double uniform() { return uniform_(engine_); }
  std::uint64_t below(std::uint64_t n) { return below_(engine_, n); }

 private:
  void* engine_;
  double (*normal_)(void*);
  void (*normals_)(void*, Eigen::Ref<Eigen::VectorXd>);
  double (*uniform_)(void*);
  std::uint64_t (*below_)(void*, std::uint64_t);
};
static_assert(RandomEngine<AnyEngineRef>);

class AnyManifold {
 public:
  using Point = Eigen::VectorXd;

  AnyManifold() = default;
  /// Wraps a copy of `m`. Points are flat vectors of m.ambient_size() coordinates.
  template <Manifold M>
    requires(!std::same_as<std::decay_t<M>, AnyManifold>)
  AnyManifold(M m) : self_(std::make_shared<const Model<M>>(std::move(m))) {}

  Eigen::Index ambient_size() const { return self_->ambient_size(); }
  Eigen::Index intrinsic_dim() const { return self_->intrinsic_dim(); }
  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const { self_->project(x, v); }
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const { return self_->flow(x, v, t); }
  /// The wrapped manifold's fused sweep (ManifoldWithFusedSweep), or its plain sequence: a fused path
  /// survives type erasure, since the chunk kick is one concrete type.
  std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                               double t2) const {
    return self_->flow_kick_flow(x, v, t1, kick, t2);
  }
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const { return self_->distance_to(x); }
  template <RandomEngine R>
  Point random_point(R& rng) const {
    AnyEngineRef ref(rng);
    return self_->random_point(ref);
  }
  /// The wrapped manifold, if it is an M (for code that needs its own fields, e.g. Stiefel's n and p).
  template <class M>
  const M* get() const {
    const auto* model = dynamic_cast<const Model<M>*>(self_.get());
    return model ? &model->m : nullptr;
  }

 private:
  // Shared and immutable: manifolds are values without mutable state, so chains may share one.
  struct Concept {
    virtual ~Concept() = default;
    virtual Eigen::Index ambient_size() const = 0;
    virtual Eigen::Index intrinsic_dim() const = 0;
    virtual void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const = 0;
    virtual std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const = 0;
    virtual std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                                         double t2) const = 0;
    virtual double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const = 0;
    virtual Point random_point(AnyEngineRef& rng) const = 0;
  };
  template <class M>
  struct Model final : Concept {
    M m;
    explicit Model(M manifold) : m(std::move(manifold)) {}
    Eigen::Index ambient_size() const override { return m.ambient_size(); }
    Eigen::Index intrinsic_dim() const override { return m.intrinsic_dim(); }
    // Points pass as plain vectors where the manifold takes them so (a user's manifold may declare
    // `Point&`): a Ref over a whole VectorXd is copied into one only for such a manifold.
    void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const override {
      if constexpr (BlockManifold<M>) {
        m.project(x, v);
      } else {
        Point xx = x, vv = v;
        m.project(xx, vv);
        v = vv;
      }
    }
    std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const override {
      if constexpr (BlockManifold<M>) {
        return m.flow(x, v, t);
      } else {
        Point xx = x, vv = v;
        const std::uint64_t r = m.flow(xx, vv, t);
        x = xx, v = vv;
        return r;
      }
    }
    std::uint64_t flow_kick_flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t1, ChunkKick kick,
                                 double t2) const override {
      if constexpr (BlockManifold<M> && (!ManifoldWithFusedSweep<M> || BlockManifoldWithFusedSweep<M>)) {
        return sgmcmc::flow_kick_flow(m, x, v, t1, kick, t2);
      } else {
        Point xx = x, vv = v;
        const std::uint64_t r = sgmcmc::flow_kick_flow(m, xx, vv, t1, kick, t2);
        x = xx, v = vv;
        return r;
      }
    }
    double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const override {
      if constexpr (BlockManifold<M>) return m.distance_to(x);
      else return m.distance_to(Point(x));
    }
    Point random_point(AnyEngineRef& rng) const override { return m.random_point(rng); }
  };
  std::shared_ptr<const Concept> self_;
};

static_assert(Manifold<AnyManifold> && ManifoldWithFusedSweep<AnyManifold>);

}  // namespace sgmcmc
