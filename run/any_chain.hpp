#pragma once
// A chain whose sampler, manifold and target were chosen at run time (from a JSON config). The one
// virtual call is per chunk of steps (`advance`), never inside a step: the chunk runs the concrete
// `Chain<Sampler, Potential>` template.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/run/fields.hpp>

namespace sgmcmc::run {

/// How a sampler's State goes to and from a run record, exactly (doubles round-trip: 17 significant
/// digits), so a resumed chain continues bit for bit. Specialised next to each sampler's registry entry
/// (run/samplers/): `static json write(const State&)` and `static void read(State&, const json&,
/// const std::string& path)`, where `read` gets a State built by the sampler's init (sizes set).
template <class State>
struct StateJson;

/// A sampler state with a JSON form.
template <class State>
concept RecordableState = requires(const State& cs, State& s, const json& j, const std::string& path) {
  { StateJson<State>::write(cs) } -> std::same_as<json>;
  StateJson<State>::read(s, j, path);
};

inline json stream_json(const random::StreamState& s) {
  return {{"seed", s.seed}, {"stream", s.stream}, {"normals_used", s.normals_used},
          {"uniforms_used", s.uniforms_used}, {"bits_used", s.bits_used}, {"batches_used", s.batches_used}};
}
inline random::StreamState stream_from_json(const json& j, const std::string& path) {
  Fields f(j, path);
  random::StreamState s;
  s.seed = f.count("seed", 0);
  const std::uint64_t stream = f.count("stream", 0);
  if (stream > 0xffffffffu) fail(f.at("stream"), "expected a 32-bit stream id");
  s.stream = static_cast<std::uint32_t>(stream);
  s.normals_used = as_count(f.get("normals_used"), f.at("normals_used"), 0);
  s.uniforms_used = as_count(f.get("uniforms_used"), f.at("uniforms_used"), 0);
  s.bits_used = as_count(f.get("bits_used"), f.at("bits_used"), 0);
  s.batches_used = f.count("batches_used", 0, 0);
  f.finish();
  return s;
}

class AnyChain {
 public:
  virtual ~AnyChain() = default;
  /// Runs n more steps, appending kept draws to `out` (and lp = −U(x) of each to `out.lp` when
  /// `out.with_lp`); `progress`, if given, counts the steps done; `stop`, if given, ends the chunk early
  /// once set (checked every 64 steps).
  virtual ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out, std::atomic<std::uint64_t>* progress,
                              const std::atomic<bool>* stop) = 0;
  /// The statistics the sampler reports with each draw.
  virtual Statistics statistics() const = 0;
  /// Everything needed to continue: sampler state, random stream, steps done.
  virtual json state() const = 0;
  virtual void restore(const json& state, const std::string& path) = 0;
  /// Per-chain diagnostics: acceptance rate, reflections, gradient evaluations, thermostat, and for a
  /// momentum sampler the kinetic temperature ⟨vᵀv⟩/m over the kept draws, m = `momentum_dim` (the
  /// manifold's intrinsic dimension: the velocity is tangent).
  virtual json diagnostics(Eigen::Index momentum_dim) const = 0;
  virtual std::uint64_t steps_done() const = 0;
  virtual const Eigen::VectorXd& position() const = 0;
  /// The chain's own copy of the target (for what is computed from its draws: the pointwise log-likelihood).
  virtual const AnyTarget& target() const = 0;
};

/// The concrete chain behind an AnyChain: sampler S on the run layer's AnyTarget.
template <class S>
  requires RecordableState<typename S::State>
class ChainModel final : public AnyChain {
 public:
  explicit ChainModel(Chain<S, AnyTarget> chain) : chain_(std::move(chain)) {}

  ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out, std::atomic<std::uint64_t>* progress,
                      const std::atomic<bool>* stop) override {
    if (!out.with_lp || n == 0) return chain_.advance(n, keep, out, progress, stop);
    if (out.dim == 0) out.dim = chain_.position().size();
    // lp at kept draws only: the exact value may cost a pass over the data.
    auto log_density = [&](const StepEvent& e) {
      if (e.kept || e.warmup_kept) out.lp.push_back(-chain_.potential.value(e.position));
      return Control::proceed;
    };
    return chain_.run(keep, StopAfter{n}, KeepDraws{out}, log_density, Progress(progress), StopOnFlag{stop});
  }
  Statistics statistics() const override { return S::statistics; }
  json state() const override {
    const ChainTotals& t = chain_.totals;
    json j = {{"sampler", StateJson<typename S::State>::write(chain_.state)}, {"rng", stream_json(chain_.rng.state())},
              {"steps_done", chain_.steps_done}, {"accept_sum", t.accept_sum},
              {"totals", {{"gradient_evals", t.gradient_evals}, {"reflections", t.reflections}, {"divergent", t.divergent}}}};
    if constexpr (S::statistics.has(stats::kinetic_energy)) {
      j["totals"]["kinetic_sum"] = t.kinetic_sum;
      j["totals"]["kinetic_draws"] = t.kinetic_draws;
    }
    if (json t = chain_.potential.state(); !t.is_null()) j["target"] = std::move(t);  // bnn, bpmf: prior precisions
    return j;
  }
  void restore(const json& j, const std::string& path) override {
    Fields f(j, path);
    StateJson<typename S::State>::read(chain_.state, f.get("sampler"), f.at("sampler"));
    chain_.rng = random::Stream(stream_from_json(f.get("rng"), f.at("rng")));
    chain_.steps_done = as_count(f.get("steps_done"), f.at("steps_done"), 0);
    if constexpr (SamplerWithStateCheck<S>)
      if (const std::string wrong = chain_.sampler.check_state(chain_.state, chain_.steps_done); !wrong.empty())
        fail(f.at("sampler"), wrong);
    ChainTotals& t = chain_.totals;
    t.accept_sum = f.number("accept_sum", Range::non_negative);
    if (const json* totals = f.find("totals")) {
      Fields tf(*totals, f.at("totals"));
      t.gradient_evals = tf.count("gradient_evals", 0);
      t.reflections = tf.count("reflections", 0);
      t.divergent = tf.count("divergent", 0);
      // Absent from a record written before they were kept: the kinetic temperature then covers the
      // draws after the resume only.
      t.kinetic_sum = tf.number("kinetic_sum", 0.0, Range::non_negative);
      t.kinetic_draws = tf.count("kinetic_draws", 0, 0);
      tf.finish();
    } else {  // a record written before the totals moved to the chain: the sampler state kept the counters
      const json& s = f.get("sampler");
      const auto counter = [&](const char* key) { return s.contains(key) ? as_count(s[key], f.at("sampler") + "/" + key, 0) : 0; };
      t.gradient_evals = counter("gradient_evals");
      t.reflections = counter("reflections");
      t.divergent = counter("divergent");
    }
    chain_.potential.restore(f.find("target"), f.at("target"));
    f.finish();
  }
  json diagnostics(Eigen::Index momentum_dim) const override {
    const ChainTotals& t = chain_.totals;
    json d = {{"steps", chain_.steps_done}, {"gradient_evals", t.gradient_evals}, {"reflections", t.reflections}};
    // Only a sampler with a Metropolis test has an acceptance rate: an SG sampler's would be a 1.0 that
    // looks like a statistic (issue #34).
    if constexpr (S::statistics.has(stats::acceptance))
      d["mean_accept_stat"] = chain_.steps_done ? t.accept_sum / static_cast<double>(chain_.steps_done) : 0.0;
    if constexpr (S::statistics.has(stats::thermostat)) {  // SGNHT: the thermostat's current value
      StepInfo info;
      chain_.sampler.describe(chain_.state, info);
      d["xi"] = info.thermostat;
    }
    d.update(chain_.potential.diagnostics(chain_.steps_done));  // bnn, bpmf: precisions, Gibbs steps
    if constexpr (S::statistics.has(stats::divergent)) d["divergent"] = t.divergent;
    if constexpr (S::statistics.has(stats::kinetic_energy))
      if (t.kinetic_draws > 0 && momentum_dim > 0)
        d["kinetic_temperature"] = t.kinetic_sum / (static_cast<double>(t.kinetic_draws) * static_cast<double>(momentum_dim));
    return d;
  }
  std::uint64_t steps_done() const override { return chain_.steps_done; }
  const Eigen::VectorXd& position() const override { return chain_.position(); }
  const AnyTarget& target() const override { return chain_.potential; }

 private:
  Chain<S, AnyTarget> chain_;
};

}  // namespace sgmcmc::run
