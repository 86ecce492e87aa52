#pragma once
// A run's outputs kept in memory for Python (python/module.cpp): the header, each chain's rows (warm-up
// rows first) with their statistics, and the record without draws. A fit's arrays are views of what it
// holds, and every file format is written from it later by replaying it into that format's Writer — the
// same writers the command line streams to (run/output/), so `to_netcdf` writes the CLI's file.
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::python {

using run::json;

class Capture final : public run::output::Writer {
 public:
  struct Chain {
    std::vector<double> values, lp, log_lik;  ///< row-major: dim, 1 and N per row (lp, log_lik: when the header says so)
    std::vector<StepInfo> stats;
    std::size_t warmup_rows = 0;              ///< the first rows are warm-up draws (save_warmup)
    std::optional<run::output::WarmUp> warm_up;  ///< what its burn-in adapted, once it ended
    std::size_t rows() const { return stats.size(); }
  };

  /// The most a fit may hold in memory (its draws, statistics, lp and pointwise log-likelihood): checked
  /// against the run's length before its first step, as the command line's files need no such bound.
  static constexpr double max_bytes = 8.0 * (1ull << 30);

  void begin(const run::output::RunHeader& header) override {
    const double rows = static_cast<double>(header.chains) *
                        static_cast<double>(header.expected_draws + (header.save_warmup ? header.expected_warmup : 0));
    const double per_row = 8.0 * static_cast<double>(header.dim() + (header.has_lp ? 1 : 0) + header.log_likelihood) + sizeof(StepInfo);
    if (rows * per_row > max_bytes)
      throw Error(fmt::format("/thin: the fit would hold {:.4g} draws of {} numbers ({:.1f} GB) in memory, above the Python module's {:.0f} "
                              "GB: raise thin or lower steps (the command line streams its draws to files instead)",
                              rows, header.dim(), rows * per_row / 1e9, max_bytes / (1ull << 30)));
    header_ = header;
    chains_.assign(header.chains, Chain{});
  }
  void append(const run::output::DrawBlock& b) override {
    Chain& c = chains_.at(b.chain);
    c.warmup_rows += b.warmup_rows;
    c.values.insert(c.values.end(), b.values.begin(), b.values.end());
    c.stats.insert(c.stats.end(), b.stats.begin(), b.stats.end());
    c.lp.insert(c.lp.end(), b.lp.begin(), b.lp.end());
    c.log_lik.insert(c.log_lik.end(), b.log_lik.begin(), b.log_lik.end());
  }
  void warm_up_done(std::size_t chain, const run::output::WarmUp& w) override { chains_.at(chain).warm_up = w; }
  void finish(const json& record) override { record_ = record; }
  std::vector<std::string> files() const override { return {}; }

  /// Writes everything held to `writers` in the order a run gives it (each chain's warm-up rows, its
  /// warm-up's end, its draws), and finishes them all or none (run/output/writer.hpp finish_all).
  void replay(std::span<run::output::Writer* const> writers) const {
    for (auto* w : writers) w->begin(header_);
    for (std::size_t i = 0; i < chains_.size(); ++i) {
      const Chain& c = chains_[i];
      const run::output::DrawBlock all{i, header_.dim(), c.values, c.stats, c.lp, c.log_lik, c.warmup_rows};
      for (auto* w : writers) {
        if (c.warmup_rows > 0) w->append(all.warmup());
        if (c.warm_up) w->warm_up_done(i, *c.warm_up);
        if (all.rows() > c.warmup_rows) w->append(all.sampling());
      }
    }
    run::output::finish_all(writers, record_);
  }

  const run::output::RunHeader& header() const { return header_; }
  const std::vector<Chain>& chains() const { return chains_; }
  const json& record() const { return record_; }

 private:
  run::output::RunHeader header_;
  std::vector<Chain> chains_;
  json record_;
};

}  // namespace sgmcmc::python
