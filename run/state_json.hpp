#pragma once
// Sampler states and random streams to and from JSON, exactly: doubles are written with 17 significant
// digits (nlohmann_json's round-trip format), so a resumed chain continues bit-for-bit.
#include <string>

#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/modules/splitting/phase_state.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>
#include <sgmcmc/samplers/sgld.hpp>

namespace sgmcmc::run {

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

inline json state_json(const splitting::PhaseState& s) {
  return {{"x", vector_json(s.x)}, {"v", vector_json(s.v)}, {"xi", s.xi},
          {"reflections", s.reflections}, {"gradient_evals", s.gradient_evals}};
}
inline json state_json(const hmc::State& s) {
  json j = state_json(static_cast<const splitting::PhaseState&>(s));
  j["accepted"] = s.accepted;
  j["proposals"] = s.proposals;
  j["divergent"] = s.divergent;
  return j;
}
inline json state_json(const sgld::State& s) {
  return {{"x", vector_json(s.x)}, {"reflections", s.reflections}, {"gradient_evals", s.gradient_evals}};
}

inline json state_json(const scir::State& s) {
  return {{"theta", vector_json(s.theta)}, {"gradient_evals", s.gradient_evals}};
}
inline void restore_state(scir::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.theta = as_vector(f.get("theta"), f.at("theta"), s.theta.size());
  if (!(s.theta.array() > 0).all()) fail(f.at("theta"), "expected positive entries");
  s.x = s.theta / s.theta.sum();
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  f.finish();
}

inline json state_json(const recipe::State& s) {
  return {{"z", vector_json(s.z)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
}
inline void restore_state(recipe::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.z = as_vector(f.get("z"), f.at("z"), s.z.size());
  s.x = s.z.head(s.x.size());
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  s.clipped = as_count(f.get("clipped"), f.at("clipped"), 0);
  f.finish();
}
inline json state_json(const sgrhmc::State& s) {
  return {{"x", vector_json(s.x)}, {"r", vector_json(s.r)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
}
inline void restore_state(sgrhmc::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
  s.r = as_vector(f.get("r"), f.at("r"), s.r.size());
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  s.clipped = as_count(f.get("clipped"), f.at("clipped"), 0);
  f.finish();
}
inline json state_json(const sgrld::State& s) {
  return {{"x", vector_json(s.x)}, {"gradient_evals", s.gradient_evals}, {"clipped", s.clipped}};
}
inline void restore_state(sgrld::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  s.clipped = as_count(f.get("clipped"), f.at("clipped"), 0);
  f.finish();
}
inline json state_json(const sgrld::ExpandedState& s) {
  return {{"theta", vector_json(s.theta)}, {"gradient_evals", s.gradient_evals}, {"reflections", s.reflections}};
}
inline void restore_state(sgrld::ExpandedState& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.theta = as_vector(f.get("theta"), f.at("theta"), s.theta.size());
  if (!(s.theta.array() > 0).all()) fail(f.at("theta"), "expected positive entries");
  s.x = s.theta / s.theta.sum();
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  s.reflections = as_count(f.get("reflections"), f.at("reflections"), 0);
  f.finish();
}

inline void restore_state(splitting::PhaseState& s, Fields& f) {
  const auto n = s.x.size();
  s.x = as_vector(f.get("x"), f.at("x"), n);
  s.v = as_vector(f.get("v"), f.at("v"), n);
  s.xi = f.number("xi");
  s.reflections = as_count(f.get("reflections"), f.at("reflections"), 0);
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
}
inline void restore_state(splitting::PhaseState& s, const json& j, const std::string& path) {
  Fields f(j, path);
  restore_state(s, f);
  f.finish();
}
inline void restore_state(hmc::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  restore_state(static_cast<splitting::PhaseState&>(s), f);
  s.x_start = s.x;
  s.accepted = as_count(f.get("accepted"), f.at("accepted"), 0);
  s.proposals = as_count(f.get("proposals"), f.at("proposals"), 0);
  s.divergent = as_count(f.get("divergent"), f.at("divergent"), 0);
  f.finish();
}
inline void restore_state(sgld::State& s, const json& j, const std::string& path) {
  Fields f(j, path);
  s.x = as_vector(f.get("x"), f.at("x"), s.x.size());
  s.reflections = as_count(f.get("reflections"), f.at("reflections"), 0);
  s.gradient_evals = as_count(f.get("gradient_evals"), f.at("gradient_evals"), 0);
  f.finish();
}

}  // namespace sgmcmc::run
