#pragma once
// Runs a config's chains on threads, streaming their draws to writers (run/output/: the JSON record,
// Stan CSV, NetCDF); resumes a record; converts one to other formats.
//
// Record schema "sgmcmc.run", version 2 (docs/run-format.md):
//   {schema, schema_version, library{name, version}, config (every default filled in), status,
//    timings{phases[{phase, steps, setup_seconds, sampling_seconds}]},
//    chains[{id, stream, status, error?, draws, diagnostics{...}, state{...},
//            sample_stats{name: [...]}, samples[[...]]}]}
// Version 1 (no draws, no sample_stats) is still read.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/distributed/rounds.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::run {

inline constexpr const char* schema_name = "sgmcmc.run";
inline constexpr int schema_version = 2;

struct Options {
  unsigned threads = 0;   ///< 0: one per core (at most one per chain)
  bool progress = false;  ///< draw a progress bar on stderr
  /// When set (by another thread or a signal handler), the chains stop within 64 steps and the run ends
  /// with what it has: every writer gets its draws, and the record, status "interrupted", resumes.
  const std::atomic<bool>* stop = nullptr;
  /// Resume a record whose config was edited after it was written (its `config_digest` differs): the
  /// resumed phase is marked `config_changed` in the record's timings. Off: such a record is refused.
  bool allow_changed_config = false;
  /// The processes of an MPI run (docs/distributed.md; run/distributed/mpi.hpp): chains over chain
  /// groups, data over the ranks of a group; rank 0 writes. Null: this process alone.
  distributed::Transport* transport = nullptr;
};

/// A digest of a resolved config: FNV-1a (64 bits) over its compact JSON text, which is canonical
/// (objects keep their keys sorted; doubles print in their shortest round-trip form). The record
/// carries it; resume compares it with the record's config to tell an edited config from the one the
/// draws were made with. A check against edits, not against an adversary.
inline std::string config_digest(const json& config) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char ch : config.dump()) h = (h ^ ch) * 0x100000001b3ull;
  return fmt::format("fnv1a64:{:016x}", h);
}

/// How far a resumed chain's saved position may lie from its manifold: far above the drift of any
/// shipped flow over a long run (1e-12 and below), far below any edit that changes a draw.
inline constexpr double resume_manifold_tolerance = 1e-6;

namespace detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Draws a progress bar on stderr until `done` is set.
class ProgressBar {
 public:
  ProgressBar(bool on, std::uint64_t total, const std::atomic<std::uint64_t>& count) {
    if (!on || total == 0) return;
    thread_ = std::jthread([&count, total](std::stop_token stop) {
      const auto t0 = Clock::now();
      while (!stop.stop_requested()) {
        draw(count.load(std::memory_order_relaxed), total, seconds_since(t0));
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      draw(count.load(std::memory_order_relaxed), total, seconds_since(t0));
      std::fputc('\n', stderr);
    });
  }
 private:
  static void draw(std::uint64_t n, std::uint64_t total, double secs) {
    const double f = std::min(1.0, static_cast<double>(n) / static_cast<double>(total));
    const int width = 30, filled = static_cast<int>(f * width);
    std::fprintf(stderr, "\r[%s%s] %3d%% %llu/%llu steps %.1fs", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), static_cast<int>(100 * f),
                 static_cast<unsigned long long>(n), static_cast<unsigned long long>(total), secs);
    std::fflush(stderr);
  }
  std::jthread thread_;
};

// Advances chain i by steps[i] steps on the pool's threads; chain i's result does not depend on which
// thread runs it. A chain that has stopped with an error is not advanced again.
inline void advance_all(parallel::WorkerPool& pool, std::vector<std::unique_ptr<AnyChain>>& chains, std::vector<Draws>& draws,
                        std::vector<ChainStatus>& status, const std::vector<std::uint64_t>& steps, const Retention& keep,
                        std::atomic<std::uint64_t>& done, const std::atomic<bool>* stop) {
  // The library's one thread pool (modules/parallel/worker_pool.hpp): chain i is advanced by whichever
  // worker takes index i, and its result depends on i alone.
  auto work = [&](std::size_t i, unsigned /*worker*/) {
    if (!status[i].ok() || steps[i] == 0) return;
    try {
      status[i] = chains[i]->advance(steps[i], keep, draws[i], &done, stop);
    } catch (const std::exception& e) {
      status[i].error = e.what();
    }
  };
  pool.for_each(chains.size(), work);
}

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

/// What every writer needs before the first draw, for chains built from `c`.
inline output::RunHeader header_of(const RunConfig& c, const AnyChain& chain, std::uint64_t total_steps) {
  // total_steps: the steps the longest chain will have done at the end.
  output::RunHeader h;
  h.config = c.resolved;
  h.sampler = c.resolved["sampler"]["name"].get<std::string>();
  h.chains = c.chains;
  if (c.manifold.rows > 0 && c.manifold.cols > 0) h.shape = {c.manifold.rows, c.manifold.cols};
  else h.shape = {chain.position().size()};
  for (Statistic s : all_statistics)
    if (chain.statistics().has(s)) h.statistics.push_back(s);
  h.has_lp = c.log_density;
  h.expected_draws = c.retention.kept_by(total_steps);
  h.library_version = sgmcmc::version;
  return h;
}

/// What the record keeps of a chain besides its draws: {diagnostics, state}.
inline json chain_summary(const AnyChain& chain, const RunConfig& c) {
  return {{"diagnostics", chain.diagnostics(c.manifold.manifold.intrinsic_dim())}, {"state", chain.state()}};
}

/// Every chain's summary on rank 0 (all of them in a single process; an empty list on other ranks).
inline std::vector<json> summaries_of(const std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                      distributed::Rounds* rounds) {
  const auto summary = [&](const AnyChain& chain) { return chain_summary(chain, c); };
  if (rounds) return rounds->summaries(chains, summary);
  std::vector<json> out;
  for (const auto& ch : chains) out.push_back(summary(*ch));
  return out;
}

/// The threads a rank steps its chains on: Options::threads, else the machine's cores divided among
/// the ranks on it; at most one per chain it steps; one on a sharded target, whose reductions are
/// called from the main thread (MPI_THREAD_FUNNELED).
inline unsigned threads_for(const Options& opt, const RunConfig& c, const distributed::Layout& layout, std::size_t chains) {
  const unsigned local = opt.transport ? static_cast<unsigned>(std::max(1, opt.transport->ranks_on_this_machine())) : 1u;
  unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency() / local);
  std::size_t mine = 0;
  for (std::size_t i = 0; i < chains; ++i) mine += layout.steps(i) ? 1 : 0;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(mine, 1)));
  return c.shards > 1 ? 1u : threads;
}

/// Runs chain i from its current step to global step end[i] in rounds, handing each round's draws to the
/// writers (chains in order), so memory holds at most a round of draws. Returns each chain's status;
/// `interrupted` tells whether `opt.stop` ended the run early. With `rounds`, this rank steps only its
/// group's chains and the draws travel to rank 0 between rounds (run/distributed/rounds.hpp). With
/// `c.checkpoint_every` K, rounds end at multiples of K steps, where `checkpoint` is called.
inline std::vector<ChainStatus> advance_streaming(std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                                  const std::vector<std::uint64_t>& end, const Options& opt,
                                                  const output::RunHeader& header,
                                                  std::span<output::Writer* const> writers, std::vector<std::uint64_t>& kept,
                                                  bool& interrupted, distributed::Rounds* rounds,
                                                  const std::function<void(const std::vector<ChainStatus>&)>& checkpoint) {
  const Retention keep = c.retention;
  const std::size_t n = chains.size();
  std::vector<ChainStatus> status(n);
  std::vector<Draws> draws(n);
  for (auto& d : draws) d.with_lp = c.log_density;
  const distributed::Layout layout = rounds ? rounds->layout() : distributed::Layout{};
  parallel::WorkerPool pool(threads_for(opt, c, layout, n));
  const std::uint64_t every = c.checkpoint_every;
  std::vector<std::uint64_t> at(n), round(n), mine(n);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    at[i] = chains[i]->steps_done();
    if (layout.steps(i)) total += end[i] > at[i] ? end[i] - at[i] : 0;  // the bar counts this rank's chains
  }
  std::atomic<std::uint64_t> done{0};
  ProgressBar bar(opt.progress, total, done);
  // A round keeps about 4 MiB of draws per chain. Chains may start at different steps (a record of an
  // interrupted run): each has its own round ends, and a round of each keeps the same number of draws.
  const std::size_t width = static_cast<std::size_t>(header.dim()) + header.statistics.size() + 1;
  const std::uint64_t rows_per_round = std::max<std::uint64_t>(1, (std::uint64_t{1} << 22) / (8 * width));
  interrupted = false;
  for (;;) {
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t next = std::min(end[i], std::max(at[i] + 1, keep.step_keeping(saturating_add(keep.kept_by(at[i]), rows_per_round))));
      if (every) next = std::min(next, saturating_add(at[i] / every * every, every));
      round[i] = status[i].ok() && at[i] < end[i] ? next - at[i] : 0;
      mine[i] = layout.steps(i) ? round[i] : 0;
      any = any || round[i] > 0;
    }
    if (!any) break;
    advance_all(pool, chains, draws, status, mine, keep, done, opt.stop);
    bool stop = opt.stop && opt.stop->load();
    if (rounds) stop = rounds->exchange(chains, draws, status, at, stop);
    else
      for (std::size_t i = 0; i < n; ++i) at[i] = chains[i]->steps_done();
    bool at_checkpoint = false, running = false;
    for (std::size_t i = 0; i < n; ++i) {
      at_checkpoint = at_checkpoint || (every && round[i] > 0 && at[i] % every == 0);
      running = running || (status[i].ok() && at[i] < end[i]);
      if (draws[i].stats.empty()) continue;
      const output::DrawBlock block{i, header.dim(), draws[i].values, draws[i].stats, draws[i].lp};
      for (output::Writer* w : writers) w->append(block);
      kept[i] += draws[i].stats.size();
      draws[i].clear();
    }
    if (stop) {
      interrupted = true;
      break;
    }
    if (at_checkpoint && running && checkpoint) checkpoint(status);
  }
  return status;
}

/// The reproducibility tier this binary was built for (modules/simd/reproducibility.hpp): a record
/// written by a "native" build replays bit for bit only on a machine with its instruction set.
inline json build_of_this_binary() {
  return {{"tier", simd::portable_build ? "portable" : "native"}, {"isa", simd::compiled_isa}};
}

// The record without draws: schema, library, config, status, timings and each chain's status,
// diagnostics, state and number of draws kept.
inline json record_of(const RunConfig& c, const std::vector<json>& summaries, const std::vector<ChainStatus>& status,
                      const std::vector<std::uint64_t>& kept, json phases, bool interrupted) {
  json record = {{"schema", schema_name}, {"schema_version", schema_version},
                 {"library", {{"name", "sgmcmc"}, {"version", sgmcmc::version}, {"build", build_of_this_binary()}}},
                 {"config", c.resolved},
                 {"config_digest", config_digest(c.resolved)}};
  bool ok = true;
  json out = json::array();
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    json ch = {{"id", i}, {"stream", i}, {"status", status[i].ok() ? "ok" : "error"}, {"draws", kept[i]}};
    if (!status[i].ok()) {
      ch["error"] = fmt::format("chain {}: {}", i, status[i].error);
      ok = false;
    }
    ch["diagnostics"] = summaries[i].at("diagnostics");
    ch["state"] = summaries[i].at("state");
    out.push_back(std::move(ch));
  }
  record["status"] = !ok ? "error" : interrupted ? "interrupted" : "ok";
  record["chains"] = std::move(out);
  record["timings"] = {{"phases", std::move(phases)}};
  return record;
}

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

inline json phase(const char* name, std::uint64_t steps, double setup, double sampling) {
  return {{"phase", name}, {"steps", steps}, {"setup_seconds", setup}, {"sampling_seconds", sampling}};
}

// Runs `steps` more steps of built chains, streaming to the writers (which have had `begin` and any
// earlier draws), and finishes them with the record.
inline json continue_run(std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                         const std::vector<std::uint64_t>& end, const Options& opt, const output::RunHeader& header, std::span<output::Writer* const> writers,
                         std::vector<std::uint64_t> kept, json phases, const char* phase_name, double setup,
                         bool config_changed = false) {
  const auto t1 = Clock::now();
  bool interrupted = false;
  std::uint64_t steps = 0;  // the phase's steps: the longest chain's
  for (std::size_t i = 0; i < chains.size(); ++i) steps = std::max(steps, end[i] - std::min(end[i], chains[i]->steps_done()));
  std::optional<distributed::Rounds> rounds;
  if (opt.transport) rounds.emplace(*opt.transport, distributed::Layout{opt.transport->rank(), opt.transport->size(), c.shards});
  distributed::Rounds* over = rounds ? &*rounds : nullptr;
  const bool root = !over || over->root();
  const auto this_phase = [&](bool stopped) {
    json p = phase(phase_name, steps, setup, seconds_since(t1));
    if (stopped) p["interrupted"] = true;
    if (config_changed) p["config_changed"] = true;
    return p;
  };
  // A checkpoint: the record as it would be if the run were interrupted here, which `resume` continues
  // (docs/run-format.md); the JSON record writer writes it in place of the previous one.
  const auto checkpoint = [&](const std::vector<ChainStatus>& status) {
    const std::vector<json> summaries = summaries_of(chains, c, over);
    if (!root) return;
    json so_far = phases;
    so_far.push_back(this_phase(true));
    so_far.back()["checkpoint"] = true;
    const json record = record_of(c, summaries, status, kept, std::move(so_far), true);
    for (output::Writer* w : writers) w->checkpoint(record);
  };
  const auto status = advance_streaming(chains, c, end, opt, header, writers, kept, interrupted, over, checkpoint);
  const std::vector<json> summaries = summaries_of(chains, c, over);
  json record;
  if (root) {
    phases.push_back(this_phase(interrupted));
    record = record_of(c, summaries, status, kept, std::move(phases), interrupted);
    for (output::Writer* w : writers) w->finish(record);
  }
  return over ? over->share(record) : record;
}

// Checks a draw read back from a record against the run's shape.
inline void check_width(const output::RecordDraw& d, const output::RunHeader& h, std::uint64_t index) {
  if (static_cast<Eigen::Index>(d.values.size()) != h.dim())
    fail(fmt::format("/chains/{}/samples/{}", d.chain, index), fmt::format("expected {} numbers, got {}", h.dim(), d.values.size()));
}

// A draw read back, as a writer's row: statistics by name into a StepInfo, lp apart.
inline void add_draw(output::BlockBuffer& buffer, const output::RecordDraw& d) {
  StepInfo info;
  if (d.stats.empty()) info.acceptance = std::numeric_limits<double>::quiet_NaN();  // a version-1 record: unknown
  double lp = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [name, v] : d.stats) {
    if (name == "lp") lp = v;
    else if (auto s = output::statistic_named(name)) info.set(*s, v);
  }
  buffer.add(d.chain, d.values, info, lp);
}

}  // namespace detail

/// Runs a config from scratch, streaming its draws to `writers` (run/output/), and returns the record
/// without draws (each chain's `draws` counts them).
inline json run(const json& config, const Options& opt, const Registry& registry, std::span<output::Writer* const> writers) {
  const auto t0 = detail::Clock::now();
  const RunConfig c = detail::agreed([&] { return parse_config(config, registry, {opt.transport}); }, opt);
  std::vector<std::unique_ptr<AnyChain>> chains;
  for (std::uint64_t i = 0; i < c.chains; ++i) chains.push_back(make_chain(c, static_cast<std::uint32_t>(i)));
  const output::RunHeader header = detail::header_of(c, *chains.front(), c.steps);
  for (output::Writer* w : writers) w->begin(header);
  return detail::continue_run(chains, c, std::vector<std::uint64_t>(chains.size(), c.steps), opt, header, writers,
                              std::vector<std::uint64_t>(chains.size(), 0),
                              json::array(), "run", detail::seconds_since(t0));
}

/// Runs a config from scratch and returns the whole run record, draws included (schema version 2).
inline json run(const json& config, const Options& opt = {}, const Registry& registry = shipped_registry()) {
  output::RecordInMemory memory;
  output::Writer* writers[] = {&memory};
  run(config, opt, registry, writers);
  return std::move(memory.record());
}

/// Checks a record's schema and shape, naming the first field that is wrong. (A record read by
/// output::read_record has its draws taken out: `samples` is then an empty array.)
inline void validate_record(const json& r) {
  if (!r.is_object()) fail("", "expected a run record (a JSON object)");
  if (!r.contains("schema") || r["schema"] != schema_name)
    fail("/schema", fmt::format("expected \"{}\", got {}", schema_name, r.contains("schema") ? describe(r["schema"]) : "nothing"));
  if (!r.contains("schema_version") || !r["schema_version"].is_number_integer())
    fail("/schema_version", "expected an integer");
  // Read as the JSON integer it is (a 64-bit one: 2^32 + 2 is not version 2).
  const json& v = r["schema_version"];
  const bool positive = v.is_number_unsigned() ? v.get<std::uint64_t>() >= 1 : v.get<std::int64_t>() >= 1;
  if (!positive) fail("/schema_version", fmt::format("expected a version >= 1, got {}", describe(v)));
  if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(schema_version))
    fail("/schema_version", fmt::format("record has version {}, this build of sgmcmc {} reads up to {}", describe(v),
                                        sgmcmc::version, schema_version));
  for (const char* key : {"config", "chains", "timings"})
    if (!r.contains(key)) fail(std::string("/") + key, "required field is missing");
  if (!r["chains"].is_array()) fail("/chains", "expected an array of chains");
  for (std::size_t i = 0; i < r["chains"].size(); ++i) {
    const json& ch = r["chains"][i];
    const std::string p = fmt::format("/chains/{}", i);
    if (!ch.is_object()) fail(p, "expected an object");
    for (const char* key : {"samples", "state", "status"})
      if (!ch.contains(key)) fail(p + "/" + key, "required field is missing");
    if (!ch["samples"].is_array()) fail(p + "/samples", "expected an array of draws");
    if (ch.contains("sample_stats") && !ch["sample_stats"].is_object()) fail(p + "/sample_stats", "expected an object of columns");
  }
  if (!r["timings"].is_object() || !r["timings"].contains("phases") || !r["timings"]["phases"].is_array())
    fail("/timings/phases", "expected an array of phases");
}

namespace detail {

// Whether the record's config is the one its draws were made with (records without a digest, written
// before it existed, are taken as they are). Edited and not allowed: an error naming the field.
inline bool config_changed(const json& record, const Options& opt) {
  if (!record.contains("config_digest")) return false;
  const json& d = record["config_digest"];
  if (!d.is_string()) fail("/config_digest", fmt::format("expected a string, got {}", describe(d)));
  if (d.get<std::string>() == config_digest(record["config"])) return false;
  if (!opt.allow_changed_config)
    fail("/config", "the config was edited after the run was written (it no longer matches /config_digest): the "
                    "saved states and draws were made with other settings. Resume the record as written, or allow "
                    "the change explicitly (--allow-changed; C++: Options::allow_changed_config), which the "
                    "resumed record notes");
  return true;
}

// Checks what a resumed record must satisfy beyond its shape: each chain's identity and stream (two
// chains with one stream would make the same draws), its saved position finite and on the manifold (a
// step would silently project an edited one back), and its number of draws the one its steps_done,
// burn_in and thin keep (draws deleted or added; an impossible steps_done).
inline void check_restored(const json& record, const RunConfig& c, const std::vector<std::unique_ptr<AnyChain>>& chains,
                           const std::vector<std::uint64_t>& draws, bool config_changed) {
  const Retention keep = c.retention;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const json& ch = record["chains"][i];
    const std::string p = fmt::format("/chains/{}", i);
    for (const char* key : {"id", "stream"})
      if (ch.contains(key) && !(ch[key].is_number_unsigned() && ch[key].get<std::uint64_t>() == i))
        fail(p + "/" + key, fmt::format("expected {} (the chain's place in the record), got {}", i, describe(ch[key])));
    const json& rng = ch["state"]["rng"];
    if (rng["stream"].get<std::uint64_t>() != i)
      fail(p + "/state/rng/stream", fmt::format("expected stream {} for chain {}, got {}: chains sharing a stream make the same draws",
                                                i, i, rng["stream"].get<std::uint64_t>()));
    if (!config_changed && rng["seed"].get<std::uint64_t>() != c.seed)
      fail(p + "/state/rng/seed", fmt::format("expected the config's seed {}, got {}", c.seed, rng["seed"].get<std::uint64_t>()));
    const Eigen::VectorXd& x = chains[i]->position();
    if (!x.allFinite()) fail(p + "/state", "the saved position is not finite");
    if (const double d = c.manifold.manifold.distance_to(x); !(d <= resume_manifold_tolerance))
      fail(p + "/state", fmt::format("the saved position is {:.3g} off the {} manifold (tolerance {:g}): the state was edited or "
                                     "corrupted", d, c.manifold.kind, resume_manifold_tolerance));
    const std::uint64_t steps = chains[i]->steps_done(), expected = keep.kept_by(steps);
    if (draws[i] != expected)
      fail(p + "/draws", fmt::format("the record holds {} draws for chain {}, but {} steps with burn_in {} and thin {} keep {}: "
                                     "draws were deleted or added, or steps_done was edited", draws[i], i, steps, keep.burn_in,
                                     keep.thin, expected));
    if (ch.contains("draws") && !(ch["draws"].is_number_unsigned() && ch["draws"].get<std::uint64_t>() == draws[i]))
      fail(p + "/draws", fmt::format("says {} draws, but the record holds {}", describe(ch["draws"]), draws[i]));
  }
}

// Rebuilds a record's chains at their saved states, ready to continue.
inline std::vector<std::unique_ptr<AnyChain>> restore_chains(const json& record, const RunConfig& c) {
  if (record["chains"].size() != c.chains)
    fail("/chains", fmt::format("expected {} chains (config.chains), got {}", c.chains, record["chains"].size()));
  std::vector<std::unique_ptr<AnyChain>> chains;
  for (std::uint64_t i = 0; i < c.chains; ++i) {
    const json& ch = record["chains"][i];
    const std::string p = fmt::format("/chains/{}", i);
    if (ch["status"] != "ok")
      fail(p + "/status", fmt::format("chain {} stopped with an error ({}); it cannot be resumed", i,
                                      ch.contains("error") ? ch["error"].dump() : "no message"));
    chains.push_back(make_chain(c, static_cast<std::uint32_t>(i)));
    chains.back()->restore(ch["state"], p + "/state");
  }
  return chains;
}

/// Where each chain's resume ends: `steps` more steps, or (none given) the config's `steps` in all, which
/// completes an interrupted run.
inline std::vector<std::uint64_t> resume_ends(const std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                              std::optional<std::uint64_t> steps) {
  std::vector<std::uint64_t> end;
  for (const auto& ch : chains) {
    const std::uint64_t done = ch->steps_done();
    std::uint64_t e = 0;
    if (!steps) e = std::max(done, c.steps);
    else if (__builtin_add_overflow(done, *steps, &e)) fail("/chains", "steps_done + --steps overflows 64 bits");
    end.push_back(e);
  }
  return end;
}

inline std::uint64_t most(const std::vector<std::uint64_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

/// A record `sgmcmc thin` wrote holds a selection of draws, not chains that can go on.
inline void require_resumable(const json& record) {
  if (!record.contains("thinned")) return;
  const json& t = record["thinned"];
  const std::string source = t.is_object() && t.contains("source") && t["source"].is_string() ? t["source"].get<std::string>() : "the source";
  fail("/thinned", fmt::format("a thinned record holds a selection of draws, not chains to continue: resume {} instead", printable(source)));
}

inline RunConfig config_of(const json& record, const Registry& registry, const Placement& placement = {nullptr, true}) {
  try {
    return parse_config(record["config"], registry, placement);
  } catch (const Error& e) {
    throw Error(std::string("/config") + e.what());
  }
}

}  // namespace detail

/// Continues a record held in memory for `steps` more steps per chain (none: to the config's `steps`, which
/// completes an interrupted run), exactly as if the run had never stopped; returns the whole continued
/// record (schema version 2), draws included.
inline json resume(const json& record, std::optional<std::uint64_t> steps, const Options& opt = {},
                   const Registry& registry = shipped_registry()) {
  validate_record(record);
  detail::require_resumable(record);
  const auto t0 = detail::Clock::now();
  const bool changed = detail::config_changed(record, opt);
  const RunConfig c = detail::config_of(record, registry, {opt.transport});
  auto chains = detail::restore_chains(record, c);
  std::vector<std::uint64_t> held;
  for (const json& ch : record["chains"]) held.push_back(ch["samples"].size());
  detail::check_restored(record, c, chains, held, changed);
  const std::vector<std::uint64_t> end = detail::resume_ends(chains, c, steps);
  const output::RunHeader header = detail::header_of(c, *chains.front(), detail::most(end));
  output::RecordInMemory memory;
  output::Writer* writers[] = {&memory};
  memory.begin(header);
  std::vector<std::uint64_t> kept(c.chains, 0);
  {
    output::BlockBuffer buffer(writers, header);
    for (std::size_t i = 0; i < c.chains; ++i) {
      const json& ch = record["chains"][i];
      const json stats = ch.contains("sample_stats") ? ch["sample_stats"] : json::object();
      std::vector<std::pair<std::string, double>> row_stats;
      for (std::size_t k = 0; k < ch["samples"].size(); ++k) {
        const std::string p = fmt::format("/chains/{}/samples/{}", i, k);
        const Eigen::VectorXd x = as_vector(ch["samples"][k], p, header.dim());
        row_stats.clear();
        for (const auto& [name, column] : stats.items())
          row_stats.emplace_back(name, k < column.size() && column[k].is_number() ? column[k].get<double>() : std::nan(""));
        detail::add_draw(buffer, output::RecordDraw{i, std::span<const double>(x.data(), static_cast<std::size_t>(x.size())), row_stats});
        ++kept[i];
      }
    }
    buffer.flush();
  }
  json phases = record["timings"]["phases"];
  detail::continue_run(chains, c, end, opt, header, writers, kept, phases, "resume", detail::seconds_since(t0), changed);
  return std::move(memory.record());
}

/// Continues the record in file `path` for `steps` more steps per chain (none: to the config's `steps`),
/// streaming every draw (the
/// record's and the new ones) to `writers`; returns the continued record without draws.
inline json resume_file(const std::string& path, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
                        std::span<output::Writer* const> writers) {
  const auto t0 = detail::Clock::now();
  // First pass: the record without its draws (counted), to check it, build the chains and the writers'
  // header. Nothing is written unless the whole record passes.
  // Over MPI every rank reads the record and checks it; each stage goes on only where it passed on
  // every rank (detail::agreed), so a rank that cannot read the file stops them all with its error.
  std::vector<std::uint64_t> held;
  const auto in_file = [&](auto stage) {
    return detail::agreed([&] {
      try {
        return stage();
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}", path, e.what()));
      }
    }, opt);
  };
  bool changed = false;
  const json record = in_file([&] {
    json r = output::read_record(path, [&](const output::RecordDraw& d) {
      if (d.chain >= held.size()) held.resize(d.chain + 1, 0);
      ++held[d.chain];
    });
    validate_record(r);
    detail::require_resumable(r);
    changed = detail::config_changed(r, opt);
    return r;
  });
  RunConfig c = in_file([&] { return detail::config_of(record, registry, {opt.transport}); });
  std::vector<std::unique_ptr<AnyChain>> chains = in_file([&] {
    auto restored = detail::restore_chains(record, c);
    held.resize(restored.size(), 0);
    detail::check_restored(record, c, restored, held, changed);
    return restored;
  });
  const std::vector<std::uint64_t> end = detail::resume_ends(chains, c, steps);
  const output::RunHeader header = detail::header_of(c, *chains.front(), detail::most(end));
  for (output::Writer* w : writers) w->begin(header);
  // Second pass: the record's draws into the writers, as they are read (a rank without writers only
  // counts them: the first pass did).
  std::vector<std::uint64_t> kept(c.chains, 0);
  if (writers.empty()) kept.assign(held.begin(), held.end());
  else {
    output::BlockBuffer buffer(writers, header);
    output::read_record(path, [&](const output::RecordDraw& d) {
      if (d.chain >= c.chains) return;
      detail::check_width(d, header, kept[d.chain]);
      detail::add_draw(buffer, d);
      ++kept[d.chain];
    });
    buffer.flush();
  }
  return detail::continue_run(chains, c, end, opt, header, writers, kept, record["timings"]["phases"], "resume",
                              detail::seconds_since(t0), changed);
}

/// `sgmcmc convert`: writes the record in file `path` again through `writers` (another format, or JSON
/// version 2), streaming its draws. `stein`, when not null, is the record's
/// Stein report (run/stein.hpp, `convert --stein`): it goes into the record the writers finish with, so
/// every format carries it (JSON: the record's "stein"; Stan CSV: a comment line per chain; NetCDF:
/// stein_* variables).
inline void convert(const std::string& path, const Registry& registry, std::span<output::Writer* const> writers,
                    const json& stein = nullptr) {
  json record = output::read_record(path, [](const output::RecordDraw&) {});
  try {
    validate_record(record);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  const RunConfig c = detail::config_of(record, registry);
  // The chain at step 0 gives the sampler's statistics and the draw's shape; the record gives the rest.
  const auto chain = make_chain(c, 0);
  output::RunHeader header = detail::header_of(c, *chain, c.steps);
  std::uint64_t longest = 0;
  for (const auto& ch : record["chains"]) longest = std::max<std::uint64_t>(longest, ch.value("draws", std::uint64_t{0}));
  header.expected_draws = longest;
  for (output::Writer* w : writers) w->begin(header);
  {
    output::BlockBuffer buffer(writers, header);
    std::vector<std::uint64_t> seen(c.chains, 0);
    output::read_record(path, [&](const output::RecordDraw& d) {
      if (d.chain >= c.chains) return;
      detail::check_width(d, header, seen[d.chain]++);
      detail::add_draw(buffer, d);
    });
    buffer.flush();
  }
  record["schema_version"] = schema_version;
  for (auto& ch : record["chains"]) {
    ch.erase("samples");
    ch.erase("sample_stats");
  }
  if (!stein.is_null()) record["stein"] = stein;
  for (output::Writer* w : writers) w->finish(record);
}

}  // namespace sgmcmc::run
