#pragma once
// Runs a config's chains on threads and records the run as JSON (DESIGN.md §5); resumes a record.
//
// Record schema "sgmcmc.run", version 1 (docs/run-format.md):
//   {schema, schema_version, library{name, version}, config (every default filled in), status,
//    steps_done, timings{phases[{phase, steps, setup_seconds, sampling_seconds}]},
//    chains[{id, stream, status, error?, samples[[...]], diagnostics{...}, state{...}}]}
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::run {

inline constexpr const char* schema_name = "sgmcmc.run";
inline constexpr int schema_version = 1;

/// The registry of the shipped entries, built once.
inline const Registry& shipped_registry() {
  static const Registry registry = builtin_registry();
  return registry;
}

struct Options {
  unsigned threads = 0;   ///< 0: one per core (at most one per chain)
  bool progress = false;  ///< draw a progress bar on stderr
};

namespace detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Draws a progress bar on stderr until `done` is set.
class ProgressBar {
 public:
  ProgressBar(bool on, std::uint64_t total, const std::atomic<std::uint64_t>& count) {
    if (!on || total == 0) return;
    thread_ = std::jthread([&count, total, this](std::stop_token stop) {
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

inline json draws_json(const Draws& d) {
  json rows = json::array();
  const auto m = d.matrix();
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(std::vector<double>(m.row(i).begin(), m.row(i).end()));
  return rows;
}

// Advances every chain `steps` steps on up to `threads` threads; chain i's result does not depend on
// which thread runs it.
inline std::vector<ChainStatus> advance_all(std::vector<std::unique_ptr<AnyChain>>& chains, std::vector<Draws>& draws,
                                            std::uint64_t steps, const Retention& keep, const Options& opt) {
  std::vector<ChainStatus> status(chains.size());
  std::atomic<std::uint64_t> done{0};
  unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, chains.size()));
  {
    ProgressBar bar(opt.progress, steps * chains.size(), done);
    // The library's one thread pool (modules/parallel/worker_pool.hpp): chain i is advanced by whichever
    // worker takes index i, and its result depends on i alone.
    auto work = [&](std::size_t i, unsigned /*worker*/) {
      try {
        status[i] = chains[i]->advance(steps, keep, draws[i], &done);
      } catch (const std::exception& e) {
        status[i].error = e.what();
      }
    };
    parallel::WorkerPool pool(threads);
    pool.for_each(chains.size(), work);
  }
  return status;
}

}  // namespace detail

/// Runs a config from scratch and returns the run record.
inline json run(const json& config, const Options& opt = {}, const Registry& registry = shipped_registry()) {
  const auto t0 = detail::Clock::now();
  const RunConfig c = parse_config(config, registry);
  std::vector<std::unique_ptr<AnyChain>> chains;
  for (std::uint64_t i = 0; i < c.chains; ++i) chains.push_back(make_chain(c, static_cast<std::uint32_t>(i)));
  std::vector<Draws> draws(chains.size());
  const double setup = detail::seconds_since(t0);
  const auto t1 = detail::Clock::now();
  const auto status = detail::advance_all(chains, draws, c.steps, Retention{c.burn_in, c.thin}, opt);
  const double sampling = detail::seconds_since(t1);

  json record = {{"schema", schema_name}, {"schema_version", schema_version},
                 {"library", {{"name", "sgmcmc"}, {"version", sgmcmc::version}}}, {"config", c.resolved}};
  bool ok = true;
  json out = json::array();
  for (std::size_t i = 0; i < chains.size(); ++i) {
    json ch = {{"id", i}, {"stream", i}, {"status", status[i].ok() ? "ok" : "error"}};
    if (!status[i].ok()) {
      ch["error"] = fmt::format("chain {}: {}", i, status[i].error);
      ok = false;
    }
    ch["samples"] = detail::draws_json(draws[i]);
    ch["diagnostics"] = chains[i]->diagnostics();
    ch["state"] = chains[i]->state();
    out.push_back(std::move(ch));
  }
  record["status"] = ok ? "ok" : "error";
  record["chains"] = std::move(out);
  record["timings"] = {{"phases", json::array({{{"phase", "run"}, {"steps", c.steps}, {"setup_seconds", setup},
                                                 {"sampling_seconds", sampling}}})}};
  return record;
}

/// Checks a record's schema and shape, naming the first field that is wrong.
inline void validate_record(const json& r) {
  if (!r.is_object()) fail("", "expected a run record (a JSON object)");
  if (!r.contains("schema") || r["schema"] != schema_name)
    fail("/schema", fmt::format("expected \"{}\", got {}", schema_name, r.contains("schema") ? describe(r["schema"]) : "nothing"));
  if (!r.contains("schema_version") || !r["schema_version"].is_number_integer())
    fail("/schema_version", "expected an integer");
  const int v = r["schema_version"].get<int>();
  if (v > schema_version)
    fail("/schema_version", fmt::format("record has version {}, this build of sgmcmc {} reads up to {}", v, sgmcmc::version, schema_version));
  if (v < 1) fail("/schema_version", fmt::format("expected a version >= 1, got {}", v));
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
  }
}

/// Continues a record for `steps` more steps per chain, exactly as if the run had never stopped.
inline json resume(const json& record, std::uint64_t steps, const Options& opt = {}, const Registry& registry = shipped_registry()) {
  validate_record(record);
  const auto t0 = detail::Clock::now();
  RunConfig c;
  try {
    c = parse_config(record["config"], registry);
  } catch (const Error& e) {
    throw Error(std::string("/config") + e.what());
  }
  if (record["chains"].size() != c.chains)
    fail("/chains", fmt::format("expected {} chains (config.chains), got {}", c.chains, record["chains"].size()));
  std::vector<std::unique_ptr<AnyChain>> chains;
  std::vector<Draws> draws(c.chains);
  for (std::uint64_t i = 0; i < c.chains; ++i) {
    const json& ch = record["chains"][i];
    const std::string p = fmt::format("/chains/{}", i);
    if (ch["status"] != "ok")
      fail(p + "/status", fmt::format("chain {} stopped with an error ({}); it cannot be resumed", i,
                                      ch.contains("error") ? ch["error"].dump() : "no message"));
    chains.push_back(make_chain(c, static_cast<std::uint32_t>(i)));
    chains.back()->restore(ch["state"], p + "/state");
    draws[i].dim = chains.back()->position().size();
  }
  const Retention keep{c.burn_in, c.thin};
  const double setup = detail::seconds_since(t0);
  const auto t1 = detail::Clock::now();
  const auto status = detail::advance_all(chains, draws, steps, keep, opt);
  const double sampling = detail::seconds_since(t1);

  json out = record;
  bool ok = true;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    json& ch = out["chains"][i];
    for (auto& row : detail::draws_json(draws[i])) ch["samples"].push_back(std::move(row));
    ch["status"] = status[i].ok() ? "ok" : "error";
    if (!status[i].ok()) {
      ch["error"] = fmt::format("chain {}: {}", i, status[i].error);
      ok = false;
    }
    ch["diagnostics"] = chains[i]->diagnostics();
    ch["state"] = chains[i]->state();
  }
  out["status"] = ok ? "ok" : "error";
  out["timings"]["phases"].push_back({{"phase", "resume"}, {"steps", steps}, {"setup_seconds", setup}, {"sampling_seconds", sampling}});
  return out;
}

}  // namespace sgmcmc::run
