// What the command line prints about a run (cli/detail/report.hpp).
#include <sgmcmc/cli/detail/report.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/cli/detail/signals.hpp>
#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/modules/diagnostics/warnings.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/run/stein.hpp>

namespace sgmcmc::cli::detail {

namespace {

/// Each chain's draws kept in memory as plain doubles, for the summary a run prints (no JSON tree).
class DrawsForSummary final : public run::output::Writer {
 public:
  void begin(const run::output::RunHeader& h) override {
    dim_ = h.dim();
    parameters_ = h.parameters;
    rows_.assign(h.chains, {});
  }
  void append(const run::output::DrawBlock& b) override {  // the draws after the burn-in only
    rows_[b.chain].insert(rows_[b.chain].end(), b.values.begin() + static_cast<std::ptrdiff_t>(b.warmup_rows * static_cast<std::size_t>(b.dim)),
                          b.values.end());
  }
  void finish(const json&) override {}
  std::vector<std::string> files() const override { return {}; }
  void add(std::size_t chain, std::span<const double> row) {
    if (chain >= rows_.size()) rows_.resize(chain + 1);
    if (dim_ == 0) dim_ = static_cast<Eigen::Index>(row.size());
    if (static_cast<Eigen::Index>(row.size()) != dim_)
      throw Error(fmt::format("/chains/{}/samples: expected {} numbers in every draw, got {}", chain, dim_, row.size()));
    rows_[chain].insert(rows_[chain].end(), row.begin(), row.end());
  }
  const run::output::Parameters& parameters() const { return parameters_; }
  Eigen::Index dim() const { return dim_; }
  /// The chains that kept draws, each a draws × coordinates matrix (the row buffers are released).
  std::vector<Eigen::MatrixXd> take_matrices() {
    std::vector<Eigen::MatrixXd> out;
    for (auto& r : rows_) {
      if (r.empty() || dim_ == 0) continue;
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      out.emplace_back(Eigen::Map<const RowMajor>(r.data(), static_cast<Eigen::Index>(r.size()) / dim_, dim_));
      std::vector<double>().swap(r);
    }
    return out;
  }

 private:
  Eigen::Index dim_ = 0;
  run::output::Parameters parameters_;
  std::vector<std::vector<double>> rows_;
};

/// "FILE, FILE, ...": the files `writers` wrote.
std::string file_list(const std::vector<std::unique_ptr<run::output::Writer>>& writers) {
  std::string out;
  for (const auto& w : writers)
    for (const auto& f : w->files()) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

namespace {

/// A number in a column `width` characters wide: fixed with `decimals` places while it fits, else in
/// scientific notation (a diverged chain's 4.5e306 printed 300 digits that broke every column), and a
/// value that is not finite as nan, inf or -inf (never "-nan").
std::string cell(double v, int width, int decimals) {
  if (std::isnan(v)) return fmt::format("{:>{}}", "nan", width);
  if (std::isinf(v)) return fmt::format("{:>{}}", v > 0 ? "inf" : "-inf", width);
  const std::string fixed = fmt::format("{:>{}.{}f}", v, width, decimals);
  if (static_cast<int>(fixed.size()) <= width) return fixed;
  return fmt::format("{:>{}.{}e}", v, width, std::max(0, width - 8));
}

}  // namespace

namespace {
/// The measured temperatures of a chain's default checks (run/checks.hpp), read without trusting the
/// record's types: "  T_conf 0.98 ± 0.05, T_kin 1.01 ± 0.03", or nothing.
std::string checks_line(const json& chain) {
  if (!chain.contains("checks") || !chain["checks"].is_object()) return {};
  std::string out;
  for (const auto& [key, label] : {std::pair{"configurational_temperature", "T_conf"}, std::pair{"kinetic_temperature", "T_kin"}}) {
    const json& c = chain["checks"];
    if (!c.contains(key) || !c[key].is_object() || !c[key].contains("value") || !c[key]["value"].is_number()) continue;
    const json& se = c[key].contains("se") ? c[key]["se"] : json();
    out += fmt::format("{}{} {:.3g}", out.empty() ? "  " : ", ", label, c[key]["value"].get<double>());
    if (se.is_number()) out += fmt::format(" ± {:.2g}", se.get<double>());
  }
  return out;
}
}  // namespace

namespace {
/// The tuner's choice (the record's config.tune; run/tune.hpp), read without trusting the record's types:
/// "tuned (stein, 21 arms, 5e+04 gradient evaluations, 0.8 s): step_size 0.012, batch_size 1000", or nothing.
std::string tuning_line(const json& record) {
  if (!record.contains("config") || !record["config"].is_object()) return {};
  const json& c = record["config"];
  if (!c.contains("tune") || !c["tune"].is_object()) return {};
  const json& t = c["tune"];
  if (!t.contains("chosen") || !t["chosen"].is_object()) return {};
  std::string chosen;
  for (const auto& [key, value] : t["chosen"].items())
    if (key != "arm" && value.is_number()) chosen += fmt::format("{}{} {:.4g}", chosen.empty() ? "" : ", ", key, value.get<double>());
  std::string how = t.contains("method") && t["method"].is_string() ? run::printable(t["method"].get<std::string>(), 40) : "?";
  if (t.contains("arms") && t["arms"].is_array()) how += fmt::format(", {} arms", t["arms"].size());
  if (t.contains("gradient_evaluations") && t["gradient_evaluations"].is_number())
    how += fmt::format(", {:.3g} gradient evaluations", t["gradient_evaluations"].get<double>());
  if (t.contains("target_accept") && t["target_accept"].is_number()) how += fmt::format(", acceptance {:.2g}", t["target_accept"].get<double>());
  if (const json* p = record.contains("timings") && record["timings"].is_object() && record["timings"].contains("phases") &&
                             record["timings"]["phases"].is_array() && !record["timings"]["phases"].empty()
                         ? &record["timings"]["phases"][0] : nullptr;
      p && p->is_object() && p->contains("tuning_seconds") && (*p)["tuning_seconds"].is_number())
    how += fmt::format(", {:.2g} s", (*p)["tuning_seconds"].get<double>());
  return fmt::format("tuned ({}): {}\n", how, chosen);
}
}  // namespace

void print_summary(const json& record, const std::vector<Eigen::MatrixXd>& chains, const run::output::Parameters& parameters,
                   std::ostream& os, bool as_json, const json& stein) {
  if (chains.empty()) throw Error("/chains: the run kept no draws (steps <= burn_in?)");
  const auto sums = diagnostics::summarize_columns(chains, std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<std::string> names = run::output::bracket_names(parameters);
  if (names.size() != sums.size())
    throw Error(fmt::format("/parameters: they name {} coordinates, the draws have {}", names.size(), sums.size()));
  // A Stein-thinned record's draws are a selection in the order picked, some repeated: ESS, R̂ and MCSE
  // would take them for a chain (200 draws gave ESS 460). They are left out, and the summary says why.
  const bool thinned = record.contains("thinned");
  // Stan's warnings, and a chain that stopped (its draws end early; its last state is not a draw).
  std::vector<std::string> warnings;
  if (thinned)
    warnings.push_back("the draws are Stein-thinned (sgmcmc thin): a selection in the order picked, some repeated, not a chain; "
                       "ESS, R-hat and MCSE are not computed (summarise the source record for them)");
  else
    warnings = diagnostics::convergence_warnings(sums, chains.size());
  // The record's own words, read without trusting their types (a hand-edited record must not crash the
  // summary): chain i is the i-th entry, its error printed escaped and cut to 100 characters.
  const auto error_of = [](const json& ch) {
    return ch.contains("error") && ch["error"].is_string() ? run::printable(ch["error"].get<std::string>()) : std::string("no message");
  };
  const auto name_in = [&](const char* section) {
    const json& cfg = record["config"];
    const bool ok = cfg.is_object() && cfg.contains(section) && cfg[section].is_object() && cfg[section].contains("name") &&
                    cfg[section]["name"].is_string();
    return ok ? run::printable(cfg[section]["name"].get<std::string>()) : std::string("?");
  };
  const json& record_chains = record["chains"];
  // Each chain's default checks (run/checks.hpp): what is off and what to change, before Stan's.
  std::vector<std::string> checks;
  for (std::size_t i = 0; i < record_chains.size(); ++i)
    if (record_chains[i].contains("warnings") && record_chains[i]["warnings"].is_array())
      for (const json& w : record_chains[i]["warnings"])
        if (w.is_object() && w.contains("message") && w["message"].is_string())
          checks.push_back(fmt::format("chain {}: {}", i, run::printable(w["message"].get<std::string>(), 600)));
  // The target's warnings about its data (TargetChoice::warnings), first.
  if (record.contains("warnings") && record["warnings"].is_array())
    for (auto it = record["warnings"].rbegin(); it != record["warnings"].rend(); ++it)
      if (it->is_object() && it->contains("message") && (*it)["message"].is_string())
        checks.insert(checks.begin(), fmt::format("data: {}", run::printable((*it)["message"].get<std::string>(), 600)));
  warnings.insert(warnings.begin(), checks.begin(), checks.end());
  for (std::size_t i = 0; i < record_chains.size(); ++i)
    if (record_chains[i]["status"] != "ok") warnings.push_back(fmt::format("chain {} stopped early with an error: {}", i, error_of(record_chains[i])));
  if (as_json) {
    json out = json::array();
    for (std::size_t k = 0; k < sums.size(); ++k) {
      const auto& s = sums[k];
      json row = {{"coordinate", k}, {"parameter", names[k]}, {"mean", s.mean}, {"sd", s.sd}, {"q5", s.q5}, {"q50", s.q50},
                  {"q95", s.q95}, {"mcse_mean", s.mcse_mean}, {"ess_bulk", s.ess_bulk}, {"ess_tail", s.ess_tail}, {"rhat", s.rhat}};
      if (thinned)
        for (const char* key : {"mcse_mean", "ess_bulk", "ess_tail", "rhat"}) row[key] = nullptr;
      out.push_back(std::move(row));
    }
    json doc = {{"summary", out}, {"warnings", warnings}};
    if (!tuning_line(record).empty()) doc["tuning"] = record["config"]["tune"]["chosen"];
    if (!stein.is_null()) doc["stein"] = stein;
    os << doc.dump(2) << '\n';
    return;
  }
  std::size_t draws = 0;
  for (const auto& c : chains) draws += static_cast<std::size_t>(c.rows());
  os << fmt::format("sampler {}, target {}, {} chains, {} draws kept\n", name_in("sampler"), name_in("target"), chains.size(), draws);
  os << tuning_line(record);
  // The names' column as wide as the longest name (at most 40 characters: a longer one is cut).
  std::size_t width = std::string_view("parameter").size();
  for (const auto& n : names) width = std::max(width, std::min<std::size_t>(n.size(), 40));
  os << fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "parameter", width, "mean", "sd", "q5",
                    "q50", "q95", "mcse_mean", "ess_bulk", "ess_tail", "rhat");
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const auto& s = sums[k];
    const std::string name = names[k].substr(0, width);
    if (thinned)
      os << fmt::format("{:<{}} {} {} {} {} {} {:>10} {:>9} {:>9} {:>7}\n", name, width, cell(s.mean, 10, 4), cell(s.sd, 10, 4),
                        cell(s.q5, 10, 4), cell(s.q50, 10, 4), cell(s.q95, 10, 4), "-", "-", "-", "-");
    else
      os << fmt::format("{:<{}} {} {} {} {} {} {} {} {} {}\n", name, width, cell(s.mean, 10, 4), cell(s.sd, 10, 4), cell(s.q5, 10, 4),
                        cell(s.q50, 10, 4), cell(s.q95, 10, 4), cell(s.mcse_mean, 10, 4), cell(s.ess_bulk, 9, 0), cell(s.ess_tail, 9, 0),
                        cell(s.rhat, 7, 3));
  }
  for (std::size_t i = 0; i < record_chains.size(); ++i) {
    const json& ch = record_chains[i];
    os << fmt::format("chain {}: {}", i, ch.contains("diagnostics") ? run::printable(ch["diagnostics"].dump(), 400) : "{}");
    os << checks_line(ch);
    if (ch["status"] != "ok") os << "  ERROR " << error_of(ch);
    os << '\n';
  }
  if (!stein.is_null()) try {
    const json& k = stein.at("kernel");
    os << fmt::format("Stein diagnostics (full-data scores; IMQ kernel c = {}, beta = {}):\n", k["c"].get<double>(), k["beta"].get<double>());
    for (std::size_t i = 0; i < stein["chains"].size(); ++i) {
      const json& ch = stein["chains"][i];
      os << fmt::format("  chain {}: KSD {:.4g} (over {} draws), configurational temperature {:.4f}", i, ch["ksd"].get<double>(),
                        ch["ksd_draws"].get<std::int64_t>(), ch["configurational_temperature"].get<double>());
      if (const json& n = ch.value("gradient_noise", json()); n.is_object()) {
        os << fmt::format(", gradient noise {:.4g} per coordinate", n["variance"].get<double>());
        if (n.contains("excess_temperature")) os << fmt::format(" (excess temperature h(V - noise_estimate)/2C {:.4g})", n["excess_temperature"].get<double>());
      }
      os << '\n';
    }
    if (stein.contains("pooled"))
      os << fmt::format("  pooled: KSD {:.4g} (over {} draws)\n", stein["pooled"]["ksd"].get<double>(), stein["pooled"]["ksd_draws"].get<std::int64_t>());
  } catch (const json::exception&) {  // a record's "stein" edited by hand: shown as it is, not trusted
    os << "Stein diagnostics (as recorded, not in the expected form): " << run::printable(stein.dump(), 400) << '\n';
  }
  for (const auto& w : warnings) os << "warning: " << w << '\n';
}

namespace {
/// A Stan CSV, draws_csv or NetCDF file given where a run record is expected: said so by name (issue #39:
/// a JSON parse error about its first character was all a user got).
void refuse_other_outputs(const std::string& path) {
  // Only a regular file is opened here: opening a FIFO would block (read_record refuses anything else).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::ifstream in(path, std::ios::binary);
  std::string head(16, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const char* kind = head.starts_with("\x89HDF\r\n\x1a\n") || head.starts_with("CDF")
                         ? "a NetCDF file (--format netcdf: read it with xarray or ArviZ)"
                     : head.starts_with("#") ? "a Stan CSV file (--format csv: read it with rstan, posterior or cmdstanpy)"
                     : head.starts_with(".chain,") ? "a draws_csv table (read it with posterior)"
                                                   : nullptr;
  if (kind)
    throw Error(fmt::format("{}: this is {}; summary reads the JSON run record (the -o RUN.json of run, resume or convert, "
                            "--format json)", path, kind));
}
}  // namespace

RecordWithDraws read_with_draws(const std::string& path) {
  refuse_other_outputs(path);
  DrawsForSummary draws;
  json record = run::output::read_record(
      path, [&](const run::output::RecordDraw& d) { if (!d.warmup) draws.add(d.chain, d.values); }, /*with_stats=*/false);
  run::output::Parameters parameters;
  try {
    run::validate_record(record);
    if (draws.dim() > 0) parameters = run::output::parameters_of_record(record, draws.dim());  // none: no draws to name
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  return {std::move(record), draws.take_matrices(), std::move(parameters)};
}

json stein_of_file(const std::string& path, const RecordWithDraws& r, const run::Registry& registry) {
  if (r.chains.empty()) throw Error(fmt::format("{}: /chains: the run kept no draws to measure", path));
  try {
    return run::stein_report(r.record, r.chains, registry, {}, std::filesystem::path(path).parent_path());
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

void print_summary_of_file(const std::string& path, std::ostream& os, bool as_json, const run::Registry* stein_registry) {
  const RecordWithDraws r = read_with_draws(path);
  json stein = nullptr;
  if (stein_registry && !r.chains.empty()) stein = stein_of_file(path, r, *stein_registry);
  else if (r.record.contains("stein")) stein = r.record["stein"];
  print_summary(r.record, r.chains, r.parameters, os, as_json, stein);
}

std::vector<run::output::Writer*> pointers(const std::vector<std::unique_ptr<run::output::Writer>>& files) {
  std::vector<run::output::Writer*> out;
  for (const auto& w : files) out.push_back(w.get());
  return out;
}

void print_written(const std::vector<std::unique_ptr<run::output::Writer>>& writers) {
  std::cout << "written: " << file_list(writers) << '\n';
}

int run_and_report(const Context& ctx, const std::string& out,
                   const std::function<json(std::span<run::output::Writer* const>)>& work) {
  const std::string& program = ctx.program.name;
  const bool quiet = ctx.quiet, speaks = ctx.root;  // another MPI rank prints only its own errors
  auto files = ctx.registered().writers(out, ctx.formats);
  DrawsForSummary summary_draws;
  std::vector<run::output::Writer*> writers = pointers(files);
  if (!quiet) writers.push_back(&summary_draws);
  const json record = work(std::span<run::output::Writer* const>(writers));
  // A chain's error first (issue #39: the summary, or "no draws kept", came before the cause).
  const bool failed = record["status"] == "error";
  if (failed)
    for (const auto& ch : record["chains"])
      if (speaks && ch["status"] != "ok") std::cerr << program << ": " << ch["error"].get<std::string>() << '\n';
  // A run may keep no draws on purpose (steps <= burn_in: a warm-up to resume from); then there is
  // nothing to summarise, and the exit code says only whether every chain ran (a divergence during the
  // burn-in is still exit 3).
  if (!quiet) {
    auto chains = summary_draws.take_matrices();
    if (!chains.empty()) print_summary(record, chains, summary_draws.parameters(), std::cout, false);
    else if (failed) std::cout << "no draws kept: a chain stopped with an error before keeping any (its message above)\n";
    else std::cout << "no draws kept (steps <= burn_in?): the record holds each chain's state, to resume from\n";
    double sampling = 0;
    for (const auto& p : record["timings"]["phases"]) sampling += p["sampling_seconds"].get<double>();
    const std::string written = file_list(files);
    std::cout << fmt::format("sampling time {:.3f} s{}\n", sampling,
                             !written.empty() ? ", written: " + written
                             : out.empty()    ? "; nothing written (no -o: give -o RUN.json to keep the draws and the chains' states)"
                                              : "");
  }
  if (failed) return 3;
  if (record["status"] == "interrupted" && !speaks) return 128 + interrupt_signal().load();
  if (record["status"] == "interrupted") {
    const int sig = interrupt_signal().load();
    std::cerr << fmt::format("{}: interrupted by signal {}: the draws kept so far are written{}\n", program, sig,
                             out.empty() ? "" : fmt::format("; `{} resume {} -o OUT` completes the run", program, out));
    return 128 + sig;
  }
  return 0;
}

}  // namespace sgmcmc::cli::detail
