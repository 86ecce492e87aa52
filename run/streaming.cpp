// The run loop (run/streaming.hpp).
#include <sgmcmc/run/streaming.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <thread>

#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/run/checks.hpp>
#include <sgmcmc/run/distributed/rounds.hpp>
#include <sgmcmc/run/log_likelihood.hpp>
#include <sgmcmc/run/progress.hpp>
#include <sgmcmc/run/record_schema.hpp>
#include <sgmcmc/run/reported_scale.hpp>
#include <sgmcmc/run/samplers/preconditioned.hpp>

namespace sgmcmc::run::detail {

namespace {

// Advances chain i by steps[i] steps on the pool's threads; chain i's result does not depend on which
// thread runs it. A chain that has stopped with an error is not advanced again. seconds[i]: chain i's
// wall time in this call (one clock read before and after its chunk, never per step).
void advance_all(parallel::WorkerPool& pool, std::vector<std::unique_ptr<AnyChain>>& chains, std::vector<Draws>& draws,
                        std::vector<ChainStatus>& status, const std::vector<std::uint64_t>& steps, const Retention& keep,
                        std::vector<ChainProgress>& progress, const std::atomic<bool>* stop, std::vector<double>& seconds) {
  // The library's one thread pool (modules/parallel/worker_pool.hpp): chain i is advanced by whichever
  // worker takes index i, and its result depends on i alone.
  auto work = [&](std::size_t i, unsigned /*worker*/) {
    seconds[i] = 0;
    if (!status[i].ok() || steps[i] == 0) return;
    const auto t0 = Clock::now();
    try {
      status[i] = chains[i]->advance(steps[i], keep, draws[i], &progress[i].steps, stop);
    } catch (const std::exception& e) {
      status[i].error = e.what();
    }
    if (!status[i].ok()) progress[i].failed.store(true, std::memory_order_relaxed);
    seconds[i] = seconds_since(t0);
  };
  pool.for_each(chains.size(), work);
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

/// What the record keeps of a chain besides its draws: {diagnostics, state, timing}.
json chain_summary(const AnyChain& chain, const RunConfig& c, const ChainTiming& timing) {
  return {{"diagnostics", chain.diagnostics(c.manifold.manifold.intrinsic_dim())}, {"state", chain.state()},
          {"timing", {{"warmup_seconds", timing.warmup_seconds}, {"sampling_seconds", timing.sampling_seconds}}}};
}

/// Every chain's summary on rank 0 (all of them in a single process; an empty list on other ranks);
/// `timing` as the rank that steps the chain measured it.
std::vector<json> summaries_of(const std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                      distributed::Rounds* rounds, const std::vector<ChainTiming>& timing) {
  const auto summary = [&](const AnyChain& chain) {
    std::size_t i = 0;
    while (i + 1 < chains.size() && chains[i].get() != &chain) ++i;
    return chain_summary(chain, c, timing[i]);
  };
  if (rounds) return rounds->summaries(chains, summary);
  std::vector<json> out;
  for (const auto& ch : chains) out.push_back(summary(*ch));
  return out;
}

/// The threads a rank steps its chains on: Options::threads, else the machine's cores divided among
/// the ranks on it; at most one per chain it steps; one on a sharded target, whose reductions are
/// called from the main thread (MPI_THREAD_FUNNELED).
unsigned threads_for(const Options& opt, const RunConfig& c, const distributed::Layout& layout, std::size_t chains) {
  if (opt.threads > parallel::thread_cap())
    throw Error(fmt::format("threads (--threads; C++: Options::threads): expected at most {} (four per core of this machine, at "
                            "least 64), got {}", parallel::thread_cap(), opt.threads));
  const unsigned local = opt.transport ? static_cast<unsigned>(std::max(1, opt.transport->ranks_on_this_machine())) : 1u;
  unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency() / local);
  threads = std::min(threads, std::max(1u, parallel::thread_cap() / std::max(1u, c.target.threads_per_chain)));
  std::size_t mine = 0;
  for (std::size_t i = 0; i < chains; ++i) mine += layout.steps(i) ? 1 : 0;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(mine, 1)));
  return c.shards > 1 ? 1u : threads;
}

/// Runs chain i from its current step to global step end[i] in rounds, handing each round's draws to the
/// writers (chains in order), so memory holds at most a round of draws. Returns each chain's status;
/// `interrupted` tells whether `opt.stop` ended the run early. With `rounds`, this rank steps only its
/// group's chains and the draws travel to rank 0 between rounds (run/distributed/rounds.hpp). With
/// `c.checkpoint_every` K, rounds end at multiples of K steps, where `checkpoint` is called. A round
/// also ends at the burn-in, so that each chain's time (added to `timing`) splits exactly into warm-up
/// and sampling, and the writers get each chain's state there (Writer::warm_up_done) before its draws.
std::vector<ChainStatus> advance_streaming(std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                                                  const std::vector<std::uint64_t>& end, const Options& opt,
                                                  const output::RunHeader& header,
                                                  std::span<output::Writer* const> writers, std::vector<std::uint64_t>& kept,
                                                  bool& interrupted, distributed::Rounds* rounds,
                                                  const std::function<void(const std::vector<ChainStatus>&)>& checkpoint,
                                                  std::vector<ChainTiming>& timing, std::vector<diagnostics::ChainChecker>& checkers) {
  const Retention keep = c.retention;
  const std::size_t n = chains.size();
  std::vector<ChainStatus> status(n);
  std::vector<Draws> draws(n);
  for (auto& d : draws) d.with_lp = c.log_density;
  const distributed::Layout layout = rounds ? rounds->layout() : distributed::Layout{};
  parallel::WorkerPool pool(threads_for(opt, c, layout, n));
  const std::uint64_t every = c.checkpoint_every;
  std::vector<std::uint64_t> at(n), round(n), mine(n);
  std::vector<ChainSpan> spans(n);
  std::vector<double> seconds(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    at[i] = chains[i]->steps_done();
    if (layout.steps(i)) spans[i] = {at[i], std::max(at[i], end[i])};  // the display shows this rank's chains
  }
  std::vector<ChainProgress> progress(n);
  const ProgressDisplay display(opt.progress, progress, std::move(spans), keep.burn_in);
  // A round keeps about 4 MiB of draws per chain. Chains may start at different steps (a record of an
  // interrupted run): each has its own round ends, and a round of each keeps the same number of draws.
  const std::size_t width = static_cast<std::size_t>(header.dim() + header.log_likelihood) + header.statistics.size() + 1;
  std::vector<std::vector<double>> log_lik(header.log_likelihood > 0 ? n : 0);
  const std::uint64_t rows_per_round = std::max<std::uint64_t>(1, (std::uint64_t{1} << 22) / (8 * width));
  interrupted = false;
  for (;;) {
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t next = std::min(end[i], std::max(at[i] + 1, keep.step_keeping(saturating_add(keep.kept_by(at[i]), rows_per_round))));
      if (every) next = std::min(next, saturating_add(at[i] / every * every, every));
      // Warm-up draws kept (save_warmup): a round of the burn-in keeps at most a round's rows of them too.
      if (keep.save_warmup && at[i] < keep.burn_in) {
        std::uint64_t span = 0;
        if (__builtin_mul_overflow(rows_per_round, keep.thin, &span)) span = std::numeric_limits<std::uint64_t>::max();
        next = std::min(next, std::max(at[i] + 1, saturating_add(at[i], span)));
      }
      if (at[i] < c.burn_in) next = std::min(next, c.burn_in);
      round[i] = status[i].ok() && at[i] < end[i] ? next - at[i] : 0;
      mine[i] = layout.steps(i) ? round[i] : 0;
      any = any || round[i] > 0;
    }
    if (!any) break;
    advance_all(pool, chains, draws, status, mine, keep, progress, opt.stop, seconds);
    bool warmed_up = false;
    for (std::size_t i = 0; i < n; ++i) {
      const bool warm_up = at[i] < c.burn_in;  // the round started in the burn-in, so it ended there
      (warm_up ? timing[i].warmup_seconds : timing[i].sampling_seconds) += seconds[i];
      warmed_up = warmed_up || (warm_up && round[i] > 0);
    }
    bool stop = opt.stop && opt.stop->load();
    if (rounds) stop = rounds->exchange(chains, draws, status, at, stop);
    else
      for (std::size_t i = 0; i < n; ++i) at[i] = chains[i]->steps_done();
    // The round's pointwise log-likelihoods, where the draws are written (rank 0 of an MPI run, after
    // the exchange), chain i's from its own copy of the target, on the pool's threads.
    if (!log_lik.empty() && (!rounds || rounds->root())) {
      auto compute = [&](std::size_t i, unsigned) {
        append_log_likelihood(chains[i]->target(), draws[i].values, header.dim(), log_lik[i]);
      };
      pool.for_each(n, compute);
    }
    if (warmed_up) {  // every rank takes part (summaries_of gathers the states on rank 0)
      const std::vector<json> states = summaries_of(chains, c, rounds, timing);
      for (std::size_t i = 0; i < states.size(); ++i)
        if (round[i] > 0 && at[i] == c.burn_in)
          for (output::Writer* w : writers) w->warm_up_done(i, warm_up_of(states[i].at("state")));
    }
    bool at_checkpoint = false, running = false;
    for (std::size_t i = 0; i < n; ++i) {
      at_checkpoint = at_checkpoint || (every && round[i] > 0 && at[i] % every == 0);
      running = running || (status[i].ok() && at[i] < end[i]);
      if (draws[i].stats.empty()) continue;
      if (!checkers.empty())  // the draws after the burn-in (rank 0: where the draws are written)
        for (std::size_t r = draws[i].warmup_rows; r < draws[i].stats.size(); ++r)
          checkers[i].observe(Eigen::Map<const Eigen::VectorXd>(draws[i].values.data() + r * static_cast<std::size_t>(header.dim()), header.dim()),
                              draws[i].stats[r]);
      report_in_place(chains[i]->target(), draws[i].values, header.dim());  // checked and lp'd as sampled, written as reported
      const output::DrawBlock block{i, header.dim(), draws[i].values, draws[i].stats, draws[i].lp,
                                    log_lik.empty() ? std::span<const double>() : log_lik[i], draws[i].warmup_rows};
      for (output::Writer* w : writers) w->append(block);
      kept[i] += draws[i].stats.size() - draws[i].warmup_rows;  // the record's `draws`: after the burn-in
      draws[i].clear();
      if (!log_lik.empty()) log_lik[i].clear();
    }
    if (stop) {
      interrupted = true;
      break;
    }
    if (at_checkpoint && running && checkpoint) checkpoint(status);
  }
  return status;
}

}  // namespace

json continue_run(std::vector<std::unique_ptr<AnyChain>>& chains, const RunConfig& c,
                         const std::vector<std::uint64_t>& end, const Options& opt, const output::RunHeader& header, std::span<output::Writer* const> writers,
                         std::vector<std::uint64_t> kept, json phases, const char* phase_name, double setup,
                         Changes changed, std::vector<ChainTiming> timing, std::vector<diagnostics::ChainChecker> checkers) {
  if (opt.sampling) opt.sampling->store(true);  // set-up has ended: from here `stop` keeps what was drawn
  const auto t1 = Clock::now();
  bool interrupted = false;
  std::uint64_t steps = 0;  // the phase's steps: the longest chain's
  for (std::size_t i = 0; i < chains.size(); ++i) steps = std::max(steps, end[i] - std::min(end[i], chains[i]->steps_done()));
  std::optional<distributed::Rounds> rounds;
  if (opt.transport) rounds.emplace(*opt.transport, distributed::Layout{opt.transport->rank(), opt.transport->size(), c.shards});
  distributed::Rounds* over = rounds ? &*rounds : nullptr;
  const bool root = !over || over->root();
  timing.resize(chains.size());
  const auto this_phase = [&](bool stopped) {
    json p = phase(phase_name, steps, setup, seconds_since(t1));
    if (c.tuning_seconds > 0) p["tuning_seconds"] = c.tuning_seconds;
    if (stopped) p["interrupted"] = true;
    if (changed.config) p["config_changed"] = true;
    if (changed.data) p["data_changed"] = true;
    return p;
  };
  // A checkpoint: the record as it would be if the run were interrupted here, which `resume` continues
  // (docs/run-format.md); the JSON record writer writes it in place of the previous one.
  const auto checkpoint = [&](const std::vector<ChainStatus>& status) {
    const std::vector<json> summaries = summaries_of(chains, c, over, timing);
    if (!root) return;
    json so_far = phases;
    so_far.push_back(this_phase(true));
    so_far.back()["checkpoint"] = true;
    const json record = record_of(c, summaries, status, kept, std::move(so_far), true);
    for (output::Writer* w : writers) w->checkpoint(record);
  };
  // Every chain's default checks (run/checks.hpp) over the draws of this run or resume, on rank 0.
  if (!root) checkers.clear();
  else if (checkers.empty())
    for (std::size_t i = 0; i < chains.size(); ++i) {
      const std::uint64_t from = chains[i]->steps_done();
      checkers.emplace_back(header.dim(), c.retention.kept_by(std::max(from, end[i])) - c.retention.kept_by(from), check_facts(header, c));
    }
  const auto status = advance_streaming(chains, c, end, opt, header, writers, kept, interrupted, over, checkpoint, timing, checkers);
  const std::vector<json> summaries = summaries_of(chains, c, over, timing);
  json record;
  if (root) {
    phases.push_back(this_phase(interrupted));
    record = record_of(c, summaries, status, kept, std::move(phases), interrupted);
    std::vector<diagnostics::ChainCheck> checks(chains.size());
    // Rank 0 alone measures them: its threads, never threads_for (which asks the transport for the
    // ranks on this machine, a collective call the other ranks are not making now).
    const unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    parallel::WorkerPool pool(std::min<unsigned>(static_cast<unsigned>(chains.size()), threads));
    auto finish = [&](std::size_t i, unsigned) { checks[i] = finish_check(checkers[i], c, chains[i]->target()); };
    pool.for_each(chains.size(), finish);
    for (std::size_t i = 0; i < chains.size(); ++i) {
      record["chains"][i]["checks"] = checks_json(checks[i]);
      record["chains"][i]["warnings"] = warnings_json(checks[i]);
    }
    output::finish_all(writers, record);
  }
  return over ? over->share(record) : record;
}

}  // namespace sgmcmc::run::detail
