// Resuming a record (run/resume.hpp).
#include <sgmcmc/run/resume.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include <sgmcmc/run/data_files.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/record_schema.hpp>
#include <sgmcmc/run/checks.hpp>
#include <sgmcmc/run/streaming.hpp>
#include <sgmcmc/run/log_likelihood.hpp>
#include <sgmcmc/run/reported_scale.hpp>

namespace sgmcmc::run {

namespace detail {

/// A chain's `burn_in_draws` (save_warmup: the warm-up draws its `samples` begin with; 0 when absent or
/// not a count, which the checks then name).
std::uint64_t burn_in_draws_of(const json& ch) {
  return ch.is_object() && ch.contains("burn_in_draws") && ch["burn_in_draws"].is_number_unsigned() ? ch["burn_in_draws"].get<std::uint64_t>() : 0;
}

bool config_changed(const json& record, const Options& opt) {
  if (!record.contains("config_digest")) {
    if (opt.allow_changed_config) return true;
    fail("/config_digest", "required field is missing: without it a resume cannot tell the config the draws were made with "
                           "from an edited one. Allow that explicitly (--allow-changed; C++: Options::allow_changed_config), "
                           "which the resumed record notes");
  }
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

void check_restored(const json& record, const RunConfig& c, const std::vector<std::unique_ptr<AnyChain>>& chains,
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
    // save_warmup: the warm-up draws the steps kept, before the draws (read_record checked the count's type).
    const std::uint64_t warmup = burn_in_draws_of(ch);
    if (warmup != keep.warmup_kept_by(steps))
      fail(p + "/burn_in_draws", fmt::format("the record holds {} warm-up draws for chain {}, but {} steps with burn_in {}, thin {} and "
                                            "save_warmup {} keep {}", warmup, i, steps, keep.burn_in, keep.thin, keep.save_warmup,
                                            keep.warmup_kept_by(steps)));
    if (draws[i] != expected)
      fail(p + "/draws", fmt::format("the record holds {} draws for chain {}, but {} steps with burn_in {} and thin {} keep {}: "
                                     "draws were deleted or added, or steps_done was edited", draws[i], i, steps, keep.burn_in,
                                     keep.thin, expected));
    if (ch.contains("draws") && !(ch["draws"].is_number_unsigned() && ch["draws"].get<std::uint64_t>() == draws[i]))
      fail(p + "/draws", fmt::format("says {} draws, but the record holds {}", describe(ch["draws"]), draws[i]));
  }
}

std::vector<std::unique_ptr<AnyChain>> restore_chains(const json& record, const RunConfig& c) {
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

std::vector<std::uint64_t> resume_ends(const std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
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

std::uint64_t most(const std::vector<std::uint64_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }


void require_resumable(const json& record) {
  if (!record.contains("thinned")) return;
  const json& t = record["thinned"];
  const std::string source = t.is_object() && t.contains("source") && t["source"].is_string() ? t["source"].get<std::string>() : "the source";
  fail("/thinned", fmt::format("a thinned record holds a selection of draws, not chains to continue: resume {} instead", printable(source)));
}


namespace {

// Hands a record's draws over in order, chain by chain, as output::read_record does for a file.
using Replay = std::function<void(Eigen::Index dim, const std::function<void(const output::RecordDraw&)>& on_draw)>;

// The one resume path. `read` returns the record (draws taken out, or left in for a record in memory)
// and counts each chain's draws into `held`; `replay` hands the draws over again. `source` (a file's
// name, or empty) prefixes the errors of reading and checking. Over MPI each stage goes on only where
// it passed on every rank (agreed), so a rank that cannot read the file stops them all with its error.
json resume_from(const std::string& source, const std::function<const json&(std::vector<std::uint64_t>& held)>& read,
                 const Replay& replay, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
                 std::span<output::Writer* const> writers) {
  const auto t0 = Clock::now();
  const auto stage = [&](auto work) {
    return agreed([&] {
      try {
        return work();
      } catch (const Error& e) {
        if (source.empty()) throw;
        throw Error(fmt::format("{}: {}", source, e.what()));
      }
    }, opt);
  };
  // First: the record without its draws (counted), to check it, build the chains and the writers'
  // header. Nothing is written unless the whole record passes.
  std::vector<std::uint64_t> held;
  Changes changed;
  const json* read_record = stage([&] {
    const json& r = read(held);
    validate_record(r);
    require_resumable(r);
    changed.config = config_changed(r, opt);
    return &r;
  });
  const json& record = *read_record;
  // Relative data paths in a record are relative to its own folder (run/data_files.hpp).
  const std::filesystem::path folder = source.empty() ? std::filesystem::path() : std::filesystem::path(source).parent_path();
  RunConfig c = stage([&] {
    RunConfig parsed = config_of(record, registry, {opt.transport}, folder);
    changed.data = data_changed(record, parsed, opt);
    refuse_outputs_over_data(parsed, writers);
    return parsed;
  });
  write_paths_for(c, opt);
  std::vector<std::unique_ptr<AnyChain>> chains = stage([&] {
    auto restored = restore_chains(record, c);
    held.resize(restored.size(), 0);
    check_restored(record, c, restored, held, changed.config);
    return restored;
  });
  const std::vector<std::uint64_t> end = resume_ends(chains, c, steps);
  const output::RunHeader header = header_of(c, *chains.front(), most(end));
  for (output::Writer* w : writers) w->begin(header);
  warm_ups_from_record(writers, record, c);
  // Then the record's draws into the writers, as they are replayed (a rank without writers only
  // counts them: the first pass did).
  std::vector<std::uint64_t> kept(c.chains, 0);
  // Each chain's default checks (run/checks.hpp) see the record's draws first and then the new ones, so
  // that a resumed run's checks are those of the uninterrupted run.
  std::vector<diagnostics::ChainChecker> checkers;
  if (writers.empty()) kept.assign(held.begin(), held.end());
  else {
    for (std::size_t i = 0; i < chains.size(); ++i) checkers.emplace_back(header.dim(), c.retention.kept_by(end[i]), check_facts(header, c));
    output::BlockBuffer buffer(writers, header, log_likelihood_of(chains.front()->target(), header.dim()));
    replay(header.dim(), [&](const output::RecordDraw& d) {
      if (d.chain >= c.chains) return;
      check_width(d, header, kept[d.chain]);
      add_draw(buffer, d);
      if (!d.warmup)
        checkers[d.chain].observe(sampled_point(chains.front()->target(), Eigen::Map<const Eigen::VectorXd>(d.values.data(), header.dim()),
                                                fmt::format("/chains/{}/samples", d.chain)),
                                  step_info_of(d, header.statistics));
      ++kept[d.chain];
    });
    buffer.flush();
  }
  std::vector<ChainTiming> timing;
  for (const json& ch : record["chains"]) timing.push_back(timing_of(ch));
  return continue_run(chains, c, end, opt, header, writers, kept, record["timings"]["phases"], "resume",
                      seconds_since(t0), changed, std::move(timing), std::move(checkers));
}

}  // namespace
}  // namespace detail

json resume(const json& record, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry) {
  output::RecordInMemory memory;
  output::Writer* writers[] = {&memory};
  resume(record, steps, opt, registry, writers);
  return std::move(memory.record());
}

json resume(const json& record, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
            std::span<output::Writer* const> writers) {
  const auto read = [&](std::vector<std::uint64_t>& held) -> const json& {
    if (record.is_object() && record.contains("chains") && record["chains"].is_array())
      for (const json& ch : record["chains"]) {
        const std::uint64_t rows = ch.is_object() && ch.contains("samples") && ch["samples"].is_array() ? ch["samples"].size() : 0;
        held.push_back(rows - std::min(rows, detail::burn_in_draws_of(ch)));
      }
    return record;
  };
  const auto replay = [&](Eigen::Index dim, const std::function<void(const output::RecordDraw&)>& on_draw) {
    std::vector<std::pair<std::string, double>> row_stats;
    for (std::size_t i = 0; i < record["chains"].size(); ++i) {
      const json& ch = record["chains"][i];
      const json stats = ch.contains("sample_stats") ? ch["sample_stats"] : json::object();
      const std::uint64_t warmup = detail::burn_in_draws_of(ch);
      for (std::size_t k = 0; k < ch["samples"].size(); ++k) {
        const Eigen::VectorXd x = as_vector(ch["samples"][k], fmt::format("/chains/{}/samples/{}", i, k), dim);
        row_stats.clear();
        for (const auto& [name, column] : stats.items())
          row_stats.emplace_back(name, k < column.size() && column[k].is_number() ? column[k].get<double>() : std::nan(""));
        on_draw(output::RecordDraw{i, std::span<const double>(x.data(), static_cast<std::size_t>(x.size())), row_stats, k < warmup});
      }
    }
  };
  return detail::resume_from("", read, replay, steps, opt, registry, writers);
}

json resume_file(const std::string& path, std::optional<std::uint64_t> steps, const Options& opt, const Registry& registry,
                 std::span<output::Writer* const> writers) {
  json record;
  const auto read = [&](std::vector<std::uint64_t>& held) -> const json& {
    record = output::read_record(path, [&](const output::RecordDraw& d) {
      if (d.chain >= held.size()) held.resize(d.chain + 1, 0);
      if (!d.warmup) ++held[d.chain];
    });
    return record;
  };
  const auto replay = [&](Eigen::Index, const std::function<void(const output::RecordDraw&)>& on_draw) {
    output::read_record(path, on_draw);
  };
  return detail::resume_from(path, read, replay, steps, opt, registry, writers);
}

}  // namespace sgmcmc::run
