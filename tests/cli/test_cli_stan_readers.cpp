// The readers people use on sgmcmc's outputs (issue #34 items 1 and 8), run on one run of each sampler
// family: rstan's read_stan_csv, get_elapsed_time and check_hmc_diagnostics and posterior's
// summarise_draws on the Stan CSV (one Rscript for all runs: R with rstan takes ~2 s to start), xarray
// on the NetCDF and pandas on the CSV (one python3). Every number they read is compared with sgmcmc's
// own (the record, `sgmcmc summary`). The readers are Debian's r-cran-rstan, r-cran-posterior and
// python3-xarray (scripts/test.sh's deps line); a missing one fails the test with the package to
// install. docs/run-format.md, "Readers".
#include <doctest/doctest.h>

#include "../support/cli.hpp"
#include "../support/external.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/run/output/stan_csv.hpp>

namespace test_cli_stan_readers {  // this file's names: its group compiles as one translation unit

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_stan_readers_scratch");
  return dir;
}

/// One run of a sampler family: 2 chains, 100 burn-in steps, 200 kept draws each.
struct Family {
  std::string name;
  json config;
};

std::vector<Family> families() {
  const json gaussian = {{"name", "gaussian"}, {"mean", {1, -1}}, {"cov", {{1, 0.5}, {0.5, 2}}}};
  const json plane = {{"name", "euclidean"}, {"dim", 2}};
  const auto config = [](json sampler, json manifold, json target, int seed) {
    return json{{"sampler", std::move(sampler)}, {"manifold", std::move(manifold)}, {"target", std::move(target)},
                {"steps", 300}, {"burn_in", 100}, {"chains", 2}, {"seed", seed}};
  };
  std::vector<Family> out = {
      {"sgld", config({{"name", "sgld"}, {"step_size", 0.05}}, plane, gaussian, 1)},
      {"sgnht", config({{"name", "sgnht"}, {"step_size", 0.05}}, plane, gaussian, 2)},
      {"hmc", config({{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 5}}, plane, gaussian, 3)},
      {"sphere", config({{"name", "sggmc"}, {"step_size", 0.05}}, {{"name", "sphere"}, {"n", 3}},
                        {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}, 4)},
      {"stiefel", config({{"name", "sggmc"}, {"step_size", 0.05}}, {{"name", "stiefel"}, {"n", 4}, {"p", 2}},
                         {{"name", "matrix_vmf"}, {"F", {{3, 0}, {0, 1}, {0, 0}, {0, 0}}}}, 5)},
      {"precond", config({{"name", "sgld"}, {"step_size", 0.05}, {"preconditioner", "diagonal"}}, plane, gaussian, 6)},
  };
  out[2].config["log_density"] = true;  // HMC with its Metropolis test: lp__ is real
  return out;
}

/// The scripts' lines "KIND RUN REST...", by "KIND RUN" (in order).
std::multimap<std::string, std::string> lines_of(const std::string& text) {
  std::multimap<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b != std::string::npos) out.emplace(line.substr(0, b), line.substr(b + 1));
  }
  return out;
}
std::vector<std::string> all(const std::multimap<std::string, std::string>& m, const std::string& key) {
  std::vector<std::string> v;
  for (auto [it, end] = m.equal_range(key); it != end; ++it) v.push_back(it->second);
  return v;
}

/// The draw's coordinate a reader's name stands for: x[i] or x[i,j] (column-major, n rows), or x.i / x.i.j.
int coordinate_of(std::string name, int rows) {
  for (char& ch : name)
    if (ch == '[' || ch == ']' || ch == ',' || ch == '.') ch = ' ';
  std::istringstream in(name.substr(1));
  int i = 0, j = 1;
  in >> i;
  if (!(in >> j)) j = 1;
  return (i - 1) + (j - 1) * rows;
}

/// Chain c's mean of coordinate k in the record.
double record_mean(const json& record, std::size_t c, std::size_t k) {
  const json& samples = record["chains"][c]["samples"];
  double sum = 0;
  for (const json& draw : samples) sum += draw[k].get<double>();
  return sum / static_cast<double>(samples.size());
}

bool agrees(double a, double b, double tolerance) { return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b)); }

const char* r_script = R"(for (p in c("rstan", "posterior")) if (!requireNamespace(p, quietly = TRUE)) quit(status = 3)
suppressPackageStartupMessages({library(rstan); library(posterior)})
say <- function(...) cat(..., "\n", sep = "")
num <- function(v) sprintf("%.17g", v)
for (base in commandArgs(trailingOnly = TRUE)) {
  run <- basename(base)
  files <- paste0(base, "_", 1:2, ".csv")
  warned <- character(0)
  fit <- withCallingHandlers(read_stan_csv(files),
                             warning = function(w) { warned <<- c(warned, conditionMessage(w)); invokeRestart("muffleWarning") })
  for (w in warned) say("warning ", run, " ", gsub("\\s+", " ", w))
  a <- as.array(fit)
  say("chains ", run, " ", dim(a)[2], " ", dim(a)[1])
  say("names ", run, " ", paste(dimnames(a)[[3]], collapse = ","))
  say("model_pars ", run, " ", paste(fit@model_pars, collapse = ","))
  say("sampler_params ", run, " ", paste(colnames(get_sampler_params(fit, inc_warmup = FALSE)[[1]]), collapse = ","))
  for (k in seq_len(dim(a)[2])) for (p in dimnames(a)[[3]]) say("mean ", run, " ", k, " ", p, " ", num(mean(a[, k, p])))
  t <- get_elapsed_time(fit)
  for (k in seq_len(nrow(t))) say("time ", run, " ", k, " ", num(t[k, "warmup"]), " ", num(t[k, "sample"]))
  said <- character(0)
  tryCatch(withCallingHandlers(invisible(capture.output(check_hmc_diagnostics(fit))),
                               message = function(m) { said <<- c(said, trimws(conditionMessage(m))); invokeRestart("muffleMessage") }),
           error = function(e) said <<- c(said, paste("error:", conditionMessage(e))))
  say("hmc_diagnostics ", run, " ", gsub("\\s+", " ", paste(said, collapse = " | ")))
  d <- do.call(rbind, lapply(seq_along(files), function(k) {
    f <- read.csv(files[k], comment.char = "#", check.names = FALSE); f$.chain <- k; f }))
  s <- summarise_draws(subset_draws(as_draws_df(d), variable = grep("^x\\.", names(d), value = TRUE)), "mean", "sd")
  for (i in seq_len(nrow(s))) say("posterior ", run, " ", s$variable[i], " ", num(s$mean[i]), " ", num(s$sd[i]))
}
)";

const char* python_script = R"(import sys
try:
    import numpy as np
    import pandas as pd
    import xarray as xr
except ImportError:
    sys.exit(3)
for base in sys.argv[1:]:
    run = base.rsplit('/', 1)[-1]
    groups = {g: xr.open_dataset(base + '.nc', group=g) for g in ('posterior', 'sample_stats')}
    x = groups['posterior']['x'].values  # (chain, draw, ...): a matrix draw flattened column-major, as the record
    for c in range(x.shape[0]):
        flat = x[c].reshape(x.shape[1], -1, order='F') if x.ndim == 3 else np.stack([d.flatten(order='F') for d in x[c]])
        for k, v in enumerate(flat.mean(axis=0)):
            print(f'netcdf {run} {c + 1} {k} {v!r}')
    print(f"sample_stats {run} {','.join(sorted(groups['sample_stats'].data_vars))}")
    for c in (1, 2):
        df = pd.read_csv(f'{base}_{c}.csv', comment='#', float_precision='round_trip')
        for k, col in enumerate(col for col in df.columns if col.startswith('x.')):
            print(f'pandas {run} {c} {k} {df[col].mean()!r}')
)";

}  // namespace

TEST_CASE("rstan, posterior and xarray read every sampler family's Stan CSV and NetCDF to sgmcmc's own numbers") {
  // Catches (issue #34 items 1 and 8): a CSV rstan cannot read (no engine line on an "hmc" run), a
  // statistic rstan files under the model's parameters (kinetic_energy__, n_grad__, reflections__), a
  // missing treedepth__ (check_hmc_diagnostics: "subscript out of bounds"), the run-wide time repeated in
  // every chain's file or reported as warm-up, parameter names or values that differ from the record's
  // (a matrix transposed), posterior's mean/sd not `sgmcmc summary`'s, a NetCDF xarray reads otherwise.
  std::string runs;
  for (const Family& f : families()) {
    const fs::path config = sgmcmc_test::cli::write_json(scratch(), f.name + ".config.json", f.config);
    const fs::path out = scratch() / (f.name + ".json");
    const auto r = sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}' --format json,csv,netcdf", config.string(), out.string()));
    REQUIRE_MESSAGE(r.code == 0, f.name, ": ", r.err);
    const auto s = sgmcmc_test::cli::run_cli(scratch(), fmt::format("summary --json '{}'", out.string()));
    REQUIRE_MESSAGE(s.code == 0, f.name, ": ", s.err);
    std::ofstream(scratch() / (f.name + ".summary.json")) << s.out;
    runs += fmt::format(" '{}'", (scratch() / f.name).string());
  }
  const auto r = lines_of(sgmcmc_test::run_script(scratch(), "readers.R", sgmcmc_test::rscript(), r_script, runs,
                                                  "r-base-core r-cran-rstan r-cran-posterior"));
  const auto py = lines_of(sgmcmc_test::run_script(scratch(), "readers.py", sgmcmc_test::python(), python_script, runs,
                                                   "python3-xarray python3-netcdf4"));

  for (const Family& f : families()) {
    const std::string& run = f.name;
    CAPTURE(run);
    const json record = sgmcmc_test::cli::read_json(scratch() / (run + ".json"));
    const json summary = sgmcmc_test::cli::read_json(scratch() / (run + ".summary.json"));
    const json& manifold = f.config["manifold"];
    const int rows = manifold["name"] == "stiefel" ? manifold["n"].get<int>() : 1;
    const std::size_t dim = record["chains"][0]["samples"][0].size();
    const bool has_lp = f.config.contains("log_density");

    // rstan: every chain, the parameters named as Stan names them and nothing else among them.
    CHECK(all(r, "chains " + run) == std::vector<std::string>{"2 200"});
    std::string names;
    for (std::size_t k = 0; k < dim; ++k)
      names += rows > 1 ? fmt::format("x[{},{}],", k % static_cast<std::size_t>(rows) + 1, k / static_cast<std::size_t>(rows) + 1)
                        : fmt::format("x[{}],", k + 1);
    CHECK(all(r, "names " + run) == std::vector<std::string>{names + "lp__"});
    CHECK(all(r, "model_pars " + run) == std::vector<std::string>{"x,lp__"});
    CHECK(all(r, "sampler_params " + run) ==
          std::vector<std::string>{run == "hmc" ? "accept_stat__,treedepth__,stepsize__,divergent__,n_leapfrog__,energy__"
                                                : "treedepth__,stepsize__,divergent__,n_leapfrog__"});
    // lp__ not computed is nan, which rstan notices (the one warning); nothing else is warned about.
    CHECK(all(r, "warning " + run) ==
          (has_lp ? std::vector<std::string>{}
                  : std::vector<std::string>{"The following variables have undefined values: lp__. Many subsequent functions will not work correctly."}));
    // rstan's per-chain means equal the record's.
    int compared = 0;
    for (const std::string& line : all(r, "mean " + run)) {
      std::istringstream in(line);
      std::size_t chain = 0;
      std::string name, value;
      in >> chain >> name >> value;
      if (name == "lp__") {
        if (!has_lp) CHECK(value == "NaN");
        continue;
      }
      const auto k = static_cast<std::size_t>(coordinate_of(name, rows));
      CHECK_MESSAGE(agrees(std::stod(value), record_mean(record, chain - 1, k), 1e-12), name, " chain ", chain);
      ++compared;
    }
    CHECK(compared == static_cast<int>(2 * dim));
    // get_elapsed_time: each chain's own warm-up and sampling time, as the record holds it.
    const std::vector<std::string> times = all(r, "time " + run);
    REQUIRE(times.size() == 2);
    for (std::size_t c = 0; c < 2; ++c) {
      std::istringstream in(times[c]);
      std::size_t chain = 0;
      double warmup = 0, sampling = 0;
      in >> chain >> warmup >> sampling;
      const json& timing = record["chains"][c]["timing"];
      CHECK(chain == c + 1);
      CHECK(std::abs(warmup - timing["warmup_seconds"].get<double>()) <= 1e-9);
      CHECK(std::abs(sampling - timing["sampling_seconds"].get<double>()) <= 1e-9);
    }
    // posterior's summarise_draws on the CSV's draws: `sgmcmc summary`'s mean and sd.
    const std::vector<std::string> post = all(r, "posterior " + run);
    REQUIRE(post.size() == dim);
    for (const std::string& line : post) {
      std::istringstream in(line);
      std::string name;
      double mean = 0, sd = 0;
      in >> name >> mean >> sd;
      const json& row = summary["summary"][static_cast<std::size_t>(coordinate_of(name, rows))];
      CHECK_MESSAGE(agrees(mean, row["mean"].get<double>(), 1e-12), name);
      CHECK_MESSAGE(agrees(sd, row["sd"].get<double>(), 1e-12), name);
    }
    // xarray: the NetCDF's posterior per chain equals the record's.
    const std::vector<std::string> nc = all(py, "netcdf " + run);
    CHECK(nc.size() == 2 * dim);
    for (const std::string& line : nc) {
      std::istringstream in(line);
      std::size_t chain = 0, k = 0;
      double mean = 0;
      in >> chain >> k >> mean;
      CHECK(agrees(mean, record_mean(record, chain - 1, k), 1e-12));
    }
    CHECK(all(py, "sample_stats " + run).size() == 1);
    // pandas on each chain's CSV ('#' lines skipped): the record's per-chain means.
    const std::vector<std::string> frames = all(py, "pandas " + run);
    CHECK(frames.size() == 2 * dim);
    for (const std::string& line : frames) {
      std::istringstream in(line);
      std::size_t chain = 0, k = 0;
      double mean = 0;
      in >> chain >> k >> mean;
      CHECK(agrees(mean, record_mean(record, chain - 1, k), 1e-12));
    }
    // check_hmc_diagnostics: on HMC it runs through (treedepth__ and energy__ are there) and counts the
    // record's divergences; on an SG run it counts 0 divergences and stops at the energy check (no
    // energy__: no Hamiltonian), as docs/run-format.md says.
    std::size_t divergent = 0, draws = 0;
    for (const json& ch : record["chains"]) {
      draws += ch["samples"].size();
      if (run == "hmc")
        for (const json& flag : ch["sample_stats"]["divergent"]) divergent += flag.get<double>() != 0 ? 1 : 0;
    }
    const std::vector<std::string> diagnostics = all(r, "hmc_diagnostics " + run);
    REQUIRE(diagnostics.size() == 1);
    CHECK_MESSAGE(diagnostics[0].starts_with(fmt::format("{} of {} iterations ended with a divergence", divergent, draws)), diagnostics[0]);
    CHECK(diagnostics[0].find(fmt::format("0 of {} iterations saturated the maximum tree depth of 10", draws)) != std::string::npos);
    if (run == "hmc") CHECK(diagnostics[0].find("error") == std::string::npos);
    else CHECK_MESSAGE(diagnostics[0].ends_with("| error: subscript out of bounds"), diagnostics[0]);
  }
}

TEST_CASE("the preconditioner adapted in the burn-in is in each chain's Stan CSV: adapt engaged = 1, its s squared") {
  // Catches (issue #34 item 1): adapt engaged = 0 for a diagonal preconditioner the burn-in estimated,
  // its scale in no output but the record, the initial scale (ones) written instead of the adapted one,
  // the scale lost by `convert` or by a `resume` past the burn-in.
  json config = families().back().config;
  const fs::path path = sgmcmc_test::cli::write_json(scratch(), "adapt.config.json", config);
  const fs::path out = scratch() / "adapt.json";
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}' --format json,csv", path.string(), out.string())).code == 0);
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("convert '{}' -o '{}' --format csv", out.string(),
                                                           (scratch() / "adapt_converted.json").string())).code == 0);
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("resume -q '{}' --steps 50 -o '{}' --format json,csv", out.string(),
                                                           (scratch() / "adapt_resumed.json").string())).code == 0);
  const json record = sgmcmc_test::cli::read_json(out);
  for (const char* base : {"adapt", "adapt_converted", "adapt_resumed"})
    for (std::size_t c = 0; c < 2; ++c) {
      CAPTURE(base);
      CAPTURE(c);
      const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / fmt::format("{}_{}.csv", base, c + 1)).string());
      const json& scale = record["chains"][c]["state"]["sampler"]["scale"];
      REQUIRE(scale.size() == 2);
      CHECK(scale[0].get<double>() != 1.0);  // adapted, not the initial ones
      const auto at = std::find(csv.comments.begin(), csv.comments.end(), "# Diagonal elements of inverse mass matrix:");
      REQUIRE(at != csv.comments.end());
      REQUIRE(at + 1 != csv.comments.end());
      double a = 0, b = 0;
      REQUIRE(std::sscanf((at + 1)->c_str(), "# %lf, %lf", &a, &b) == 2);
      CHECK(a == scale[0].get<double>() * scale[0].get<double>());
      CHECK(b == scale[1].get<double>() * scale[1].get<double>());
      CHECK(std::find(csv.comments.begin(), csv.comments.end(), "#       engaged = 1") != csv.comments.end());
    }
}

TEST_CASE("each chain's warm-up and sampling time is in the record, adds up over a resume, and an older record still reads") {
  // Catches (issue #34 item 2): one run-wide time repeated in every chain, no warm-up time, a resume
  // that forgets (or double-counts) the first phase's times, a chain's time longer than the phase it ran
  // in, a record without chains[i].timing refused by resume or convert.
  const fs::path path = sgmcmc_test::cli::write_json(scratch(), "time.config.json", families().front().config);
  const fs::path first = scratch() / "time.json", second = scratch() / "time_resumed.json";
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", path.string(), first.string())).code == 0);
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("resume -q '{}' --steps 200 -o '{}' --format json,csv", first.string(),
                                                           second.string())).code == 0);
  const json a = sgmcmc_test::cli::read_json(first), b = sgmcmc_test::cli::read_json(second);
  const double phase_a = a["timings"]["phases"][0]["sampling_seconds"].get<double>();
  const double phase_b = b["timings"]["phases"][1]["sampling_seconds"].get<double>();
  for (std::size_t c = 0; c < 2; ++c) {
    CAPTURE(c);
    const json& ta = a["chains"][c]["timing"];
    const json& tb = b["chains"][c]["timing"];
    CHECK(ta["warmup_seconds"].get<double>() > 0);
    CHECK(ta["sampling_seconds"].get<double>() > 0);
    CHECK(ta["warmup_seconds"].get<double>() + ta["sampling_seconds"].get<double>() <= phase_a);
    // The resume is past the burn-in: its time is all sampling, added to the first phase's.
    CHECK(tb["warmup_seconds"].get<double>() == ta["warmup_seconds"].get<double>());
    const double added = tb["sampling_seconds"].get<double>() - ta["sampling_seconds"].get<double>();
    CHECK(added > 0);
    CHECK(added <= phase_b);
    const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / fmt::format("time_resumed_{}.csv", c + 1)).string());
    CHECK(std::find(csv.comments.begin(), csv.comments.end(),
                    fmt::format("#  Elapsed Time: {:.9f} seconds (Warm-up)", tb["warmup_seconds"].get<double>())) != csv.comments.end());
  }
  // A record of an older sgmcmc (no chains[i].timing): resume counts from zero, convert says it has none.
  json old = a;
  for (json& ch : old["chains"]) ch.erase("timing");
  const fs::path old_path = sgmcmc_test::cli::write_json(scratch(), "time_old.json", old);
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("convert '{}' -o '{}' --format csv", old_path.string(),
                                                           (scratch() / "time_old_csv.json").string())).code == 0);
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "time_old_csv_1.csv").string());
  CHECK(std::find(csv.comments.begin(), csv.comments.end(),
                  "# no per-chain times: the record has none (chains[i].timing; a record of an older sgmcmc)") != csv.comments.end());
  const fs::path resumed_old = scratch() / "time_old_resumed.json";
  REQUIRE(sgmcmc_test::cli::run_cli(scratch(), fmt::format("resume -q '{}' --steps 100 -o '{}'", old_path.string(), resumed_old.string())).code == 0);
  const json c = sgmcmc_test::cli::read_json(resumed_old);
  CHECK(c["chains"][0]["timing"]["warmup_seconds"].get<double>() == 0.0);
  CHECK(c["chains"][0]["timing"]["sampling_seconds"].get<double>() > 0.0);
}

}  // namespace test_cli_stan_readers
