#pragma once
// A target chosen at run time: any Potential, behind one small vtable, with the capabilities the run
// layer asks about (exact value, empirical-Fisher noise estimate, Dirichlet concentrations, a state of
// its own between steps) detected once, by named concepts, when it is wrapped. Each sampler is built
// once on AnyTarget (run/registry.hpp), and a user's own potential reaches the CLI by registration.
// One indirect call per gradient evaluation; the model's own loops run inside it.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/schedule/temperature.hpp>

namespace sgmcmc::run {

using json = nlohmann::json;

/// A Dirichlet-type target: the Gamma shapes of SCIR's exact CIR transition (samplers/scir.hpp).
template <class P>
concept DirichletType = ConcentrationPotential<P, random::Stream> && requires(const P p) {
  { p.singular_at_faces() } -> std::convertible_to<bool>;
};

/// A target with a state of its own that a run record saves (the bnn and bpmf targets' prior
/// precisions, resampled by Gibbs steps between SG steps): `after_step` is the driver's hook
/// (PotentialWithAfterStep), `state()` / `restore(j, path)` write and read it (null: none), and
/// `diagnostics(steps_done)` reports it per chain. `own_state()` makes a copy independent of the
/// original (copies are per chain: one chain's Gibbs step must not change another's potential).
template <class P>
concept TargetWithState = PotentialWithAfterStep<P, random::Stream> &&
                          requires(P& p, const P& cp, const json* j, const std::string& path, std::uint64_t t) {
                            { cp.state() } -> std::same_as<json>;
                            p.restore(j, path);
                            { cp.diagnostics(t) } -> std::same_as<json>;
                            p.own_state();
                          };

/// Every `every`-th stochastic gradient a chain evaluates, with the point it was evaluated at, up to the
/// columns allocated (never more: nothing is allocated in a step). The tuner scores an arm on the
/// gradients it drew anyway (MAMBA, Coullon, South & Nemeth 2023: no extra gradient per point).
struct GradientLog {
  Eigen::MatrixXd points, gradients;  ///< d × capacity; the first `size` columns are filled
  Eigen::Index size = 0;
  std::uint64_t every = 1, calls = 0;
  void reset(Eigen::Index dim, Eigen::Index capacity, std::uint64_t keep_every) {
    points.resize(dim, capacity);
    gradients.resize(dim, capacity);
    size = 0;
    calls = 0;
    every = keep_every < 1 ? 1 : keep_every;
  }
  void record(const Eigen::VectorXd& x, const Eigen::VectorXd& g) {
    if (calls++ % every != 0 || size >= points.cols()) return;
    points.col(size) = x;
    gradients.col(size) = g;
    ++size;
  }
};

class AnyTarget {
 public:
  AnyTarget() = default;
  /// Wraps a copy of `p`, adding N(0, grad_noise² I) to its stochastic gradient (docs/config.md, `target`).
  template <Potential P>
    requires(!std::same_as<std::decay_t<P>, AnyTarget>)
  explicit AnyTarget(P p, double grad_noise = 0.0)
      : self_(std::make_unique<Model<P>>(std::move(p))), grad_noise_(grad_noise) {
    has_value_ = PotentialWithValue<P>;
    has_noise_estimate_ = PotentialWithNoiseEstimate<P>;
    has_state_ = TargetWithState<P>;
    dirichlet_ = DirichletType<P>;
    reparametrised_ = ReparametrisedPotential<P>;
    if constexpr (PotentialWithPointwiseLikelihood<P>) examples_ = static_cast<const Model<P>&>(*self_).p.examples();
    // Separable only without added noise: the noise is drawn from the engine, and a separable
    // gradient draws nothing (concepts/potential.hpp).
    if constexpr (SeparablePotential<P>) separable_ = grad_noise == 0.0 && static_cast<const Model<P>&>(*self_).p.is_separable();
  }
  AnyTarget(const AnyTarget& o)
      : self_(o.self_ ? o.self_->clone() : nullptr), grad_noise_(o.grad_noise_), temperature_(o.temperature_),
        inverse_temperature_(o.inverse_temperature_),
        has_value_(o.has_value_),
        has_noise_estimate_(o.has_noise_estimate_), has_state_(o.has_state_), dirichlet_(o.dirichlet_),
        separable_(o.separable_), reparametrised_(o.reparametrised_), examples_(o.examples_), log_(o.log_) {}
  AnyTarget(AnyTarget&&) noexcept = default;
  AnyTarget& operator=(const AnyTarget& o) {
    if (this != &o) *this = AnyTarget(o);
    return *this;
  }
  AnyTarget& operator=(AnyTarget&&) noexcept = default;

  double grad_noise() const { return grad_noise_; }
  /// A copy whose stochastic gradients (after noise and temperature: what the sampler is given) are
  /// also written to `log`. Not separable, so every gradient passes through gradient(); the samplers'
  /// separable fast path equals the plain one to the bit, so the chain's draws do not change.
  AnyTarget logging_to(std::shared_ptr<GradientLog> log) const {
    AnyTarget t(*this);
    t.log_ = std::move(log);
    t.separable_ = false;
    return t;
  }
  /// The target at temperature T: U/T, its gradient and value scaled by 1/T (and the empirical-Fisher
  /// variance by 1/T²), so that every sampler — Metropolis-corrected ones included — samples
  /// ∝ exp(−U/T) (MATH.md §9 "Temperature"; T < 1 is the "cold posterior"). Added grad_noise is part of
  /// the gradient it scales. Dirichlet-type targets hand samplers their concentrations instead of a
  /// gradient and cannot be tempered this way. A schedule (annealing) sets T_t before each step t
  /// (at_step); between steps and for analyses (Stein diagnostics, lp) the target is at the final T.
  AnyTarget tempered(const schedule::Temperature& temperature) const {
    temperature.validate();
    require(!dirichlet_ || (temperature.to == 1.0 && !temperature.varies()),
            "temperature: a Dirichlet-type target gives its concentrations, not a gradient to scale");
    require(!temperature_.varies(), "temperature: this target already follows a temperature schedule");
    AnyTarget t(*this);
    // On a target already at a constant T, the temperatures multiply (the inverse temperatures do).
    t.temperature_ = {temperature_.to * temperature.from, temperature_.to * temperature.to, temperature.steps};
    t.inverse_temperature_ = 1.0 / t.temperature_.to;
    return t;
  }
  AnyTarget tempered(double temperature) const { return tempered(schedule::Temperature::constant(temperature)); }
  /// The temperature the schedule ends at (the only one, when constant).
  double temperature() const { return temperature_.to; }
  const schedule::Temperature& temperature_schedule() const { return temperature_; }
  /// The driver's hook before every step t (ScheduledPotential): U/T_t for the step.
  void at_step(std::uint64_t t) {
    if (temperature_.varies()) inverse_temperature_ = 1.0 / temperature_.at(t);
  }
  bool has_value() const { return has_value_; }                    ///< exact U and ∇U (MH samplers, metrics)
  bool has_noise_estimate() const { return has_noise_estimate_; }  ///< per-example gradients (empirical Fisher)
  bool has_state() const { return has_state_; }                    ///< a state saved with the chain
  bool is_dirichlet_type() const { return dirichlet_; }
  /// The examples of a data target with a pointwise log-likelihood (PotentialWithPointwiseLikelihood);
  /// 0 for any other target.
  Eigen::Index examples() const { return examples_; }
  /// log p(y_i | x) for each example i (out: size examples()); untempered: the model's likelihood.
  void log_likelihood(const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> out) const {
    if (examples_ == 0) throw Error("/log_likelihood: this target has no pointwise log-likelihood");
    self_->log_likelihood(x, out);
  }
  /// Sampled on one scale, reported on another (ReparametrisedPotential): the draw the outputs hold
  /// is reported(x); sampled(y) reads one back. The identity for every other target.
  bool is_reparametrised() const { return reparametrised_; }
  Eigen::VectorXd reported(const Eigen::VectorXd& x) const { return reparametrised_ ? self_->reported(x) : x; }
  Eigen::VectorXd sampled(const Eigen::VectorXd& y) const { return reparametrised_ ? self_->sampled(y) : y; }
  /// ∂_i U depends on x_i alone and the gradient draws nothing (SeparablePotential): samplers may
  /// compute it chunk by chunk inside their sweep, through one indirect call per chunk.
  bool is_separable() const { return separable_; }
  void partial(Eigen::Index begin, Eigen::Index end, const double* x, double* g) const {
    self_->partial(begin, end, x, g);
    if (inverse_temperature_ != 1.0)
      for (Eigen::Index i = begin; i < end; ++i) g[i - begin] *= inverse_temperature_;
  }
  /// A Dirichlet-type target with some α_i ≠ 1: its force is unbounded at the simplex faces.
  bool singular_at_faces() const { return dirichlet_ && self_->singular_at_faces(); }

  // The engine is the run layer's random::Stream (a template only so that the Potential concepts,
  // stated with an archetype engine, see the member; any other engine is a compile error).
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    static_assert(std::same_as<R, random::Stream>, "AnyTarget draws from the run layer's random::Stream");
    self_->gradient(x, g, rng);
    models::add_gradient_noise(g, grad_noise_, rng, noise_);
    if (inverse_temperature_ != 1.0) g *= inverse_temperature_;
    if (log_) [[unlikely]] log_->record(x, g);
  }
  /// The stochastic gradient with its empirical-Fisher variance; additive gradient noise adds σ² to
  /// every coordinate's variance.
  template <class R>
  void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var, R& rng) const {
    static_assert(std::same_as<R, random::Stream>, "AnyTarget draws from the run layer's random::Stream");
    if (!has_noise_estimate_) throw Error("/sampler/noise_estimate: empirical_fisher needs a minibatch target");
    self_->gradient_and_variance(x, g, var, rng);
    models::add_gradient_noise(g, grad_noise_, rng, noise_);
    if (grad_noise_ > 0) var.array() += grad_noise_ * grad_noise_;
    if (inverse_temperature_ != 1.0) {
      g *= inverse_temperature_;
      var *= inverse_temperature_ * inverse_temperature_;
    }
    if (log_) [[unlikely]] log_->record(x, g);
  }
  double value(const Eigen::VectorXd& x) const {
    if (!has_value_) throw Error("/target/name: this target has no exact value (needed by MH-corrected samplers)");
    return inverse_temperature_ * self_->value(x);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    if (!has_value_) throw Error("/target/name: this target has no exact gradient (needed by MH-corrected samplers)");
    self_->exact_gradient(x, g);
    if (inverse_temperature_ != 1.0) g *= inverse_temperature_;
  }
  template <class R>
  const Eigen::VectorXd& concentration(R& rng) const {
    static_assert(std::same_as<R, random::Stream>, "AnyTarget draws from the run layer's random::Stream");
    if (!dirichlet_) throw Error("/target/name: this sampler needs a Dirichlet-type target (dirichlet)");
    return self_->concentration(rng);
  }

  /// The driver's hook after every step (PotentialWithAfterStep); a no-op for targets without state.
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) {
    if (has_state_) self_->after_step(x, t, rng);
  }
  json state() const { return has_state_ ? self_->state() : json(nullptr); }
  void restore(const json* j, const std::string& path) { self_->restore(j, path); }
  json diagnostics(std::uint64_t steps_done) const { return has_state_ ? self_->diagnostics(steps_done) : json::object(); }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::unique_ptr<Concept> clone() const = 0;
    virtual void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, random::Stream& rng) const = 0;
    virtual void gradient_and_variance(const Eigen::VectorXd&, Eigen::VectorXd&, Eigen::VectorXd&, random::Stream&) const = 0;
    virtual double value(const Eigen::VectorXd& x) const = 0;
    virtual void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const = 0;
    virtual void log_likelihood(const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> out) const = 0;
    virtual const Eigen::VectorXd& concentration(random::Stream& rng) const = 0;
    virtual Eigen::VectorXd reported(const Eigen::VectorXd& x) const = 0;
    virtual Eigen::VectorXd sampled(const Eigen::VectorXd& y) const = 0;
    virtual bool singular_at_faces() const = 0;
    virtual void partial(Eigen::Index begin, Eigen::Index end, const double* x, double* g) const = 0;
    virtual void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) = 0;
    virtual json state() const = 0;
    virtual void restore(const json* j, const std::string& path) = 0;
    virtual json diagnostics(std::uint64_t steps_done) const = 0;
  };
  // Each capability the model lacks is unreachable: AnyTarget checks its flags first.
  template <class P>
  struct Model final : Concept {
    P p;
    explicit Model(P model) : p(std::move(model)) {}
    std::unique_ptr<Concept> clone() const override {
      auto copy = std::make_unique<Model>(p);
      if constexpr (TargetWithState<P>) copy->p.own_state();
      return copy;
    }
    void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, random::Stream& rng) const override { p.gradient(x, g, rng); }
    void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var,
                               random::Stream& rng) const override {
      if constexpr (PotentialWithNoiseEstimate<P>) p.gradient_and_variance(x, g, var, rng);
    }
    double value(const Eigen::VectorXd& x) const override {
      if constexpr (PotentialWithValue<P>) return p.value(x);
      else return 0.0;
    }
    void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override {
      if constexpr (PotentialWithValue<P>) p.exact_gradient(x, g);
    }
    void log_likelihood(const Eigen::VectorXd& x, Eigen::Ref<Eigen::VectorXd> out) const override {
      if constexpr (PotentialWithPointwiseLikelihood<P>) p.log_likelihood(x, out);
    }
    const Eigen::VectorXd& concentration(random::Stream& rng) const override {
      if constexpr (DirichletType<P>) return p.concentration(rng);
      else throw Error("unreachable: concentration of a target that is not Dirichlet-type");
    }
    Eigen::VectorXd reported(const Eigen::VectorXd& x) const override {
      if constexpr (ReparametrisedPotential<P>) return p.reported(x);
      else return x;
    }
    Eigen::VectorXd sampled(const Eigen::VectorXd& y) const override {
      if constexpr (ReparametrisedPotential<P>) return p.sampled(y);
      else return y;
    }
    void partial(Eigen::Index begin, Eigen::Index end, const double* x, double* g) const override {
      if constexpr (SeparablePotential<P>) p.partial(begin, end, x, g);
    }
    bool singular_at_faces() const override {
      if constexpr (DirichletType<P>) return p.singular_at_faces();
      else return false;
    }
    void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) override {
      if constexpr (TargetWithState<P>) p.after_step(x, t, rng);
    }
    json state() const override {
      if constexpr (TargetWithState<P>) return p.state();
      else return nullptr;
    }
    void restore(const json* j, const std::string& path) override {
      if constexpr (TargetWithState<P>) {
        p.restore(j, path);
      } else if (j && !j->is_null()) {
        throw Error(path + ": this target has no state of its own");
      }
    }
    json diagnostics(std::uint64_t steps_done) const override {
      if constexpr (TargetWithState<P>) return p.diagnostics(steps_done);
      else return json::object();
    }
  };
  std::unique_ptr<Concept> self_;
  double grad_noise_ = 0.0;
  schedule::Temperature temperature_;  ///< T, or its schedule
  double inverse_temperature_ = 1.0;   ///< 1/T of the current step
  bool has_value_ = false, has_noise_estimate_ = false, has_state_ = false, dirichlet_ = false, separable_ = false,
       reparametrised_ = false;
  Eigen::Index examples_ = 0;
  std::shared_ptr<GradientLog> log_;  ///< null except in the tuner's arms
  mutable Eigen::VectorXd noise_;  ///< scratch for the gradient noise (one target per chain)
};

static_assert(PotentialWithValue<AnyTarget> && PotentialWithNoiseEstimate<AnyTarget> && SeparablePotential<AnyTarget> &&
              ScheduledPotential<AnyTarget> && PotentialWithPointwiseLikelihood<AnyTarget> &&
              ReparametrisedPotential<AnyTarget>);

}  // namespace sgmcmc::run
