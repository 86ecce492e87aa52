#pragma once
// Stan CSV: one CmdStan-style CSV file per chain, so a run's draws open in the tools people already use
// for Stan's output — rstan's read_stan_csv, posterior, any CSV reader that skips '#' lines (pandas
// read_csv(comment='#')), all tested, and cmdstanpy's from_csv (checked against its source).
// docs/run-format.md, "Stan CSV" (what each statistic maps to, and the "Readers" table of what is tested).
//
// The comment header follows CmdStan's layout where the readers look for it: `model`, `method = sample`,
// `num_samples`, `num_warmup`, `save_warmup`, `thin`, `adapt engaged`, `algorithm`, `engine`,
// `max_depth`, `metric`, `id` and `seed` (cmdstanr fails without `method`, `id` and `save_warmup`; rstan
// without `engine` on an "hmc" run; cmdstanpy without `metric` and `max_depth`). After the column names
// (and the warm-up draws, with save_warmup) comes CmdStan's adaptation block (cmdstanpy requires it there): `# Adaptation terminated`,
// the step size and, with a diagonal preconditioner, its s² as the inverse mass matrix's diagonal (with a
// dense or low-rank one, `metric = dense_e` and the matrix SSᵀ a row a line, as CmdStan writes it) — the
// chain's own when its warm-up adapted it (Writer::warm_up_done). The columns are the ones rstan takes
// for sampler statistics (lp__, accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__,
// energy__) and the parameters; a statistic a sampler does not have is left out or, where a reader
// requires the column, written as nan or 0 with a header line that says so. The footer is CmdStan's
// (Warm-up, Sampling, Total: the chain's own times, chains[i].timing of the record).
//
// `read_stan_csv` reads such a file back (and CmdStan's own): comments, column names, draws.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::run::output {

namespace stan_csv_detail {

/// A number as Stan writes it: shortest round-trip digits, so the file reads back to the same double;
/// NaN as `nan` whatever its sign bit, as Stan writes it (fmt writes `-nan` for a NaN with the sign set).
inline void put_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  fmt::format_to(std::back_inserter(out), "{}", v);
}

/// The value at a JSON pointer, or nullptr when any step of the path is missing.
inline const json* find(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  return j.contains(p) ? &j.at(p) : nullptr;
}

/// A count in the config (a non-negative integer), 0 when missing.
inline std::uint64_t count_at(const json& config, const char* pointer) {
  const json* v = find(config, pointer);
  return v != nullptr && v->is_number_integer() && *v >= 0 ? v->get<std::uint64_t>() : 0;
}

/// A config value as comment text: a string as is, anything else as its JSON; `fallback` when missing.
inline std::string text_at(const json& config, const char* pointer, const std::string& fallback) {
  const json* v = find(config, pointer);
  if (v == nullptr) return fallback;
  return v->is_string() ? v->get<std::string>() : v->dump();
}

/// Every line of `text` as a comment line (an error message may span lines; a bare line would be data).
inline void put_comment_lines(std::string& out, std::string_view prefix, std::string_view text) {
  std::size_t start = 0;
  do {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += "# ";
    out += prefix;
    out += text.substr(start, end - start);
    out += '\n';
    start = end + 1;
  } while (start < text.size());
}

}  // namespace stan_csv_detail

/// Writes `<base>_<k>.csv` for chains k = 1..chains (numbered from 1, as CmdStan numbers its files).
/// Each file is written through an AtomicFile: it appears under its name at `finish`, whole, or not at
/// all (a writer destroyed before `finish` leaves no file and no temporary).
class StanCsvWriter final : public Writer {
 public:
  explicit StanCsvWriter(std::string base) : base_(std::move(base)) {}

  void begin(const RunHeader& header) override {
    require(files_.empty(), "{}: the Stan CSV writer was begun twice", base_);
    names_ = stan_names(header.parameters);
    dim_ = header.dim();
    has_lp_ = header.has_lp;
    log_lik_ = header.log_likelihood;
    for (const Statistic* s : header.statistics) {
      if (s == &stats::acceptance) has_acceptance_ = true;
      else if (s == &stats::step_size) declares_step_size_ = true;
      else if (s == &stats::gradient_evals) has_gradient_evals_ = true;
      else if (s == &stats::divergent) has_divergent_ = true;
      else if (s == &stats::energy) has_energy_ = true;
      else left_out_.push_back(s);
    }
    if (const json* h = stan_csv_detail::find(header.config, "/sampler/step_size"); h != nullptr && h->is_number())
      configured_step_size_ = h->get<double>();
    metric_ = header.metric;
    diagonal_.assign(header.chains, {});
    block_written_.assign(header.chains, false);

    files_.reserve(header.chains);
    for (std::size_t chain = 0; chain < header.chains; ++chain) {
      files_.emplace_back(fmt::format("{}_{}.csv", base_, chain + 1));
      files_.back().write(header_text(header, chain));
    }
  }

  /// The adapted preconditioner's inverse metric SSᵀ of the chain (s² for a diagonal one), which the
  /// adaptation block gives.
  void warm_up_done(std::size_t chain, const WarmUp& warm_up) override {
    if (chain >= diagonal_.size() || !metric_.any()) return;
    if (warm_up.inverse_metric.size() == metric_.inverse_size(static_cast<std::size_t>(dim_))) diagonal_[chain] = warm_up.inverse_metric;
  }

  void append(const DrawBlock& block) override {
    require(!finished_, "{}: draws appended after finish", base_);
    require(block.chain < files_.size(),
            "{}: draws of chain {} for a run of {} chains", base_, block.chain, files_.size());
    require(block.dim == dim_ && block.values.size() == block.rows() * static_cast<std::size_t>(dim_),
            "{}: {} draws of {} values in {} numbers, the header says {} values", base_, block.rows(),
                        block.dim, block.values.size(), dim_);
    require(!has_lp_ || block.lp.size() == block.rows(),
            "{}: {} draws with {} lp values", base_, block.rows(), block.lp.size());
    require(block.log_lik.size() == block.rows() * static_cast<std::size_t>(log_lik_),
            "{}: {} draws with {} log-likelihood values, the header says {} per draw", base_, block.rows(), block.log_lik.size(), log_lik_);
    std::string text;
    for (std::size_t i = 0; i < block.rows(); ++i) {
      // CmdStan's order: the warm-up draws (save_warmup), the adaptation block, the draws after it.
      if (i >= block.warmup_rows && !block_written_[block.chain])
        adaptation_block(text, block.chain, declares_step_size_ ? block.stats[i].step_size : configured_step_size_);
      put_row(text, block, i);
    }
    files_[block.chain].write(text);
  }

  void finish(const json& record) override {
    prepare(record);
    commit();
  }
  void prepare(const json& record) override {
    require(!finished_, "{}: the Stan CSV writer was finished twice", base_);
    for (std::size_t chain = 0; chain < files_.size(); ++chain) {
      std::string text;
      if (!block_written_[chain]) adaptation_block(text, chain, configured_step_size_);  // a chain that kept no draw
      files_[chain].write(text + trailer_text(record, chain));
    }
    for (auto& file : files_) file.prepare();
    finished_ = true;
  }
  void commit() override {
    // A rename failing midway: the message says which of the chains' files were replaced.
    for (std::size_t chain = 0; chain < files_.size(); ++chain) try {
        files_[chain].commit();
      } catch (const Error& e) {
        if (chain == 0) throw;
        throw Error(fmt::format("{} (the files of chains 1 to {} were replaced)", e.what(), chain));
      }
  }

  /// The files, once `begin` has said how many chains there are.
  std::vector<std::string> files() const override {
    std::vector<std::string> paths;
    for (const auto& file : files_) paths.push_back(file.path());
    return paths;
  }

 private:
  bool adapted_in_warm_up() const { return metric_.adapted_in_warm_up(); }

  std::string header_text(const RunHeader& header, std::size_t chain) const {
    using stan_csv_detail::text_at;
    const json& c = header.config;
    const std::string library_version = header.library_version.empty() ? sgmcmc::version : header.library_version;
    std::string out;
    auto line = [&out](std::string_view text) {
      out += text;
      out += '\n';
    };
    line("# Draws of sgmcmc (stochastic-gradient MCMC) in CmdStan's CSV layout (docs/run-format.md, \"Stan CSV\")");
    line(fmt::format("# sgmcmc_version = {}", library_version));
    line(fmt::format("# model = {}", text_at(c, "/target/name", "unknown")));
    line("# method = sample (Default)");
    line("#   sample");
    // CmdStan's num_samples counts iterations before thinning: thin × the kept draws.
    const json* thin = stan_csv_detail::find(c, "/thin");
    const std::uint64_t every = thin != nullptr && thin->is_number_integer() && *thin > 0 ? thin->get<std::uint64_t>() : 1;
    line(fmt::format("#     num_samples = {}", header.expected_draws * every));
    line(fmt::format("#     num_warmup = {}", text_at(c, "/burn_in", "0")));
    // A 0 or 1, not `false`: ArviZ reads it with int(). With 1 the warm-up draws (⌈num_warmup / thin⌉,
    // rstan's count) come first, as CmdStan writes them.
    line(fmt::format("#     save_warmup = {}", header.save_warmup ? 1 : 0));
    line(fmt::format("#     thin = {}", every));
    line("#     adapt");
    line(fmt::format("#       engaged = {}", adapted_in_warm_up() || !header.tuning.is_null() ? 1 : 0));
    line(fmt::format("#     algorithm = {}", header.sampler));
    // rstan names an "hmc" run by its engine; cmdstanpy reads metric and max_depth (docs/run-format.md).
    line("#       engine = static");
    line("#         max_depth = 10");
    line(fmt::format("#       metric = {}", metric_.stan_name()));
    if (!std::isnan(configured_step_size_)) {
      std::string h;
      stan_csv_detail::put_number(h, configured_step_size_);
      line(fmt::format("#       stepsize = {}", h));
    }
    line(fmt::format("# id = {}", chain + 1));
    line("# random");
    if (const json* seed = stan_csv_detail::find(c, "/seed"); seed != nullptr) line(fmt::format("#   seed = {}", seed->dump()));
    line(fmt::format("#   stream = {}", chain));  // chain k draws from random stream k of the seed
    line(fmt::format("# sgmcmc_config = {}", c.dump()));
    // The tuner's choice (the step size above; every arm is in the config's `tune`).
    if (!header.tuning.is_null()) line(fmt::format("# sgmcmc_tuning = {}", header.tuning.dump()));
    if (!header.thinning.is_null()) {
      line(fmt::format("# sgmcmc_thinned = {}", header.thinning.dump()));
      line("# these draws are a Stein-thinned selection (sgmcmc thin), in the order picked, some repeated: not a chain;");
      line("# ESS, R-hat and MCSE computed from them mean nothing (sgmcmc_thinned_chain at the end: the indices and KSDs)");
    }
    // What a column means here where it is not what CmdStan's would be (no '=' in these lines: the
    // readers take `key = value` comment lines for settings).
    if (!has_lp_) line("# lp__ is nan on every draw: the log density was not computed (set \"log_density\": true in the config)");
    if (!has_acceptance_) line(fmt::format("# no accept_stat__: {} makes no Metropolis test", header.sampler));
    if (!has_divergent_)
      line(fmt::format("# divergent__ is 0 on every draw: {} has no divergence check, and a non-finite state stops its chain "
                       "(this file's footer says so); the column is here as cmdstanpy requires it", header.sampler));
    line("# treedepth__ is 0: sgmcmc builds no trees (a fixed number of gradients a step, CmdStan's static engine)");
    if (has_gradient_evals_) line("# n_leapfrog__ is the step's gradient evaluations (HMC: its leapfrog steps)");
    if (declares_step_size_) line("# stepsize__ is the step's own h (a schedule's value at that step)");
    if (!left_out_.empty()) {
      std::string names;
      for (const Statistic* s : left_out_) names += fmt::format("{}{}", names.empty() ? "" : ", ", s->name);
      line(fmt::format("# not in this file (rstan would take them for parameters), in the run record and NetCDF: {}", names));
    }
    if (!adapted_in_warm_up())
      line("# nothing was adapted in the warm-up: the adaptation block after the column names gives the step size and "
           "metric used throughout (CmdStan writes it then too, and cmdstanpy requires it)");
    if (metric_.diagonal)
      line("# metric diag_e: the diagonal preconditioner's s squared (HMC on the s-scaled coordinates has inverse mass "
           "matrix diag(s squared))");
    if (metric_.dense)
      line("# metric dense_e: the preconditioner's S times S transposed (theta = S phi; HMC on phi has inverse mass matrix S S^T; "
           "the run record's chains[i].state.sampler holds S)");
    if (metric_.adapt_steps > metric_.burn_in)
      line(fmt::format("# the preconditioner adapted until step {}, after the burn-in of {} steps: the {} below is its "
                       "value at the burn-in's end; chains[i].state.sampler in the run record holds the final one",
                       metric_.adapt_steps, metric_.burn_in, metric_.dense ? "matrix" : "diagonal"));

    out += "lp__";
    if (has_acceptance_) out += ",accept_stat__";
    out += ",stepsize__,treedepth__";
    if (has_gradient_evals_) out += ",n_leapfrog__";
    out += ",divergent__";
    if (has_energy_) out += ",energy__";
    for (const auto& name : names_) {
      out += ',';
      out += name;
    }
    // The pointwise log-likelihood as Stan's generated quantity `log_lik` (loo's and cmdstanr's name).
    for (Eigen::Index i = 1; i <= log_lik_; ++i) fmt::format_to(std::back_inserter(out), ",log_lik.{}", i);
    out += '\n';
    return out;
  }

  /// CmdStan's block between the column names and the first draw: the step size and the metric (the
  /// adapted one when the warm-up adapted a preconditioner). `h` NaN: a schedule with no draw to show it.
  void adaptation_block(std::string& out, std::size_t chain, double h) {
    block_written_[chain] = true;
    out += "# Adaptation terminated\n# Step size = ";
    stan_csv_detail::put_number(out, h);
    out += '\n';
    if (!metric_.any()) return;
    // CmdStan's two forms (stan/mcmc/hmc/hamiltonians/diag_e_point.hpp, dense_e_point.hpp): one line of
    // the diagonal, or one line per row of the matrix.
    out += metric_.dense ? "# Elements of inverse mass matrix:\n" : "# Diagonal elements of inverse mass matrix:\n";
    const std::vector<double>& given = !diagonal_[chain].empty() ? diagonal_[chain] : metric_.given_inverse;
    const auto d = static_cast<std::size_t>(dim_);
    const std::size_t rows = metric_.dense ? d : 1;
    const bool known = given.size() == metric_.inverse_size(d);  // else the identity (a chain that stopped before its warm-up ended)
    for (std::size_t r = 0; r < rows; ++r) {
      out += "# ";
      for (std::size_t k = 0; k < d; ++k) {
        if (k > 0) out += ", ";
        const std::size_t at = metric_.dense ? r * d + k : k;
        stan_csv_detail::put_number(out, known ? given[at] : (metric_.dense && r != k ? 0.0 : 1.0));
      }
      out += '\n';
    }
  }

  void put_row(std::string& out, const DrawBlock& block, std::size_t i) const {
    using stan_csv_detail::put_number;
    const StepInfo& info = block.stats[i];
    if (has_lp_) put_number(out, block.lp[i]);
    else out += "nan";
    if (has_acceptance_) {
      out += ',';
      put_number(out, info.acceptance);
    }
    out += ',';
    // The step's own h when the sampler reports it (a schedule's value), else the config's constant h.
    put_number(out, declares_step_size_ ? info.step_size : configured_step_size_);
    out += ",0";  // treedepth__
    // Counts and flags stay integers (cmdstanpy reads divergent__ and treedepth__ with int()).
    if (has_gradient_evals_) fmt::format_to(std::back_inserter(out), ",{}", info.gradient_evals);
    out += has_divergent_ && info.divergent ? ",1" : ",0";
    if (has_energy_) {
      out += ',';
      put_number(out, info.energy);
    }
    for (double v : block.row(i)) {
      out += ',';
      put_number(out, v);
    }
    for (double v : block.log_lik.subspan(i * static_cast<std::size_t>(log_lik_), static_cast<std::size_t>(log_lik_))) {
      out += ',';
      put_number(out, v);
    }
    out += '\n';
  }

  std::string trailer_text(const json& record, std::size_t chain) const {
    std::string out = "# \n";
    const json* entry = nullptr;
    if (const json* chains = stan_csv_detail::find(record, "/chains"); chains != nullptr && chains->is_array() && chain < chains->size())
      entry = &(*chains)[chain];
    // CmdStan's footer, the chain's own times (chains[i].timing): rstan's get_elapsed_time takes the
    // first two numbers after "Elapsed Time" as warm-up and sampling, digits and '.' only (so fixed
    // notation); stansummary reads the "(Sampling)" number at column 17.
    const json* timing = entry != nullptr && entry->is_object() ? stan_csv_detail::find(*entry, "/timing") : nullptr;
    const json* warm_up = timing != nullptr ? stan_csv_detail::find(*timing, "/warmup_seconds") : nullptr;
    const json* sampling = timing != nullptr ? stan_csv_detail::find(*timing, "/sampling_seconds") : nullptr;
    if (warm_up != nullptr && sampling != nullptr && warm_up->is_number() && sampling->is_number()) {
      const double w = warm_up->get<double>(), s = sampling->get<double>();
      out += fmt::format("#  Elapsed Time: {:.9f} seconds (Warm-up)\n", w);
      out += fmt::format("#                {:.9f} seconds (Sampling)\n", s);
      out += fmt::format("#                {:.9f} seconds (Total)\n", w + s);
      out += "# \n";
    } else {
      out += "# no per-chain times: the record has none (chains[i].timing; a record of an older sgmcmc)\n";
    }
    if (entry != nullptr && entry->is_object() && entry->contains("status") && (*entry)["status"] != "ok") {
      const json& error = entry->contains("error") ? (*entry)["error"] : (*entry)["status"];
      stan_csv_detail::put_comment_lines(out, "error: ", error.is_string() ? error.get<std::string>() : error.dump());
    }
    // The chain's diagnostics as the record has them (kinetic temperature, gradient evaluations, …), and
    // its Stein diagnostics when the record carries them (`sgmcmc convert --stein`): one JSON object a
    // line, so a reader of the file alone gets them back (json.loads of what follows " = ").
    if (entry != nullptr && entry->is_object() && entry->contains("diagnostics") && (*entry)["diagnostics"].is_object())
      out += fmt::format("# sgmcmc_diagnostics = {}\n", (*entry)["diagnostics"].dump());
    // The chain's default checks (run/checks.hpp) as one JSON object, and each warning on its own line,
    // where a reader who opens the file sees it.
    if (entry != nullptr && entry->is_object() && entry->contains("checks") && (*entry)["checks"].is_object())
      out += fmt::format("# sgmcmc_checks = {}\n", (*entry)["checks"].dump());
    if (entry != nullptr && entry->is_object() && entry->contains("warnings") && (*entry)["warnings"].is_array())
      for (const json& w : (*entry)["warnings"])
        if (w.is_object() && w.contains("message") && w["message"].is_string())
          stan_csv_detail::put_comment_lines(out, "warning: ", w["message"].get<std::string>());
    // A Stein-thinned file's chain: the picked draws' positions in the source chain and the KSDs.
    if (const json* thinned = stan_csv_detail::find(record, "/thinned"); thinned != nullptr && thinned->is_object()) {
      json mine = json::object();
      for (const char* key : {"indices", "ksd_before", "ksd_after"})
        if (thinned->contains(key) && (*thinned)[key].is_array() && chain < (*thinned)[key].size()) mine[key] = (*thinned)[key][chain];
      out += fmt::format("# sgmcmc_thinned_chain = {}\n", mine.dump());
    }
    if (const json* stein = stan_csv_detail::find(record, "/stein/chains");
        stein != nullptr && stein->is_array() && chain < stein->size() && (*stein)[chain].is_object())
      out += fmt::format("# sgmcmc_stein = {}\n", (*stein)[chain].dump());
    return out;
  }

  std::string base_;
  std::vector<AtomicFile> files_;
  std::vector<std::string> names_;
  std::vector<const Statistic*> left_out_;  ///< the sampler's statistics rstan would take for parameters
  Eigen::Index dim_ = 0;
  Eigen::Index log_lik_ = 0;  ///< pointwise log-likelihood values per draw (log_lik.1, …)
  bool has_lp_ = false;
  bool has_acceptance_ = false, declares_step_size_ = false, has_gradient_evals_ = false, has_divergent_ = false,
       has_energy_ = false;
  double configured_step_size_ = std::numeric_limits<double>::quiet_NaN();  ///< NaN: a schedule, or none
  MetricFacts metric_;                           ///< the sampler's metric (header.metric)
  std::vector<std::vector<double>> diagonal_;    ///< per chain: the inverse metric adapted in its warm-up (MetricFacts::inverse_size numbers)
  std::vector<bool> block_written_;              ///< per chain: its adaptation block is in the file
  bool finished_ = false;
};

/// The format "csv": one CmdStan CSV file per chain, BASE_1.csv, BASE_2.csv, ...
/// The files BASE_1.csv and every BASE_K.csv (K a number) already in the folder: how many chains there are
/// is known only once the config is read, and any of them may be written.
inline std::vector<std::string> stan_csv_files(const std::string& base) {
  std::vector<std::string> files{base + "_1.csv"};
  const std::filesystem::path b(base);
  const std::string stem = b.filename().string() + "_";
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(b.has_parent_path() ? b.parent_path() : ".", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(stem) || !name.ends_with(".csv")) continue;
    const std::string k = name.substr(stem.size(), name.size() - stem.size() - 4);
    if (!k.empty() && k != "1" && k.front() != '0' && k.find_first_not_of("0123456789") == std::string::npos)
      files.push_back(base + "_" + k + ".csv");
  }
  return files;
}

inline FormatEntry stan_csv_format() {
  return {{"csv"}, "Stan CSV, one CmdStan-style file per chain (rstan, posterior, cmdstanpy, pandas)", "BASE_1.csv, BASE_2.csv, ... (one per chain)",
          [](const OutputPath& out) { return std::make_unique<StanCsvWriter>(out.base); },
          [](const OutputPath& out) { return stan_csv_files(out.base); }, ".csv"};
}

/// A Stan CSV file read back: its '#' lines (as written, '#' included), its column names, and its draws
/// (one row per data line).
struct StanCsv {
  std::vector<std::string> comments;
  std::vector<std::string> columns;
  Eigen::MatrixXd draws;
};

namespace stan_csv_detail {

/// One CSV field as a double: decimal or exponent notation, `nan`, `inf`, `+inf`, `-inf` (any case).
inline bool parse_number(std::string_view field, double& value) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  // from_chars takes no leading '+', which Stan may write before inf.
  if (field.size() > 1 && field.front() == '+' && field[1] != '-' && field[1] != '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size();
}

inline std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace stan_csv_detail

/// Reads a Stan CSV file: '#' lines are comments wherever they are (CmdStan puts some between the draws),
/// blank lines are skipped, the first other line names the columns and every later one is a draw.
/// Throws sgmcmc::Error naming the file and line (and column) on a row of the wrong length or a field that
/// is no number; the file's text is never echoed.
inline StanCsv read_stan_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(static_cast<bool>(in), "{}: cannot open the file", path);
  StanCsv csv;
  std::vector<double> values;  // row-major, as the file has them
  std::size_t rows = 0, line_number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with Windows line ends
    if (line.empty()) continue;
    if (line.front() == '#') {
      csv.comments.push_back(line);
      continue;
    }
    const auto fields = stan_csv_detail::split_commas(line);
    if (csv.columns.empty()) {
      for (auto f : fields) csv.columns.emplace_back(f);
      continue;
    }
    require(fields.size() == csv.columns.size(), "{}:{}: expected {} values (one per column), got {}", path,
                                                             line_number, csv.columns.size(), fields.size());
    for (std::size_t k = 0; k < fields.size(); ++k) {
      double v = 0;
      // The field's place, never its contents: a file given as a reference may be anything (a .env
      // with secrets, terminal escapes), and its text is not echoed (issue #40).
      require(stan_csv_detail::parse_number(fields[k], v),
              "{}:{}: column {}: expected a number (decimal or exponent notation, nan, inf)", path, line_number, k + 1);
      values.push_back(v);
    }
    ++rows;
  }
  require(!in.bad(), "{}: read failed", path);
  require(!csv.columns.empty(), "{}: no column header line (every line is a comment or blank)", path);
  const auto cols = static_cast<Eigen::Index>(csv.columns.size());
  csv.draws = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      values.data(), static_cast<Eigen::Index>(rows), cols);
  return csv;
}

}  // namespace sgmcmc::run::output
