#pragma once
// The run loop: a run's chains advanced in rounds on the worker pool, each round's draws handed to the
// writers, checkpoints written between rounds, and the record finished at the end (run(), resume and
// MPI runs all go through continue_run).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <sgmcmc/modules/diagnostics/chain_check.hpp>
#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/distributed/transport.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// `make()` on every rank, which all go on only if it succeeded everywhere: an error on any rank (its
/// part of a data file) is thrown on every rank, with that rank's message (Transport::first_error).
template <class F>
auto agreed(F make, const Options& opt) -> decltype(make()) {
  if (!opt.transport) return make();
  std::optional<decltype(make())> made;
  std::optional<std::string> error;
  try {
    made.emplace(make());
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const auto e = opt.transport->first_error(error)) throw distributed::AgreedError(*e);
  return std::move(*made);
}

/// What a resume allowed to differ from the record (Options::allow_changed_config): its phase notes each.
struct Changes {
  bool config = false;  ///< the config no longer matches config_digest (or has none)
  bool data = false;    ///< a data file is not the one the run read (or cannot be checked)
};

/// A chain's wall time in its steps, split at the burn-in (CmdStan's warm-up), over every phase of
/// the run (a resume adds to the record's): the record's chains[i].timing.
struct ChainTiming {
  double warmup_seconds = 0;
  double sampling_seconds = 0;
};

/// A record chain's timing (zeros when it has none: a record of an older sgmcmc).
inline ChainTiming timing_of(const json& chain) {
  ChainTiming t;
  if (!chain.is_object() || !chain.contains("timing") || !chain["timing"].is_object()) return t;
  const json& j = chain["timing"];
  if (j.contains("warmup_seconds") && j["warmup_seconds"].is_number()) t.warmup_seconds = j["warmup_seconds"].get<double>();
  if (j.contains("sampling_seconds") && j["sampling_seconds"].is_number()) t.sampling_seconds = j["sampling_seconds"].get<double>();
  return t;
}

/// Runs `steps` more steps of built chains to global step end[i] each, streaming to the writers (which
/// have had `begin` and any earlier draws: `kept` counts them), and finishes them with the record, whose
/// timings are `phases` and this phase (`phase_name`, `setup` seconds), each chain's time added to
/// `timing` (the record's so far; empty: none). `checkers`: each chain's default checks (run/checks.hpp)
/// already fed the record's draws (a resume); empty: new ones, for the draws of this call. Returns the
/// record without draws.
json continue_run(std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c, const std::vector<std::uint64_t>& end,
                  const Options& opt, const output::RunHeader& header, std::span<output::Writer* const> writers,
                  std::vector<std::uint64_t> kept, json phases, const char* phase_name, double setup,
                  Changes changed = {}, std::vector<ChainTiming> timing = {}, std::vector<diagnostics::ChainChecker> checkers = {});

}  // namespace sgmcmc::run::detail
