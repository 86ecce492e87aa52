#pragma once
// A chain whose sampler, manifold and target were chosen at run time (from a JSON config). The one
// virtual call is per chunk of steps (`advance`), never inside a step: the chunk runs the concrete
// `Chain<Sampler, Potential>` template.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <sgmcmc/modules/run/state_json.hpp>
#include <sgmcmc/samplers/driver.hpp>

namespace sgmcmc::run {

class AnyChain {
 public:
  virtual ~AnyChain() = default;
  virtual ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out, std::atomic<std::uint64_t>* progress) = 0;
  /// Everything needed to continue: sampler state, random stream, steps done.
  virtual json state() const = 0;
  virtual void restore(const json& state, const std::string& path) = 0;
  /// Per-chain diagnostics: acceptance rate, reflections, gradient evaluations, thermostat.
  virtual json diagnostics() const = 0;
  virtual std::uint64_t steps_done() const = 0;
  virtual const Eigen::VectorXd& position() const = 0;
};

template <class S, class P>
class ChainModel final : public AnyChain {
 public:
  explicit ChainModel(Chain<S, P> chain) : chain_(std::move(chain)) {}

  ChainStatus advance(std::uint64_t n, const Retention& keep, Draws& out, std::atomic<std::uint64_t>* progress) override {
    return chain_.advance(n, keep, out, progress);
  }
  json state() const override {
    json j = {{"sampler", state_json(chain_.state)}, {"rng", stream_json(chain_.rng.state())},
              {"steps_done", chain_.steps_done}, {"accept_sum", chain_.accept_sum}};
    if constexpr (requires { chain_.potential.state(); }) {  // the target's own state (bnn, bpmf: prior precisions)
      json t = chain_.potential.state();
      if (!t.is_null()) j["target"] = std::move(t);
    }
    return j;
  }
  void restore(const json& j, const std::string& path) override {
    Fields f(j, path);
    restore_state(chain_.state, f.get("sampler"), f.at("sampler"));
    chain_.rng = random::Stream(stream_from_json(f.get("rng"), f.at("rng")));
    chain_.steps_done = as_count(f.get("steps_done"), f.at("steps_done"), 0);
    chain_.accept_sum = f.number("accept_sum", Range::non_negative);
    if constexpr (requires(const json* t, const std::string& p) { chain_.potential.restore(t, p); })
      chain_.potential.restore(f.find("target"), f.at("target"));
    f.finish();
  }
  json diagnostics() const override {
    const auto& s = chain_.state;
    json d = {{"steps", chain_.steps_done}, {"gradient_evals", s.gradient_evals}, {"reflections", s.reflections},
              {"mean_accept_stat", chain_.steps_done ? chain_.accept_sum / static_cast<double>(chain_.steps_done) : 0.0}};
    if constexpr (requires { chain_.sampler.dynamics.diffusion; }) d["xi"] = s.xi;  // SGNHT thermostat
    if constexpr (requires { chain_.potential.diagnostics(chain_.steps_done); })  // bnn, bpmf: precisions, Gibbs steps
      d.update(chain_.potential.diagnostics(chain_.steps_done));
    if constexpr (requires { s.accepted; }) {
      d["accepted"] = s.accepted;
      d["acceptance_rate"] = s.proposals ? static_cast<double>(s.accepted) / static_cast<double>(s.proposals) : 0.0;
      d["divergent"] = s.divergent;
    }
    return d;
  }
  std::uint64_t steps_done() const override { return chain_.steps_done; }
  const Eigen::VectorXd& position() const override { return chain_.position(); }

 private:
  Chain<S, P> chain_;
};

}  // namespace sgmcmc::run
