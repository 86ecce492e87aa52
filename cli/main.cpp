// The command line (cli/main.hpp), compiled once into sgmcmc::cli.
#include <sgmcmc/cli/main.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/modules/diagnostics/warnings.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/run/stein.hpp>
#include <sgmcmc/run/sweep.hpp>
#include <sgmcmc/run/output/sweep_svg.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::cli {

run::output::Formats shipped_formats() { return run::output::builtin_formats(); }

namespace detail {

/// Each chain's draws kept in memory as plain doubles, for the summary a run prints (no JSON tree).
class DrawsForSummary final : public run::output::Writer {
 public:
  void begin(const run::output::RunHeader& h) override {
    dim_ = h.dim();
    rows_.assign(h.chains, {});
  }
  void append(const run::output::DrawBlock& b) override {
    rows_[b.chain].insert(rows_[b.chain].end(), b.values.begin(), b.values.end());
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
  std::vector<std::vector<double>> rows_;
};

/// Prints the summary of a run: `record` without its draws (run/runner.hpp), `chains` its draws, and
/// the Stein diagnostics when given (run::stein_report).
void print_summary(const json& record, const std::vector<Eigen::MatrixXd>& chains, std::ostream& os, bool as_json,
                          const json& stein = nullptr) {
  if (chains.empty()) throw Error("/chains: the run kept no draws (steps <= burn_in?)");
  const auto sums = diagnostics::summarize_columns(chains, std::max(1u, std::thread::hardware_concurrency()));
  // Stan's warnings, and a chain that stopped (its draws end early; its last state is not a draw).
  std::vector<std::string> warnings = diagnostics::convergence_warnings(sums, chains.size());
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
  for (std::size_t i = 0; i < record_chains.size(); ++i)
    if (record_chains[i]["status"] != "ok") warnings.push_back(fmt::format("chain {} stopped early with an error: {}", i, error_of(record_chains[i])));
  if (as_json) {
    json out = json::array();
    for (std::size_t k = 0; k < sums.size(); ++k) {
      const auto& s = sums[k];
      out.push_back({{"coordinate", k}, {"mean", s.mean}, {"sd", s.sd}, {"q5", s.q5}, {"q50", s.q50}, {"q95", s.q95},
                     {"mcse_mean", s.mcse_mean}, {"ess_bulk", s.ess_bulk}, {"ess_tail", s.ess_tail}, {"rhat", s.rhat}});
    }
    json doc = {{"summary", out}, {"warnings", warnings}};
    if (!stein.is_null()) doc["stein"] = stein;
    os << doc.dump(2) << '\n';
    return;
  }
  std::size_t draws = 0;
  for (const auto& c : chains) draws += static_cast<std::size_t>(c.rows());
  os << fmt::format("sampler {}, target {}, {} chains, {} draws kept\n", name_in("sampler"), name_in("target"), chains.size(), draws);
  os << fmt::format("{:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "coord", "mean", "sd", "q5",
                    "q50", "q95", "mcse_mean", "ess_bulk", "ess_tail", "rhat");
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const auto& s = sums[k];
    os << fmt::format("{:>6} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>9.0f} {:>9.0f} {:>7.3f}\n", k,
                      s.mean, s.sd, s.q5, s.q50, s.q95, s.mcse_mean, s.ess_bulk, s.ess_tail, s.rhat);
  }
  for (std::size_t i = 0; i < record_chains.size(); ++i) {
    const json& ch = record_chains[i];
    os << fmt::format("chain {}: {}", i, ch.contains("diagnostics") ? run::printable(ch["diagnostics"].dump(), 400) : "{}");
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

/// A record read for its summary: the record without draws, and its chains' draws as matrices (read
/// as doubles, never as a JSON tree).
struct RecordWithDraws {
  json record;
  std::vector<Eigen::MatrixXd> chains;
};
RecordWithDraws read_with_draws(const std::string& path) {
  DrawsForSummary draws;
  json record = run::output::read_record(
      path, [&](const run::output::RecordDraw& d) { draws.add(d.chain, d.values); }, /*with_stats=*/false);
  try {
    run::validate_record(record);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  return {std::move(record), draws.take_matrices()};
}

/// The Stein report of the record at `path` (`summary --stein`, `convert --stein`).
json stein_of_file(const std::string& path, const RecordWithDraws& r, const run::Registry& registry) {
  if (r.chains.empty()) throw Error(fmt::format("{}: /chains: the run kept no draws to measure", path));
  try {
    return run::stein_report(r.record, r.chains, registry);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

/// `summary RUN [--stein]`: with `registry`, adds the Stein diagnostics (the record's target rebuilt
/// from its config); without, prints those the record carries (`convert --stein` wrote them).
void print_summary_of_file(const std::string& path, std::ostream& os, bool as_json, const run::Registry* stein_registry = nullptr) {
  const RecordWithDraws r = read_with_draws(path);
  json stein = nullptr;
  if (stein_registry && !r.chains.empty()) stein = stein_of_file(path, r, *stein_registry);
  else if (r.record.contains("stein")) stein = r.record["stein"];
  print_summary(r.record, r.chains, os, as_json, stein);
}

/// "written: FILE, FILE, ..." for the files of `writers`.
void print_written(const std::vector<std::unique_ptr<run::output::Writer>>& writers) {
  std::string written;
  for (const auto& w : writers)
    for (const auto& f : w->files()) written += (written.empty() ? "" : ", ") + f;
  std::cout << "written: " << written << '\n';
}

/// `--format`'s check: each name (the option splits at commas) must be registered; the error lists them.
CLI::Validator format_check(const run::output::Formats& registered) {
  return CLI::Validator(
      [&registered](std::string& name) { return registered.find(name) != nullptr ? std::string() : registered.unknown(name); },
      "{" + registered.names_text(",") + "}");
}

/// The help's list of formats: one line each, its names, what it is and the files it writes.
std::string formats_help(const run::output::Formats& registered) {
  std::string out = "Output formats (--format; OUT is the -o path, BASE is OUT without a .json ending):\n";
  for (const auto& e : registered.entries()) {
    std::string names = e.names.front();
    for (std::size_t i = 1; i < e.names.size(); ++i) names += (i == 1 ? " (alias " : ", ") + e.names[i];
    if (e.names.size() > 1) names += ")";
    out += fmt::format("  {:<8} {}\n", names, e.summary);
    if (!e.files.empty()) out += fmt::format("  {:<8} writes {}\n", "", e.files);
  }
  return out;
}

/// SIGINT and SIGTERM during `run` and `resume`: the first asks the chains to stop (within 64 steps);
/// the run then writes what it kept — a record with status "interrupted" that `resume` continues — and
/// exits 128 + the signal. A second signal exits at once, removing the outputs' temporaries.
std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}
std::atomic<int>& interrupt_signal() {
  static std::atomic<int> sig{0};
  return sig;
}
void on_interrupt(int sig) {
  if (interrupt_signal().exchange(sig) != 0) {
    run::detail::Temporaries::instance().remove_all_now();
    ::_exit(128 + sig);
  }
  interrupt_requested().store(true);
}
/// Installs the handlers for its lifetime (and restores the previous ones).
class InterruptHandlers {
 public:
  InterruptHandlers() {
    interrupt_requested().store(false);
    interrupt_signal().store(0);
    (void)run::detail::Temporaries::instance();  // constructed before any signal can need it
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;
  ~InterruptHandlers() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

/// Runs `work(writers)` with the writers of `formats` at `out` (`registered.writers`: none without
/// -o, or on an MPI rank other than 0) plus, unless quiet, the summary's; then prints the summary and
/// what was written, and returns the exit code.
template <class Work>
int run_and_report(const std::string& program, const run::output::Formats& registered, const std::string& out,
                   const std::vector<std::string>& formats, bool quiet, Work&& work, bool speaks = true) {
  auto files = registered.writers(out, formats);
  DrawsForSummary summary_draws;
  std::vector<run::output::Writer*> writers;
  for (auto& w : files) writers.push_back(w.get());
  if (!quiet) writers.push_back(&summary_draws);
  const json record = work(std::span<run::output::Writer* const>(writers));
  // A run may keep no draws on purpose (steps <= burn_in: a warm-up to resume from); then there is
  // nothing to summarise, and the exit code says only whether every chain ran (a divergence during the
  // burn-in is still exit 3, reported below).
  if (!quiet) {
    auto chains = summary_draws.take_matrices();
    if (!chains.empty()) print_summary(record, chains, std::cout, false);
    else std::cout << "no draws kept (steps <= burn_in?): the record holds each chain's state, to resume from\n";
    double sampling = 0;
    for (const auto& p : record["timings"]["phases"]) sampling += p["sampling_seconds"].get<double>();
    std::string written;
    for (const auto& w : files)
      for (const auto& f : w->files()) written += (written.empty() ? "" : ", ") + f;
    std::cout << fmt::format("sampling time {:.3f} s{}\n", sampling, written.empty() ? "" : ", written: " + written);
  }
  if (record["status"] == "error") {
    for (const auto& ch : record["chains"])
      if (speaks && ch["status"] != "ok") std::cerr << program << ": " << ch["error"].get<std::string>() << '\n';
    return 3;
  }
  if (record["status"] == "interrupted" && !speaks) return 128 + interrupt_signal().load();
  if (record["status"] == "interrupted") {
    const int sig = interrupt_signal().load();
    std::cerr << fmt::format("{}: interrupted by signal {}: the draws kept so far are written{}\n", program, sig,
                             out.empty() ? "" : fmt::format("; `{} resume {} -o OUT` completes the run", program, out));
    return 128 + sig;
  }
  return 0;
}

template <class Entry>
void list_entries(std::ostream& os, const char* what, const std::vector<Entry>& entries) {
  os << what << ":\n";
  for (const auto& e : entries) {
    std::string names = e.names.front();
    for (std::size_t i = 1; i < e.names.size(); ++i) names += (i == 1 ? " (alias " : ", ") + e.names[i];
    if (e.names.size() > 1) names += ")";
    os << fmt::format("  {:<28} {}\n", names, e.summary);
  }
}

}  // namespace detail

int main(int argc, const char* const* argv, const run::Registry& registry, const Program& program) {
  CLI::App app{program.description, program.name};
  app.set_version_flag("--version", program.name + " (sgmcmc " + std::string(sgmcmc::version) + ")");
  app.require_subcommand(1);
  run::Options opt;
  opt.progress = ::isatty(STDERR_FILENO) != 0;
  bool quiet = false;

  auto* run = app.add_subcommand("run", "Run a JSON config (no CONFIG: " + program.default_config_note + ") and write a run record");
  std::string config_path, out_path;
  bool print_default = false;
  run->add_option("CONFIG", config_path, "JSON config (the vocabulary of docs/config.md)");
  auto* run_output = run->add_option("-o,--output", out_path, "where to write the JSON run record");
  run->add_option("--threads", opt.threads, "threads for the chains (default: one per core)");
  run->add_flag("--print-default-config", print_default, "print the default config and exit");
  run->add_flag("-q,--quiet", quiet, "print nothing but errors");
  // --format: the names of program.formats; the first registered (json) is the default.
  const run::output::Formats& registered = program.formats;
  const std::vector<std::string> default_formats =
      registered.entries().empty() ? std::vector<std::string>{} : std::vector<std::string>{registered.entries().front().names.front()};
  std::vector<std::string> formats = default_formats;
  const std::string formats_footer = detail::formats_help(registered);
  const auto add_format = [&](CLI::App* sub) {
    sub->add_option("--format", formats,
                    fmt::format("output formats, one or several of {} ({}see docs/run-format.md)", registered.names_text(),
                                default_formats.empty() ? "" : "default " + default_formats.front() + "; "))
        ->delimiter(',')
        ->check(detail::format_check(registered));
    sub->footer(formats_footer);
  };
  add_format(run);

  auto* resume = app.add_subcommand("resume", "Continue a run record for more steps, exactly as if it had never stopped");
  std::string record_path, resume_out;
  std::uint64_t more_steps = 0;
  resume->add_option("RUN", record_path, "run record to continue")->required();
  auto* steps_option = resume->add_option("--steps", more_steps, "how many more steps per chain (default: to the config's steps, which completes an interrupted run)")
                           ->check(CLI::PositiveNumber);
  auto* resume_output = resume->add_option("-o,--output", resume_out, "where to write the continued record")->required();
  resume->add_option("--threads", opt.threads, "threads for the chains (default: one per core)");
  resume->add_flag("-q,--quiet", quiet, "print nothing but errors");
  resume->add_flag("--allow-changed", opt.allow_changed_config,
                   "resume even if the record's config was edited after it was written (the record notes it)");
  add_format(resume);

  auto* convert = app.add_subcommand("convert", "Write a JSON run record in other formats (--format: those listed below) or as a version-2 record");
  std::string convert_in, convert_out;
  convert->add_option("RUN", convert_in, "run record to convert")->required();
  auto* convert_output = convert->add_option("-o,--output", convert_out, "output path (the files each format writes: below)")->required();
  convert->add_option("--format", formats, "one or several of " + registered.names_text())
      ->delimiter(',')
      ->check(detail::format_check(registered))
      ->required();
  convert->footer(formats_footer);
  bool convert_stein = false;
  convert->add_flag("--stein", convert_stein, "also compute the Stein diagnostics (as summary --stein: KSD, configurational temperature, gradient noise) and write them with the draws");

  auto* summary = app.add_subcommand("summary", "Per-coordinate mean, sd, quantiles, bulk/tail ESS and split-R̂ of a run");
  std::string summary_path;
  bool summary_json = false, summary_stein = false;
  summary->add_option("RUN", summary_path, "run record")->required();
  summary->add_flag("--json", summary_json, "print the summary as JSON");

  summary->add_flag("--stein", summary_stein, "add each chain's kernel Stein discrepancy and configurational temperature, and the gradient noise at its draws "
                                              "(one full-data gradient per draw; euclidean targets)");

  auto* thin = app.add_subcommand("thin", "Stein thinning (Riabiz et al. 2022): each chain's draws cut to the M that best represent the target");
  std::string thin_in, thin_out;
  std::size_t thin_to = 0;
  thin->add_option("RUN", thin_in, "run record to thin")->required();
  thin->add_option("--to", thin_to, "draws to keep per chain")->required()->check(CLI::PositiveNumber);
  auto* thin_output = thin->add_option("-o,--output", thin_out, "where to write the thinned record")->required();
  thin->add_flag("-q,--quiet", quiet, "print nothing but errors");
  add_format(thin);

  auto* sweep = app.add_subcommand("sweep", "The bias harness: a grid of samplers × step sizes × batch sizes scored against a reference posterior");
  std::string sweep_config, sweep_out, sweep_svg;
  std::vector<std::string> sweep_reference;
  sweep->add_option("CONFIG", sweep_config, "run config with a \"sweep\" section (docs/samplers.md)")->required();
  sweep->add_option("--reference", sweep_reference, "the reference: Stan CSV files (chains pooled) or a run record")->required()->delimiter(',');
  auto* sweep_output = sweep->add_option("-o,--output", sweep_out, "where to write the scores (JSON)")->required();
  sweep->add_option("--svg", sweep_svg, "also plot bias against cost (one line per sampler) to this SVG file");
  std::string plot_x = "gradient_evals", plot_y = "max_z";
  sweep->add_option("--plot-x", plot_x, "the plot's cost axis: gradient_evals (default) or seconds (set-up and sampling)")
      ->check(CLI::IsMember({"gradient_evals", "seconds"}));
  sweep->add_option("--plot-y", plot_y, "the plot's error axis: max_z (default) or max_sd_error")->check(CLI::IsMember({"max_z", "max_sd_error"}));
  double reference_seconds = 0;
  sweep->add_option("--reference-seconds", reference_seconds,
                    "the reference's own wall time (NUTS's, say): each point's seconds as a fraction of it, and a line on a plot in seconds")
      ->check(CLI::PositiveNumber);
  sweep->add_option("--threads", opt.threads, "threads for each run's chains (default: one per core)");
  sweep->add_flag("-q,--quiet", quiet, "print nothing but errors");

  auto* list = app.add_subcommand("list", "The manifolds, targets, samplers and output formats this program knows, one line each");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (auto* o : {run_output, resume_output, convert_output, thin_output, sweep_output})
    if (o->count() > 0 && o->as<std::string>().empty()) {
      std::cerr << fmt::format("{}: error: -o: the output file name is empty\n", program.name);
      return 2;
    }
  if (*run && out_path.empty() && formats != default_formats) {
    std::cerr << fmt::format("{}: error: --format needs -o (the path the outputs are named after)\n", program.name);
    return 2;
  }
  // Over MPI (docs/distributed.md) every rank runs the same command; rank 0 writes and prints. Only
  // run and resume go over the ranks: any other command (a sweep's runs too) is rank 0's alone.
  opt.transport = *run || *resume ? program.transport : nullptr;
  const bool root = !program.transport || program.transport->rank() == 0;
  if (!root) {
    // Only run and resume work over ranks; any other command is rank 0's alone (its files written once).
    if (!*run && !*resume) return 0;
    quiet = true;
    opt.progress = false;
  }
  try {
    if (*run) {
      if (print_default) {
        std::cout << program.default_config.dump(2) << '\n';
        return 0;
      }
      std::error_code ec;
      if (!config_path.empty() && !out_path.empty() && std::filesystem::equivalent(config_path, out_path, ec)) {
        std::cerr << fmt::format("{}: error: -o {}: that is the config file; the run record would overwrite it\n", program.name, out_path);
        return 2;
      }
      const json config = config_path.empty() ? program.default_config : run::read_json_file(config_path);
      if (config_path.empty() && !quiet)
        std::cout << fmt::format("no CONFIG given: running {} ({} run --print-default-config)\n", program.default_config_note, program.name);
      if (quiet) opt.progress = false;
      // The handlers first: check_writable's probe is a named temporary, which a signal's default action
      // would leave behind.
      detail::InterruptHandlers handlers;
      if (root && !out_path.empty()) run::check_writable(out_path);  // before sampling, not after it
      opt.stop = &detail::interrupt_requested();
      return detail::run_and_report(program.name, registered, root ? out_path : "", formats, quiet, [&](std::span<run::output::Writer* const> writers) {
        return run::run(config, opt, registry, writers);
      }, root);
    }
    if (*resume) {
      if (quiet) opt.progress = false;
      detail::InterruptHandlers handlers;
      if (root) run::check_writable(resume_out);
      opt.stop = &detail::interrupt_requested();
      const std::optional<std::uint64_t> steps = steps_option->count() ? std::optional(more_steps) : std::nullopt;
      return detail::run_and_report(program.name, registered, root ? resume_out : "", formats, quiet, [&](std::span<run::output::Writer* const> writers) {
        return run::resume_file(record_path, steps, opt, registry, writers);
      }, root);
    }
    if (*convert) {
      run::check_writable(convert_out);
      auto files = registered.writers(convert_out, formats);
      std::vector<run::output::Writer*> writers;
      for (auto& w : files) writers.push_back(w.get());
      const json stein = convert_stein ? detail::stein_of_file(convert_in, detail::read_with_draws(convert_in), registry) : json(nullptr);
      run::convert(convert_in, registry, writers, stein);
      if (!quiet) detail::print_written(files);
      return 0;
    }
    if (*summary) {
      detail::print_summary_of_file(summary_path, std::cout, summary_json, summary_stein ? &registry : nullptr);
      return 0;
    }
    if (*thin) {
      run::check_writable(thin_out);
      auto files = registered.writers(thin_out, formats);
      std::vector<run::output::Writer*> writers;
      for (auto& w : files) writers.push_back(w.get());
      const json report = run::thin(thin_in, thin_to, registry, writers);
      if (!quiet) {
        for (std::size_t i = 0; i < report["ksd_before"].size(); ++i)
          if (report["ksd_before"][i].is_number())
            std::cout << fmt::format("chain {}: KSD {:.4g} over its draws, {:.4g} over the {} kept\n", i, report["ksd_before"][i].get<double>(),
                                     report["ksd_after"][i].get<double>(), thin_to);
        detail::print_written(files);
      }
      return 0;
    }
    if (*sweep) {
      run::check_writable(sweep_out);
      if (!sweep_svg.empty()) run::check_writable(sweep_svg);
      const json config = run::read_json_file(sweep_config);
      run::Reference ref = run::read_reference(sweep_reference);
      ref.seconds = reference_seconds;
      opt.progress = false;
      const json result = run::sweep(config, ref, opt, registry, [&](const json& p) {
        if (quiet) return;
        if (p["status"] == "error" && p.contains("error")) {
          std::cout << fmt::format("{} h = {}: error: {}\n", p["sampler"].get<std::string>(), p["step_size"].get<double>(),
                                   run::printable(p["error"].get<std::string>(), 200));
          return;
        }
        std::cout << fmt::format("{} h = {}{}: max z {:.3f}, max |sd ratio − 1| {:.3f}, ESS/s {:.4g}, {} gradients\n",
                                 p["sampler"].get<std::string>(), p["step_size"].get<double>(),
                                 p["batch_size"].is_number() ? fmt::format(" n = {}", p["batch_size"].get<std::uint64_t>()) : "",
                                 p["max_z"].get<double>(), p["max_sd_error"].get<double>(),
                                 p["ess_per_second"].is_number() ? p["ess_per_second"].get<double>() : 0.0, p["gradient_evals"].get<std::uint64_t>());
      });
      run::write_json_file(result, sweep_out, 1);
      if (!sweep_svg.empty()) {
        run::AtomicFile file(sweep_svg);
        using Plot = run::output::SweepPlot;
        file.write(run::output::sweep_svg(result, {plot_x == "seconds" ? Plot::Cost::seconds : Plot::Cost::gradient_evals,
                                                   plot_y == "max_z" ? Plot::Accuracy::max_z : Plot::Accuracy::max_sd_error}));
        file.commit();
      }
      if (!quiet) std::cout << "written: " << sweep_out << (sweep_svg.empty() ? "" : ", " + sweep_svg) << '\n';
      return 0;
    }
    if (*list) {
      detail::list_entries(std::cout, "manifolds", registry.manifolds());
      detail::list_entries(std::cout, "targets", registry.targets());
      detail::list_entries(std::cout, "samplers", registry.samplers());
      detail::list_entries(std::cout, "output formats", registered.entries());
      return 0;
    }
  } catch (const run::distributed::AgreedError& e) {
    if (root) std::cerr << program.name << ": error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    if (program.transport && program.transport->size() > 1) {
      // This rank alone: the others may be waiting for it in a collective. Stop them all.
      std::cerr << fmt::format("{}: error on rank {} of {}: {}; stopping every rank\n", program.name, program.transport->rank(),
                               program.transport->size(), e.what());
      program.transport->abort(1);
    }
    std::cerr << program.name << ": error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace sgmcmc::cli
