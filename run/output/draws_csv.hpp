#pragma once
// The `draws_csv` output format: every chain's draws in one plain CSV table in the layout of the R
// package posterior's draws_df (and a pandas DataFrame's long form), BASE_draws.csv:
//
//   .chain,.iteration,.draw,x[1],x[2],stepsize__,lp__
//   1,1,1,0.0839,-0.1446,0.05,-1.2
//   ...
//
// `.chain` and `.iteration` count from 1 as posterior's do; `.draw` numbers the rows in file order (a
// row's unique id: the run hands draws over in rounds, so the chains' rows interleave — sort by .chain,
// .iteration for one chain after another). Parameters are named as posterior and brms name them
// (run/output/parameters.hpp): a scalar `b_age`, `x[i]`, and `x[i,j]` on a matrix (quoted: the name
// holds a comma); the sampler's statistics
// follow under their Stan names (`name__`), and `lp__` when the run records it. Numbers have
// shortest round-trip digits (the file reads back to the same doubles); NaN is written `NaN`, which R's
// read.csv and pandas both read as not-a-number. Reading it: `posterior::as_draws_df(read.csv(f,
// check.names = FALSE))`, `pandas.read_csv(f)`.
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::output {

class DrawsCsvWriter final : public Writer {
 public:
  explicit DrawsCsvWriter(std::string path) : file_(std::move(path)) {}

  void begin(const RunHeader& header) override {
    // A plain table has no place for a mark, and posterior would read a Stein-thinned selection as chains.
    if (!header.thinning.is_null())
      sgmcmc::fail("{}: draws_csv cannot mark Stein-thinned draws (posterior would take them for chains and compute ESS "
                   "and R-hat on them): write csv or netcdf, which say they are thinned", file_.path());
    std::string line = ".chain,.iteration,.draw";
    // posterior's names (W1[1,2]); a name with a comma is quoted, as posterior's own write_csv quotes it.
    for (const std::string& name : bracket_names(header.parameters))
      line += name.find(',') == std::string::npos ? ',' + name : ",\"" + name + '"';
    statistics_ = header.statistics;
    for (const Statistic* s : statistics_) fmt::format_to(std::back_inserter(line), ",{}__", s->name);
    has_lp_ = header.has_lp;
    if (has_lp_) line += ",lp__";
    log_lik_ = static_cast<std::size_t>(header.log_likelihood);
    for (std::size_t i = 1; i <= log_lik_; ++i) fmt::format_to(std::back_inserter(line), ",log_lik[{}]", i);
    file_.write(line + '\n');
    dim_ = header.dim();
    iterations_.assign(header.chains, 0);
  }

  void append(const DrawBlock& all) override {
    const DrawBlock block = all.sampling();  // posterior's draws_df has no warm-up: the draws after the burn-in only
    require(block.chain < iterations_.size(), "{}: draws of chain {} for a run of {} chains", file_.path(), block.chain,
            iterations_.size());
    require(block.dim == dim_ && block.values.size() == block.rows() * static_cast<std::size_t>(dim_),
            "{}: {} draws of {} values in {} numbers, the header says {} values", file_.path(), block.rows(), block.dim,
            block.values.size(), dim_);
    require(!has_lp_ || block.lp.size() == block.rows(), "{}: {} draws with {} lp values", file_.path(), block.rows(), block.lp.size());
    require(block.log_lik.size() == block.rows() * log_lik_, "{}: {} draws with {} log-likelihood values, the header says {} per draw",
            file_.path(), block.rows(), block.log_lik.size(), log_lik_);
    text_.clear();
    for (std::size_t i = 0; i < block.rows(); ++i) {
      fmt::format_to(std::back_inserter(text_), "{},{},{}", block.chain + 1, ++iterations_[block.chain], ++rows_);
      for (double v : block.row(i)) put(v);
      for (const Statistic* s : statistics_) put(s->get(block.stats[i]));
      if (has_lp_) put(block.lp[i]);
      for (double v : block.log_lik.subspan(i * log_lik_, log_lik_)) put(v);
      text_ += '\n';
    }
    file_.write(text_);
  }

  void finish(const json& /*record*/) override { file_.commit(); }
  void prepare(const json& /*record*/) override { file_.prepare(); }
  void commit() override { file_.commit(); }

  std::vector<std::string> files() const override { return {file_.path()}; }

 private:
  void put(double v) {
    if (std::isnan(v)) text_ += ",NaN";  // not fmt's "-nan" for a NaN with its sign bit set
    else fmt::format_to(std::back_inserter(text_), ",{}", v);
  }

  AtomicFile file_;
  std::vector<const Statistic*> statistics_;
  bool has_lp_ = false;
  std::size_t log_lik_ = 0;  ///< pointwise log-likelihood values per draw
  Eigen::Index dim_ = 0;
  std::vector<std::uint64_t> iterations_;  ///< per chain: the draws written so far
  std::uint64_t rows_ = 0;
  std::string text_;  ///< a block's lines, reused
};

/// `--format draws_csv` writes BASE_draws.csv.
inline FormatEntry draws_csv_format() {
  return {{"draws_csv"}, "every chain's draws in one CSV table, as posterior's draws_df (.chain, .iteration, .draw, x[i], stats__)",
          "BASE_draws.csv", [](const OutputPath& out) { return std::make_unique<DrawsCsvWriter>(out.base + "_draws.csv"); },
          [](const OutputPath& out) { return std::vector<std::string>{out.base + "_draws.csv"}; }};
}

}  // namespace sgmcmc::run::output
