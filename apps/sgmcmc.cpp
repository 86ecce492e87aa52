// sgmcmc — the command-line tool: run a JSON config, resume a run record, summarise a run.
//   sgmcmc run [CONFIG] [-o RUN]        (no CONFIG: the embedded default demo)
//   sgmcmc resume RUN --steps K -o RUN2
//   sgmcmc summary RUN [--json]
// Exit codes: 0 ok; 1 bad input (config, record, file); 2 bad command line; 3 a chain stopped with an
// error (the record, with every draw made before it, is still written).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/version.hpp>

namespace {

using sgmcmc::Error;
using sgmcmc::run::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

// Writes the whole document to a temporary file beside `path`, then renames it: a reader never sees a
// half-written record, and a failure leaves any existing file untouched.
void write_json(const json& j, const std::string& path) {
  const std::filesystem::path target(path);
  if (target.has_parent_path() && !std::filesystem::exists(target.parent_path()))
    std::filesystem::create_directories(target.parent_path());
  const std::string tmp = path + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp);
    if (!out) throw Error(fmt::format("{}: cannot open the file for writing", path));
    out << j.dump() << '\n';
    if (!out.flush()) throw Error(fmt::format("{}: write failed", path));
  }
  std::filesystem::rename(tmp, target);
}

void print_summary(const json& record, std::ostream& os, bool as_json) {
  sgmcmc::run::validate_record(record);
  std::vector<Eigen::MatrixXd> chains;
  for (const auto& ch : record["chains"]) {
    const auto& s = ch["samples"];
    if (s.empty()) continue;
    Eigen::MatrixXd m(static_cast<Eigen::Index>(s.size()), static_cast<Eigen::Index>(s[0].size()));
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t k = 0; k < s[i].size(); ++k) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = s[i][k].get<double>();
    chains.push_back(std::move(m));
  }
  if (chains.empty()) throw Error("/chains: the run kept no draws (steps <= burn_in?)");
  const auto sums = sgmcmc::diagnostics::summarize_columns(chains);
  if (as_json) {
    json out = json::array();
    for (std::size_t k = 0; k < sums.size(); ++k) {
      const auto& s = sums[k];
      out.push_back({{"coordinate", k}, {"mean", s.mean}, {"sd", s.sd}, {"q5", s.q5}, {"q50", s.q50}, {"q95", s.q95},
                     {"mcse_mean", s.mcse_mean}, {"ess_bulk", s.ess_bulk}, {"ess_tail", s.ess_tail}, {"rhat", s.rhat}});
    }
    os << json{{"summary", out}}.dump(2) << '\n';
    return;
  }
  std::size_t draws = 0;
  for (const auto& c : chains) draws += static_cast<std::size_t>(c.rows());
  const auto& cfg = record["config"];
  os << fmt::format("sampler {}, target {}, {} chains, {} draws kept\n", cfg["sampler"]["name"].get<std::string>(),
                    cfg["target"]["name"].get<std::string>(), chains.size(), draws);
  os << fmt::format("{:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "coord", "mean", "sd", "q5",
                    "q50", "q95", "mcse_mean", "ess_bulk", "ess_tail", "rhat");
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const auto& s = sums[k];
    os << fmt::format("{:>6} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>9.0f} {:>9.0f} {:>7.3f}\n", k,
                      s.mean, s.sd, s.q5, s.q50, s.q95, s.mcse_mean, s.ess_bulk, s.ess_tail, s.rhat);
  }
  for (const auto& ch : record["chains"]) {
    os << fmt::format("chain {}: {}", ch["id"].get<int>(), ch["diagnostics"].dump());
    if (ch["status"] != "ok") os << "  ERROR " << ch["error"].get<std::string>();
    os << '\n';
  }
}

int finish_run(const json& record, const std::string& out_path, bool quiet) {
  if (!out_path.empty()) write_json(record, out_path);
  if (!quiet) print_summary(record, std::cout, false);
  double sampling = 0;
  for (const auto& p : record["timings"]["phases"]) sampling += p["sampling_seconds"].get<double>();
  if (!quiet) std::cout << fmt::format("sampling time {:.3f} s{}\n", sampling, out_path.empty() ? "" : ", record written to " + out_path);
  if (record["status"] != "ok") {
    for (const auto& ch : record["chains"])
      if (ch["status"] != "ok") std::cerr << "sgmcmc: " << ch["error"].get<std::string>() << '\n';
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sgmcmc: stochastic-gradient MCMC on flat space and manifolds"};
  app.set_version_flag("--version", std::string("sgmcmc ") + sgmcmc::version);
  app.require_subcommand(1);
  sgmcmc::run::Options opt;
  opt.progress = ::isatty(STDERR_FILENO) != 0;
  bool quiet = false;

  auto* run = app.add_subcommand("run", "Run a JSON config (no CONFIG: the embedded default demo) and write a run record");
  std::string config_path, out_path;
  bool print_default = false;
  run->add_option("CONFIG", config_path, "JSON config (DESIGN.md §5.1 vocabulary; see docs/config.md)");
  run->add_option("-o,--output", out_path, "where to write the JSON run record");
  run->add_option("--threads", opt.threads, "threads for the chains (default: one per core)");
  run->add_flag("--print-default-config", print_default, "print the embedded demo's config and exit");
  run->add_flag("-q,--quiet", quiet, "print nothing but errors");

  auto* resume = app.add_subcommand("resume", "Continue a run record for more steps, exactly as if it had never stopped");
  std::string record_path, resume_out;
  std::uint64_t more_steps = 0;
  resume->add_option("RUN", record_path, "run record to continue")->required();
  resume->add_option("--steps", more_steps, "how many more steps per chain")->required()->check(CLI::PositiveNumber);
  resume->add_option("-o,--output", resume_out, "where to write the continued record")->required();
  resume->add_option("--threads", opt.threads, "threads for the chains (default: one per core)");
  resume->add_flag("-q,--quiet", quiet, "print nothing but errors");

  auto* summary = app.add_subcommand("summary", "Per-coordinate mean, sd, quantiles, bulk/tail ESS and split-R̂ of a run");
  std::string summary_path;
  bool summary_json = false;
  summary->add_option("RUN", summary_path, "run record")->required();
  summary->add_flag("--json", summary_json, "print the summary as JSON");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) {
      if (print_default) {
        std::cout << sgmcmc::run::default_config().dump(2) << '\n';
        return 0;
      }
      const json config = config_path.empty() ? sgmcmc::run::default_config() : read_json(config_path);
      if (config_path.empty() && !quiet) std::cout << "no CONFIG given: running the embedded default demo (sgmcmc run --print-default-config)\n";
      if (quiet) opt.progress = false;
      return finish_run(sgmcmc::run::run(config, opt), out_path, quiet);
    }
    if (*resume) {
      if (quiet) opt.progress = false;
      return finish_run(sgmcmc::run::resume(read_json(record_path), more_steps, opt), resume_out, quiet);
    }
    if (*summary) {
      print_summary(read_json(summary_path), std::cout, summary_json);
      return 0;
    }
  } catch (const Error& e) {
    std::cerr << "sgmcmc: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sgmcmc: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
