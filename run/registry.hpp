#pragma once
// The registry: one entry per manifold, target and sampler — its names, how it parses its config
// section (errors naming the JSON path), what it accepts, how it builds, and (samplers) how its State
// goes to and from JSON. A config is parsed once, in one order: manifold → target → sampler; each data
// file is read once. Adding a sampler, target or manifold is its own header plus one registration line
// (run/builtin.hpp); a user registers their own in their own executable (examples/custom_cli/).
//
// Samplers are built once on AnyManifold × AnyTarget (type-erased at whole-vector granularity, one
// indirect call per gradient or flow), so a registered manifold or target reaches every sampler
// without recompiling one.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/data/fingerprint.hpp>
#include <sgmcmc/manifolds/any_manifold.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/output/parameters.hpp>

namespace sgmcmc::run {

class Registry;

/// What a manifold is, as entries and the config parser ask it: typed facts its entry sets, never its
/// name (a user's flat or compact manifold gets the same answers as the shipped ones).
struct Geometry {
  bool flat = false;         ///< its coordinates are R^n's own: coordinate-wise samplers, preconditioners, L-BFGS
  bool compact = false;      ///< finite volume: a uniform law exists on it
  bool simplex = false;      ///< the probability simplex (a boundary; Dirichlet-type targets, expanded-mean samplers)
  bool unit_sphere = false;  ///< S^{n-1} in R^n
  Eigen::Index ambient = 0;  ///< the ambient size, 0 while not known (a euclidean without dim)
  std::vector<Geometry> factors;  ///< a product's factors, in order; empty otherwise

  /// A product of factors: flat or compact when every factor is.
  static Geometry product_of(std::vector<Geometry> parts) {
    Geometry g;
    g.flat = g.compact = !parts.empty();
    for (const auto& p : parts) {
      g.flat = g.flat && p.flat;
      g.compact = g.compact && p.compact;
      g.ambient += p.ambient;
    }
    g.factors = std::move(parts);
    return g;
  }
};

/// A parsed `manifold` section. `manifold` is empty while `deferred`: a euclidean manifold without
/// `dim` (or no manifold section) takes its dimension from the target, once the target is parsed.
struct ManifoldChoice {
  AnyManifold manifold;
  std::string kind;  ///< the entry's canonical name, for messages and records only (entries ask `geometry`)
  Geometry geometry; ///< what the manifold is, as typed facts
  json resolved;     ///< the section with every default filled in (for the run record)
  Eigen::Index rows = 0, cols = 0;  ///< a matrix manifold's n × p (matrix-valued target fields), else 0
  /// The point's named blocks when the manifold has some (a product: a block per factor); else the
  /// draw is one block `x` of the manifold's shape.
  std::optional<output::Parameters> parameters = {};
  bool deferred = false;
  /// The run's cap on the ambient size (the config's max_dimension): a target that fixes the dimension
  /// itself checks its size against it before it allocates anything of that size (targets::check_size).
  std::uint64_t max_dimension = 10'000'000;
  /// The ambient size, if known yet.
  std::optional<Eigen::Index> dim() const {
    if (deferred) return std::nullopt;
    return manifold.ambient_size();
  }
};

/// How a target forms the gradient a sampler sees, as sampler entries, the config parser and the
/// diagnostics ask it: typed facts its entry sets, never its JSON (a user's data target states what it
/// is rather than inheriting a default through a missing field).
struct GradientFacts {
  enum class Estimator { exact, minibatch, control_variate, svrg, saga };
  Estimator estimator = Estimator::exact;  ///< exact: the full gradient (the analytic targets)
  /// false when an epoch's minibatches are drawn without replacement: their errors sum to zero over the
  /// epoch, so a correction for independent batch noise (noise_estimate, AMAGOLD's test) does not hold.
  bool independent_batches = true;
  double added_noise_sd = 0.0;        ///< `grad_noise` σ: AnyTarget adds N(0, σ²I) to every gradient
  std::uint64_t gibbs_every = 0;      ///< > 0: prior precisions resampled by Gibbs steps, at temperature 1
  std::optional<Eigen::VectorXd> centre = {};  ///< a control variate's centre θ̂

  /// SVRG's snapshot and SAGA's table make the gradient's error depend on the chain's past.
  bool depends_on_past() const { return estimator == Estimator::svrg || estimator == Estimator::saga; }
};

/// The estimator's name in configs and messages.
constexpr const char* name_of(GradientFacts::Estimator e) {
  using E = GradientFacts::Estimator;
  switch (e) {
    case E::exact: return "exact";
    case E::minibatch: return "minibatch";
    case E::control_variate: return "control_variate";
    case E::svrg: return "svrg";
    case E::saga: return "saga";
  }
  return "?";
}

/// A parsed `target` section.
/// A data file a target read: the config field naming it (a JSON pointer, e.g. /target/data), the
/// path as read, and its fingerprint (none: not a regular file). The run record keeps the fingerprints
/// (`data_files`), so that a resume sees a changed file (run/data_files.hpp).
struct DataFile {
  std::string pointer;
  std::string path;
  std::optional<data::FileFingerprint> print;
};

/// A data target at another batch size (TargetChoice::with_batch_size): the target, untempered, and its
/// record section.
struct Rebatched {
  AnyTarget target;
  json resolved;
};

struct TargetChoice {
  AnyTarget target;
  std::string kind;                        ///< the entry's canonical name, for messages and records only
  json resolved;                           ///< the section with defaults filled in (for the run record)
  std::optional<Eigen::Index> natural_dim; ///< the dimension the target fixes by itself (data, a mean), if any
  std::optional<std::uint64_t> examples;   ///< a data target's N (all shards'): its gradient is a sum over N examples
  GradientFacts gradient = {};             ///< how its stochastic gradient is formed
  std::vector<DataFile> files = {};        ///< the data files it read
  /// The threads each chain's copy starts itself (bnn's `threads`): the run runs fewer chains at once so
  /// that it starts at most parallel::thread_cap() threads in all.
  unsigned threads_per_chain = 1;
  /// The draw's named blocks: the config's `names` if given, else the target's own (logistic's
  /// b_<column>, bnn's W1, b1, W2, b2), else none (the manifold's; run/record_schema.cpp parameters_of).
  std::optional<output::Parameters> parameters = {};
  /// What the section found questionable in its data (the glm target's constant or collinear
  /// predictors, by name): kept in the run record's `warnings` and printed with the summary.
  std::vector<std::string> warnings = {};
  /// A point in the posterior's bulk the target suggests from its data (models::ModelWithStart: the glm
  /// target's constant-model fit), on the sampled scale: where the mode searches begin, and the centre
  /// of the chains' random starts on euclidean space, instead of 0.
  std::optional<Eigen::VectorXd> start = {};
  /// A data target's same target at batch size n (its estimator, centre and data shared): the tuner's
  /// batch-size arms (run/tune.hpp). Empty: the target has no batch size to choose.
  std::function<Rebatched(std::uint64_t n)> with_batch_size = {};
};

/// A Langevin-type step's noise balance, for a sampler that injects N(0, 2Ch) noise per step with a
/// scalar friction C (SGLD: C = 1), a constant step h and no preconditioner, less the noise estimate V̂:
/// the Stein report's excess temperature h(V̄ − V̂)/(2C) (MATH.md §9) needs exactly these.
struct NoiseBalance {
  double step_size = 0.0;
  double friction = 1.0;
  double noise_estimate = 0.0;
};

/// A parsed `sampler` section: the run record's section and a builder of chain i.
struct SamplerChoice {
  std::string kind;  ///< the entry's canonical name, for messages and records only (the record keeps the name the config gave)
  json resolved;     ///< the section with defaults filled in (for the run record)
  std::function<std::unique_ptr<AnyChain>(const AnyManifold&, const AnyTarget&, Eigen::VectorXd x0, random::Stream rng)> build;
  /// Typed facts for the run loop and the diagnostics, never read back from `resolved`:
  schedule::StepSize step_size = {};          ///< a cyclical schedule's exploration stages keep no draw
  std::optional<NoiseBalance> noise_balance = {};  ///< set where the definition above holds
};

struct ManifoldEntry {
  std::vector<std::string> names;  ///< the canonical name first, then aliases
  std::string summary;             ///< one line for --help and error messages
  /// Parses the section (f is at its JSON path; f.finish() is the caller's). A product parses its
  /// factors through the registry.
  std::function<ManifoldChoice(Fields& f, const Registry& registry)> parse;
};

struct TargetEntry {
  std::vector<std::string> names;
  std::string summary;
  /// Parses the section for the chosen manifold (whose dim() is empty while deferred).
  std::function<TargetChoice(Fields& f, const ManifoldChoice& manifold)> parse;
  /// Optional, for a data target that can hold one shard of its data (docs/distributed.md): parses the
  /// section on a rank of a chain group that splits the data `shard.count` ways. A target without it
  /// refuses `distributed.shards` > 1.
  std::function<TargetChoice(Fields& f, const ManifoldChoice& manifold, const distributed::Shard& shard)> parse_sharded = {};
};

/// The run's length, which a sampler section may depend on: a cyclical schedule's `cycles` M and a
/// `"diagonal"` preconditioner (estimated during burn-in) become what runs — a cycle length, a number
/// of adaptation steps — in the sampler's own record section, so a run resumed for more steps keeps them.
struct RunLength {
  std::uint64_t steps = 0;
  std::uint64_t burn_in = 0;
};

/// How a sampler's step size is chosen when a config leaves it out or says "auto" (run/tune.hpp):
/// typed facts its entry sets, never its name.
struct TuningFacts {
  enum class Method {
    none,            ///< a step size must be given
    stein,           ///< successive halving of short runs scored by the kernel Stein discrepancy (MAMBA)
    dual_averaging,  ///< Stan's dual averaging to a target acceptance (a Metropolis–Hastings sampler)
  };
  Method method = Method::none;
  /// The stable step's scale against the potential's largest curvature L, where the default grid is
  /// anchored: h ~ 1/L for a first-order (Langevin) step, h ~ 1/√L for a second-order (momentum) one.
  bool second_order = false;
  bool friction = false;  ///< a `friction` C the tuner chooses too (SGHMC)
};

struct SamplerEntry {
  std::vector<std::string> names;
  std::string summary;
  /// Parses the section for the chosen manifold and target and the run's length, rejecting
  /// combinations it cannot run (with the path of the field to change).
  std::function<SamplerChoice(Fields& f, const ManifoldChoice& manifold, const TargetChoice& target, const RunLength& run)> parse;
  TuningFacts tuning = {};
};

class Registry {
 public:
  Registry& add(ManifoldEntry e) { return add_to(manifolds_, std::move(e), "manifold"); }
  Registry& add(TargetEntry e) { return add_to(targets_, std::move(e), "target"); }
  Registry& add(SamplerEntry e) { return add_to(samplers_, std::move(e), "sampler"); }

  const ManifoldEntry& manifold(const std::string& name, const std::string& path) const { return find(manifolds_, name, path, "manifold"); }
  const TargetEntry& target(const std::string& name, const std::string& path) const { return find(targets_, name, path, "target"); }
  const SamplerEntry& sampler(const std::string& name, const std::string& path) const { return find(samplers_, name, path, "sampler"); }

  const std::vector<ManifoldEntry>& manifolds() const { return manifolds_; }
  const std::vector<TargetEntry>& targets() const { return targets_; }
  const std::vector<SamplerEntry>& samplers() const { return samplers_; }

  /// Parses a manifold section (also a product's factor) through its entry.
  ManifoldChoice parse_manifold(const json& j, const std::string& path) const {
    Fields f(j, path);
    const std::string name = f.string("name");
    ManifoldChoice c = manifold(name, f.at("name")).parse(f, *this);
    f.finish();
    return c;
  }

 private:
  template <class E>
  Registry& add_to(std::vector<E>& list, E e, const char* what) {
    if (e.names.empty()) throw Error(fmt::format("registry: a {} entry needs a name", what));
    for (const auto& n : e.names)
      for (const auto& other : list)
        for (const auto& m : other.names)
          if (n == m) throw Error(fmt::format("registry: {} name '{}' is registered twice", what, n));
    list.push_back(std::move(e));
    return *this;
  }
  template <class E>
  static const E& find(const std::vector<E>& list, const std::string& name, const std::string& path, const char* what) {
    for (const auto& e : list)
      for (const auto& n : e.names)
        if (n == name) return e;
    std::string known;
    for (const auto& e : list)
      for (const auto& n : e.names) known += (known.empty() ? "" : ", ") + n;
    fail(path, fmt::format("unknown {} '{}' (known: {})", what, printable(name), known));
  }
  std::vector<ManifoldEntry> manifolds_;
  std::vector<TargetEntry> targets_;
  std::vector<SamplerEntry> samplers_;
};

/// Builds chain objects for a sampler entry: `chain_of(sampler, target, x0, rng)` wraps a concrete
/// Chain<S, AnyTarget> in the type-erased AnyChain (one virtual call per chunk of steps).
template <class S>
std::unique_ptr<AnyChain> chain_of(S sampler, const AnyTarget& target, Eigen::VectorXd x0, random::Stream rng) {
  return std::make_unique<ChainModel<S>>(Chain<S, AnyTarget>(std::move(sampler), target, std::move(x0), rng));
}

}  // namespace sgmcmc::run
