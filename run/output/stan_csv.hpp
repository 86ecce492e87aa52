#pragma once
// Stan CSV: one CmdStan-style CSV file per chain, so a run's draws open in the tools people already use
// for Stan's output — CmdStan's stansummary, ArviZ's from_cmdstan, cmdstanr's read_cmdstan_csv, or any
// CSV reader that skips '#' lines (pandas read_csv(comment='#')). docs/run-format.md, "Stan CSV".
//
// The comment header follows CmdStan's layout where the readers look for it: `model`, `method = sample`,
// `num_samples`, `num_warmup`, `save_warmup = 0`, `thin`, `id` and `seed` (cmdstanr fails without
// `method`, `id` and `save_warmup`; ArviZ turns `save_warmup`, `num_warmup` and `thin` into integers).
// `adapt engaged = 0`, since nothing is adapted, and therefore no "# Adaptation terminated" block:
// CmdStan writes that block only after an adaptation, and none of the readers requires it. The time
// lines are CmdStan's (the number of the "(Sampling)" line at column 17, where stansummary reads it;
// the "Elapsed Time:" label on another line, as cmdstanr parses the "(Sampling)" line as a bare number).
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

/// A config value as comment text: a string as is, anything else as its JSON; `fallback` when missing.
inline std::string text_at(const json& config, const char* pointer, const std::string& fallback) {
  const json* v = find(config, pointer);
  if (v == nullptr) return fallback;
  return v->is_string() ? v->get<std::string>() : v->dump();
}

/// The sum of `key` over the record's timing phases that have it; false when none has.
inline bool sum_of_phases(const json& record, const char* key, double& total) {
  const json* phases = find(record, "/timings/phases");
  if (phases == nullptr || !phases->is_array()) return false;
  bool any = false;
  total = 0;
  for (const auto& phase : *phases) {
    if (phase.is_object() && phase.contains(key) && phase[key].is_number()) {
      total += phase[key].get<double>();
      any = true;
    }
  }
  return any;
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
    // stepsize__, accept_stat__ and divergent__ are columns of every Stan CSV; the sampler's other
    // statistics follow them.
    for (const Statistic* s : header.statistics) {
      if (s == &stats::step_size) declares_step_size_ = true;
      if (s != &stats::acceptance && s != &stats::step_size && s != &stats::divergent) extra_.push_back(s);
    }
    if (const json* h = stan_csv_detail::find(header.config, "/sampler/step_size"); h != nullptr && h->is_number())
      configured_step_size_ = h->get<double>();

    files_.reserve(header.chains);
    for (std::size_t chain = 0; chain < header.chains; ++chain) {
      files_.emplace_back(fmt::format("{}_{}.csv", base_, chain + 1));
      files_.back().write(header_text(header, chain));
    }
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
    for (std::size_t i = 0; i < block.rows(); ++i) put_row(text, block, i);
    files_[block.chain].write(text);
  }

  void finish(const json& record) override {
    prepare(record);
    commit();
  }
  void prepare(const json& record) override {
    require(!finished_, "{}: the Stan CSV writer was finished twice", base_);
    for (std::size_t chain = 0; chain < files_.size(); ++chain) files_[chain].write(trailer_text(record, chain));
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
  std::string header_text(const RunHeader& header, std::size_t chain) const {
    using stan_csv_detail::text_at;
    const json& c = header.config;
    const std::string library_version = header.library_version.empty() ? sgmcmc::version : header.library_version;
    std::string out;
    auto line = [&out](std::string_view text) {
      out += text;
      out += '\n';
    };
    line("# Draws of sgmcmc (stochastic-gradient MCMC) in CmdStan's CSV layout");
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
    line("#       engaged = 0");
    line(fmt::format("#     algorithm = {}", header.sampler));
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
    if (!header.thinning.is_null()) {
      line(fmt::format("# sgmcmc_thinned = {}", header.thinning.dump()));
      line("# these draws are a Stein-thinned selection (sgmcmc thin), in the order picked, some repeated: not a chain;");
      line("# ESS, R-hat and MCSE computed from them mean nothing (sgmcmc_thinned_chain at the end: the indices and KSDs)");
    }
    if (!has_lp_) line("# lp__ is 0: not computed (set \"log_density\": true in the config)");

    out += "lp__,accept_stat__,stepsize__,divergent__";
    for (const Statistic* s : extra_) out += fmt::format(",{}__", s->name);
    for (const auto& name : names_) {
      out += ',';
      out += name;
    }
    // The pointwise log-likelihood as Stan's generated quantity `log_lik` (loo's and cmdstanr's name).
    for (Eigen::Index i = 1; i <= log_lik_; ++i) fmt::format_to(std::back_inserter(out), ",log_lik.{}", i);
    out += '\n';
    return out;
  }

  void put_row(std::string& out, const DrawBlock& block, std::size_t i) const {
    using stan_csv_detail::put_number;
    const StepInfo& info = block.stats[i];
    if (has_lp_)
      put_number(out, block.lp[i]);
    else
      out += '0';
    out += ',';
    put_number(out, info.acceptance);
    out += ',';
    // The step's own h when the sampler reports it (a schedule's value), else the config's constant h.
    put_number(out, declares_step_size_ ? info.step_size : std::isnan(configured_step_size_) ? 0.0 : configured_step_size_);
    out += info.divergent ? ",1" : ",0";
    for (const Statistic* s : extra_) {
      out += ',';
      // Counts stay integers (a reader that types columns sees n_grad__ as integral, as n_leapfrog__).
      const double v = s->get(info);
      if (s->kind == StatKind::count && v >= 0 && v < 1.8e19)
        fmt::format_to(std::back_inserter(out), "{}", static_cast<std::uint64_t>(v));
      else
        put_number(out, v);
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
    if (entry != nullptr && entry->is_object() && entry->contains("status") && (*entry)["status"] != "ok") {
      const json& error = entry->contains("error") ? (*entry)["error"] : (*entry)["status"];
      stan_csv_detail::put_comment_lines(out, "error: ", error.is_string() ? error.get<std::string>() : error.dump());
    }
    // The chain's diagnostics as the record has them (kinetic temperature, gradient evaluations, …), and
    // its Stein diagnostics when the record carries them (`sgmcmc convert --stein`): one JSON object a
    // line, so a reader of the file alone gets them back (json.loads of what follows " = ").
    if (entry != nullptr && entry->is_object() && entry->contains("diagnostics") && (*entry)["diagnostics"].is_object())
      out += fmt::format("# sgmcmc_diagnostics = {}\n", (*entry)["diagnostics"].dump());
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
    double sampling = 0, setup = 0;
    if (stan_csv_detail::sum_of_phases(record, "sampling_seconds", sampling)) {
      stan_csv_detail::sum_of_phases(record, "setup_seconds", setup);
      // The label goes on the (Total) line: cmdstanr reads the (Sampling) line as "<number> seconds".
      out += fmt::format("#  Elapsed Time: {} seconds (Total)\n", setup + sampling);
      out += fmt::format("#                {} seconds (Sampling)\n", sampling);
      out += "#  burn-in steps are timed with the sampling: sgmcmc times no separate warm-up\n";
      out += "# \n";
    }
    return out;
  }

  std::string base_;
  std::vector<AtomicFile> files_;
  std::vector<std::string> names_;
  std::vector<const Statistic*> extra_;  ///< the sampler's statistics after the three every Stan CSV has
  Eigen::Index dim_ = 0;
  Eigen::Index log_lik_ = 0;  ///< pointwise log-likelihood values per draw (log_lik.1, …)
  bool has_lp_ = false;
  bool declares_step_size_ = false;
  double configured_step_size_ = std::numeric_limits<double>::quiet_NaN();  ///< NaN: a schedule, or none
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
  return {{"csv"}, "Stan CSV, one CmdStan-style file per chain (stansummary, ArviZ, cmdstanr, pandas)", "BASE_1.csv, BASE_2.csv, ... (one per chain)",
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
