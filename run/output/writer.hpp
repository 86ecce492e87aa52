#pragma once
// Writers: a run's kept draws streamed to a file format as the chains make them, so a run's memory does
// not grow with the number of draws kept. The runner advances its chains in rounds of steps; after each
// round it hands every chain's new draws to each writer (one thread, chains in order, a chain's blocks
// in draw order), and at the end the run's record without draws (status, chains' diagnostics and
// states, timings) to `finish`, which makes the output appear whole (run/output/atomic_file.hpp).
// `sgmcmc convert` feeds the same writers from a record read back.
//
// Formats: the JSON run record (run/output/json_record.hpp; docs/run-format.md), Stan CSV
// (run/output/stan_csv.hpp), ArviZ InferenceData as NetCDF-4 (run/output/netcdf.hpp), each registered
// under its `--format` name (run/output/formats.hpp, builtin_formats.hpp); a user's own tool registers
// its own (examples/custom_cli/table_format.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/parameters.hpp>

namespace sgmcmc::run::output {

using json = nlohmann::json;

/// The metric the run's sampler moves in, as Stan's readers name it: the identity (`unit_e`), a
/// diagonal preconditioner's (`diag_e`), or a dense or low-rank-plus-diagonal one's (`dense_e`) — given
/// (`given_inverse`: its inverse metric SSᵀ, s² for a diagonal, the d×d matrix row-major for a dense one)
/// or adapted over the first `adapt_steps` steps (each chain's own comes with Writer::warm_up_done).
/// Filled by the run layer from the sampler's choice (run/samplers/preconditioned.hpp), so formats read
/// no sampler's JSON.
struct MetricFacts {
  bool diagonal = false;
  bool dense = false;                  ///< dense_e (then `diagonal` is false)
  std::uint64_t adapt_steps = 0;       ///< K > 0: estimated over steps < K; 0: given, or none
  std::vector<double> given_inverse;   ///< SSᵀ of a given factor (empty: adapted, or none)
  std::uint64_t burn_in = 0;
  bool adapted_in_warm_up() const { return adapt_steps > 0 && adapt_steps <= burn_in; }
  bool any() const { return diagonal || dense; }
  /// Stan's name of the metric.
  const char* stan_name() const { return dense ? "dense_e" : diagonal ? "diag_e" : "unit_e"; }
  /// The numbers of an inverse metric in dimension d: d (diag_e) or d² (dense_e, row-major).
  std::size_t inverse_size(std::size_t d) const { return dense ? d * d : d; }
};

/// A chain's state at the end of its burn-in, as far as a format writes it: the inverse metric its
/// warm-up adapted (MetricFacts::inverse_size numbers; empty when none was adapted).
struct WarmUp {
  std::vector<double> inverse_metric;
};

/// What every format needs before the first draw.
struct RunHeader {
  json config;                        ///< the config with every default filled in (docs/config.md)
  std::string sampler;                ///< the sampler's name as the config gives it
  std::size_t chains = 0;
  Parameters parameters;              ///< a draw's named blocks (run/output/parameters.hpp): by default one `x` of the manifold's shape
  std::vector<const Statistic*> statistics;  ///< the sampler's per-draw statistics, as it declares them (Statistics::ordered)
  bool has_lp = false;                ///< draws carry lp = −U(x) (config "log_density": true)
  bool save_warmup = false;           ///< warm-up draws come first, marked (DrawBlock::warmup_rows; config "save_warmup")
  std::uint64_t expected_warmup = 0;  ///< warm-up draws per chain when save_warmup (⌈burn_in / thin⌉)
  /// N > 0: each draw carries log p(y_i | x) of the target's N examples (config "log_likelihood": true)
  Eigen::Index log_likelihood = 0;
  std::uint64_t expected_draws = 0;   ///< kept draws per chain when no chain stops early (a chain may keep fewer)
  /// Null for a run's draws; for `sgmcmc thin`'s, how they were picked ({"method": "stein", "source",
  /// "kernel", "to"}): a reordered selection with repeats, on which ESS and R̂ mean nothing. Each format
  /// marks it (the record's `thinned` adds each chain's indices and KSDs at `finish`).
  json thinning;
  std::string library_version;
  MetricFacts metric;                 ///< the sampler's metric (Stan CSV's metric line and adaptation block)
  /// Null for a run whose step size was given; for a tuned one (run/tune.hpp), how it was chosen and
  /// what: {"method", "chosen": {step_size, ...}} (the Stan CSV's header and adaptation flag, NetCDF's
  /// attributes).
  json tuning;

  Eigen::Index dim() const { return parameters.dim(); }
};

/// One chain's next kept draws: `rows` draws, row-major (`dim` values each), the step statistics of
/// each, lp = −U(x) of each when the header says so (else empty), and the pointwise log-likelihood of
/// each when the header's `log_likelihood` N > 0 (N values per draw, row-major; else empty). The first
/// `warmup_rows` rows are warm-up draws (config `save_warmup`; a chain's warm-up draws all come before
/// its first draw after the burn-in).
struct DrawBlock {
  std::size_t chain = 0;
  Eigen::Index dim = 0;
  std::span<const double> values;
  std::span<const StepInfo> stats;
  std::span<const double> lp;
  std::span<const double> log_lik;
  std::size_t warmup_rows = 0;
  std::size_t rows() const { return stats.size(); }
  /// Rows [first, first + count) as a block of their own (its warm-up rows those among them).
  DrawBlock slice(std::size_t first, std::size_t count) const {
    const auto d = static_cast<std::size_t>(dim);
    const std::size_t per_lp = lp.empty() ? 0 : 1, per_ll = rows() ? log_lik.size() / rows() : 0;
    return {chain, dim, values.subspan(first * d, count * d), stats.subspan(first, count), lp.subspan(first * per_lp, count * per_lp),
            log_lik.subspan(first * per_ll, count * per_ll), first < warmup_rows ? std::min(count, warmup_rows - first) : 0};
  }
  /// The warm-up rows, and the rows after the burn-in (a format without a place for warm-up draws
  /// writes only these).
  DrawBlock warmup() const { return slice(0, warmup_rows); }
  DrawBlock sampling() const { return slice(warmup_rows, rows() - warmup_rows); }
  std::span<const double> row(std::size_t i) const {
    return values.subspan(i * static_cast<std::size_t>(dim), static_cast<std::size_t>(dim));
  }
};

/// A streaming output format. Errors are thrown as sgmcmc::Error naming the file.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void begin(const RunHeader& header) = 0;
  /// Appends a chain's next draws (blocks of a chain arrive in order; chains may interleave).
  virtual void append(const DrawBlock& block) = 0;
  /// Completes the output and makes it appear under its name: `record` is the run record without draws
  /// (docs/run-format.md: schema, config, status, timings, chains[i]{id, status, error?, diagnostics,
  /// state}, and chains[i].draws, the number of draws the chain kept).
  virtual void finish(const json& record) = 0;
  /// `finish` in two steps, for outputs that must appear together (finish_all): `prepare` completes the
  /// output without making it appear — everything that can fail (writing, flushing to disk) happens
  /// here — and `commit` makes it appear (a rename). A format without the two steps finishes in
  /// `prepare` (the defaults): its output appears then.
  virtual void prepare(const json& record) { finish(record); }
  virtual void commit() {}
  /// A checkpoint (config `checkpoint_every`): the record as if the run were interrupted here, status
  /// "interrupted", which `resume` continues. A format that can be resumed from writes it in place of
  /// the previous one and goes on taking draws; the others (Stan CSV, NetCDF: outputs, not states) ignore it.
  virtual void checkpoint(const json& /*record*/) {}
  /// Chain `chain` has ended its burn-in (CmdStan's warm-up): what it adapted there. Called before any of
  /// the chain's kept draws are appended (by run, resume, convert and thin), and not at all without a
  /// burn-in. A format that writes what a warm-up adapted (Stan CSV's adaptation block) takes it; the
  /// others ignore it.
  virtual void warm_up_done(std::size_t /*chain*/, const WarmUp& /*warm_up*/) {}
  /// The files this writer makes (for messages).
  virtual std::vector<std::string> files() const = 0;
};

/// Finishes `writers` all or nothing (the README's promise for `--format json,csv,netcdf`): every one is
/// prepared before any is committed, so a format that fails to write leaves every output as it was. A
/// commit (a rename) failing midway says which outputs were replaced and which were not.
inline void finish_all(std::span<Writer* const> writers, const json& record) {
  for (Writer* w : writers) w->prepare(record);
  // The renames are not interrupted by SIGINT or SIGTERM (held until they are done): a handler that
  // exits at once (the command line's) leaves all the outputs replaced or none.
  const run::detail::HoldSignals hold;
  std::string replaced;
  for (std::size_t i = 0; i < writers.size(); ++i) {
    try {
      writers[i]->commit();
    } catch (const Error& e) {
      std::string kept;
      for (std::size_t j = i; j < writers.size(); ++j)
        for (const auto& f : writers[j]->files()) kept += (kept.empty() ? "" : ", ") + f;
      throw Error(fmt::format("{}; outputs replaced before this failure: {}; not replaced (left as they were): {}", e.what(),
                              replaced.empty() ? "none" : replaced, kept.empty() ? "none" : kept));
    }
    for (const auto& f : writers[i]->files()) replaced += (replaced.empty() ? "" : ", ") + f;
  }
}

/// Computes the pointwise log-likelihood of a chain's draws (row-major, the header's dim each), appending
/// the header's `log_likelihood` values per draw to `out` (run/log_likelihood.hpp).
using LogLikelihoodOf = std::function<void(std::size_t chain, std::span<const double> values, std::vector<double>& out)>;

/// Hands draws to writers in blocks of at most `capacity` rows per chain (for draws that arrive one by
/// one: a record read back, a conversion), with their pointwise log-likelihood from `log_lik` when the
/// header asks for it (a record does not keep it: it is computed again from the draws and the data).
class BlockBuffer {
 public:
  BlockBuffer(std::span<Writer* const> writers, const RunHeader& header, LogLikelihoodOf log_lik = {}, std::size_t capacity = 4096)
      : writers_(writers), header_(header), log_lik_of_(std::move(log_lik)), capacity_(capacity) {
    require(header.log_likelihood == 0 || log_lik_of_, "the run's pointwise log-likelihood needs its target");
  }
  void add(std::size_t chain, std::span<const double> values, const StepInfo& info, double lp, bool warmup = false) {
    if (chain != chain_ || (warmup && stats_.size() > warmup_rows_)) flush();  // a block's warm-up rows come first
    chain_ = chain;
    if (warmup) ++warmup_rows_;
    values_.insert(values_.end(), values.begin(), values.end());
    stats_.push_back(info);
    if (header_.has_lp) lp_.push_back(lp);
    if (stats_.size() >= capacity_) flush();
  }
  void flush() {
    if (stats_.empty()) return;
    if (header_.log_likelihood > 0) log_lik_of_(chain_, values_, log_lik_);
    const DrawBlock block{chain_, header_.dim(), values_, stats_, lp_, log_lik_, warmup_rows_};
    for (Writer* w : writers_) w->append(block);
    warmup_rows_ = 0;
    values_.clear();
    stats_.clear();
    lp_.clear();
    log_lik_.clear();
  }
  const RunHeader& header() const { return header_; }

 private:
  std::span<Writer* const> writers_;
  const RunHeader& header_;
  LogLikelihoodOf log_lik_of_;
  std::size_t capacity_;
  std::size_t chain_ = 0;
  std::size_t warmup_rows_ = 0;
  std::vector<double> values_, lp_, log_lik_;
  std::vector<StepInfo> stats_;
};

}  // namespace sgmcmc::run::output
