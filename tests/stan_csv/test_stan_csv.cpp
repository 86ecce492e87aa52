// The Stan CSV writer and reader (run/output/stan_csv.hpp): one CmdStan-style file per chain that reads
// back to the same doubles, whose comments CmdStan's readers parse, and that appears whole or not at all.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <sgmcmc/run/output/stan_csv.hpp>

#include "../support/scratch_folder.hpp"

using namespace sgmcmc;
using namespace sgmcmc::run::output;
namespace fs = std::filesystem;

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

RunHeader make_header(std::size_t chains, std::vector<Eigen::Index> shape, std::vector<const Statistic*> stats, bool has_lp) {
  RunHeader h;
  h.config = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}}},
              {"target", {{"name", "gaussian"}}},
              {"steps", 100},
              {"burn_in", 10},
              {"thin", 1},
              {"chains", chains},
              {"seed", 7}};
  h.sampler = "sghmc";
  h.chains = chains;
  h.parameters = run::output::default_parameters(std::move(shape));
  h.statistics = std::move(stats);
  h.has_lp = has_lp;
  h.expected_draws = 90;
  h.library_version = "0.1.0";
  return h;
}

/// One chain's draws as the runner hands them over, kept alive for the DrawBlock's spans.
struct Draws {
  std::size_t chain = 0;
  Eigen::Index dim = 0;
  std::vector<double> values, lp;
  std::vector<StepInfo> stats;
  DrawBlock block(std::size_t first, std::size_t count) const {
    const auto d = static_cast<std::size_t>(dim);
    return {chain, dim, std::span<const double>(values).subspan(first * d, count * d),
            std::span<const StepInfo>(stats).subspan(first, count),
            lp.empty() ? std::span<const double>() : std::span<const double>(lp).subspan(first, count), {}};
  }
};

/// Doubles that lose digits or signs under a careless format: 1/3, tiny, −0, many digits, NaN of either sign.
Draws awkward_draws(std::size_t chain, std::size_t rows, Eigen::Index dim) {
  const double awkward[] = {1.0 / 3.0, 1e-300, -0.0, 123456789.123456789, nan_value, -2.5e17, 0.1, -nan_value};
  Draws d;
  d.chain = chain;
  d.dim = dim;
  for (std::size_t r = 0; r < rows; ++r) {
    // The chains differ in scale and phase, the rows in lp and statistics: a swap or a drop shows.
    for (Eigen::Index j = 0; j < dim; ++j)
      d.values.push_back(awkward[(3 * r + static_cast<std::size_t>(j) + chain) % 8] * (chain == 0 ? 1.0 : -3.0));
    d.lp.push_back(-1.0 / static_cast<double>(r + 3 + chain));
    StepInfo info;
    info.acceptance = 1.0 / static_cast<double>(r + 1);
    info.energy = r % 3 == 0 ? nan_value : 7.0 / static_cast<double>(r + 1 + chain);
    info.step_size = 0.01 / std::sqrt(static_cast<double>(r + 1));
    info.gradient_evals = 1000 + r + 10 * chain;
    info.divergent = r == 2;
    d.stats.push_back(info);
  }
  return d;
}

/// Exact equality, NaN equal to NaN (and −0 told apart from +0 by its sign).
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  REQUIRE(::pclose(pipe) == 0);
  return out;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool has_comment(const StanCsv& csv, const std::string& line) {
  return std::find(csv.comments.begin(), csv.comments.end(), line) != csv.comments.end();
}

}  // namespace

TEST_CASE("Stan CSV round trip: two chains, blocks interleaved, every value read back exactly") {
  // Catches: lost digits (a fixed-precision format), −0 or NaN mangled, chains swapped, blocks dropped
  // or reordered, statistics in the wrong columns.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "fit").string();
  const auto header = make_header(2, {3}, {&stats::acceptance, &stats::energy, &stats::step_size, &stats::gradient_evals}, true);
  const Draws a = awkward_draws(0, 9, 3), b = awkward_draws(1, 7, 3);
  {
    StanCsvWriter writer(base);
    writer.begin(header);
    CHECK(writer.files() == std::vector<std::string>{base + "_1.csv", base + "_2.csv"});
    writer.append(a.block(0, 2));
    writer.append(b.block(0, 3));
    writer.append(a.block(2, 4));
    writer.append(b.block(3, 1));
    writer.append(b.block(4, 3));
    writer.append(a.block(6, 3));
    for (const auto& e : dir.entries())  // nothing under the target names yet: at most the temporaries (unnamed
      CHECK(e.starts_with("."));  // where the file system has O_TMPFILE, else ".NAME.XXXXXX")
    CHECK(!fs::exists(base + "_1.csv"));
    json record = {{"timings", {{"phases", json::array({{{"phase", "run"}, {"setup_seconds", 0.5}, {"sampling_seconds", 1.25}}})}}},
                   {"chains", json::array({{{"id", 0}, {"status", "ok"}, {"timing", {{"warmup_seconds", 0.25}, {"sampling_seconds", 1.5}}}},
                                           {{"id", 1}, {"status", "ok"}, {"timing", {{"warmup_seconds", 2e-5}, {"sampling_seconds", 3.0}}}}})}};
    writer.finish(record);
  }
  CHECK(dir.entries() == std::vector<std::string>{"fit_1.csv", "fit_2.csv"});

  // rstan's sampler columns in CmdStan's order; divergent__ 0 (the sampler declares no divergence flag).
  const std::vector<std::string> columns = {"lp__",        "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                                            "divergent__", "energy__",      "x.1",        "x.2",         "x.3"};
  for (const Draws* d : {&a, &b}) {
    CAPTURE(d->chain);
    const StanCsv csv = read_stan_csv(fmt::format("{}_{}.csv", base, d->chain + 1));
    CHECK(csv.columns == columns);
    REQUIRE(csv.draws.rows() == static_cast<Eigen::Index>(d->stats.size()));
    REQUIRE(csv.draws.cols() == 10);
    for (std::size_t r = 0; r < d->stats.size(); ++r) {
      CAPTURE(r);
      const auto i = static_cast<Eigen::Index>(r);
      const StepInfo& s = d->stats[r];
      CHECK(same(csv.draws(i, 0), d->lp[r]));
      CHECK(same(csv.draws(i, 1), s.acceptance));
      CHECK(same(csv.draws(i, 2), s.step_size));
      CHECK(csv.draws(i, 3) == 0.0);
      CHECK(csv.draws(i, 4) == static_cast<double>(s.gradient_evals));
      CHECK(csv.draws(i, 5) == 0.0);
      CHECK(same(csv.draws(i, 6), s.energy));
      for (Eigen::Index j = 0; j < 3; ++j) CHECK(same(csv.draws(i, 7 + j), d->values[r * 3 + static_cast<std::size_t>(j)]));
    }
    std::ifstream in(fmt::format("{}_{}.csv", base, d->chain + 1));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("-nan") == std::string::npos);  // Stan's spelling, whatever the NaN's sign bit
    // The metadata CmdStan's readers take (cmdstanr stops without method, id, save_warmup).
    CHECK(has_comment(csv, "# model = gaussian"));
    CHECK(has_comment(csv, "# method = sample (Default)"));
    CHECK(has_comment(csv, "#     num_samples = 90"));
    CHECK(has_comment(csv, "#     num_warmup = 10"));
    CHECK(has_comment(csv, "#     save_warmup = 0"));
    CHECK(has_comment(csv, "#     thin = 1"));
    CHECK(has_comment(csv, "#     algorithm = sghmc"));
    CHECK(has_comment(csv, "#       engaged = 0"));
    CHECK(has_comment(csv, "#       engine = static"));
    CHECK(has_comment(csv, "#       metric = unit_e"));
    CHECK(has_comment(csv, "#         max_depth = 10"));
    CHECK(has_comment(csv, "#       stepsize = 0.01"));
    CHECK(has_comment(csv, fmt::format("# id = {}", d->chain + 1)));
    CHECK(has_comment(csv, "#   seed = 7"));
    CHECK(has_comment(csv, "# sgmcmc_version = 0.1.0"));
    CHECK(has_comment(csv, "# sgmcmc_config = " + header.config.dump()));
    // The chain's own times in CmdStan's order (rstan takes the first two as warm-up and sampling,
    // digits only: fixed notation even for 2e-5), not the run's phases.
    const std::vector<std::string> times = d->chain == 0 ? std::vector<std::string>{"0.250000000", "1.500000000", "1.750000000"}
                                                         : std::vector<std::string>{"0.000020000", "3.000000000", "3.000020000"};
    CHECK(has_comment(csv, "#  Elapsed Time: " + times[0] + " seconds (Warm-up)"));
    CHECK(has_comment(csv, "#                " + times[1] + " seconds (Sampling)"));
    CHECK(has_comment(csv, "#                " + times[2] + " seconds (Total)"));
    // CmdStan's adaptation block right after the column names (cmdstanpy reads it there): the first
    // draw's own step size (the sampler reports one), the unit metric.
    const std::string after_columns = text.substr(text.find("x.3\n") + 4);
    CHECK(after_columns.starts_with(fmt::format("# Adaptation terminated\n# Step size = {}\n{},", d->stats[0].step_size, d->lp[0])));
    CHECK(std::none_of(csv.comments.begin(), csv.comments.end(), [](const std::string& c) { return c.starts_with("# lp__ is"); }));
  }
}

TEST_CASE("Stan CSV names a matrix's coordinates x.i.j in column-major order, as CmdStan") {
  // Catches: row-major names over column-major values (a transposed matrix in every reader); a
  // num_samples that counts kept draws where CmdStan counts iterations.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "m").string();
  StanCsvWriter writer(base);
  auto header = make_header(1, {2, 3}, {&stats::acceptance}, false);
  header.config["thin"] = 3;
  writer.begin(header);
  Draws d;
  d.dim = 6;
  d.values = {11, 21, 12, 22, 13, 23};  // x(i, j) = 10 i + j, flattened column-major
  d.stats.resize(1);
  writer.append(d.block(0, 1));
  writer.finish(json::object());
  const StanCsv csv = read_stan_csv(base + "_1.csv");
  const std::vector<std::string> expected = {"lp__",  "accept_stat__", "stepsize__", "treedepth__", "divergent__", "x.1.1",
                                             "x.2.1", "x.1.2",         "x.2.2",      "x.1.3",       "x.2.3"};
  CHECK(csv.columns == expected);
  CHECK(has_comment(csv, "#     num_samples = 270"));  // CmdStan's meaning: iterations before thinning
  CHECK(has_comment(csv, "#     thin = 3"));
  for (Eigen::Index k = 0; k < 6; ++k) {
    const std::string& name = csv.columns[static_cast<std::size_t>(5 + k)];
    CHECK(csv.draws(0, 5 + k) == 10.0 * (name[2] - '0') + (name[4] - '0'));
  }
}

TEST_CASE("Stan CSV leaves out what the sampler does not have, or writes it as nan or 0 and says so") {
  // Catches (issue #34 item 1): lp__ = 0 or accept_stat__ = 1 that look computed; a statistic rstan would
  // take for a parameter (reflections__) among the columns; a missing lp__ (the readers expect it first);
  // a stepsize__ of 0 or NaN when the sampler reports none but the config has a constant h.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "nolp").string();
  StanCsvWriter writer(base);
  writer.begin(make_header(1, {2}, {&stats::kinetic_energy, &stats::gradient_evals, &stats::reflections}, false));
  Draws d;
  d.dim = 2;
  d.values = {1.5, -2.5, 3.5, -4.5};
  d.stats.resize(2);
  d.stats[1].reflections = 3;
  d.stats[1].gradient_evals = 2;
  writer.append(d.block(0, 2));
  writer.finish(json::object());
  const StanCsv csv = read_stan_csv(base + "_1.csv");
  CHECK(csv.columns == std::vector<std::string>{"lp__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "x.1", "x.2"});
  REQUIRE(csv.draws.rows() == 2);
  CHECK(std::isnan(csv.draws(0, 0)));
  CHECK(std::isnan(csv.draws(1, 0)));
  CHECK(csv.draws(0, 1) == 0.01);
  CHECK(csv.draws(1, 3) == 2.0);
  CHECK(csv.draws(1, 6) == -4.5);
  CHECK(has_comment(csv, "# lp__ is nan on every draw: the log density was not computed (set \"log_density\": true in the config)"));
  CHECK(has_comment(csv, "# no accept_stat__: sghmc makes no Metropolis test"));
  CHECK(has_comment(csv, "# not in this file (rstan would take them for parameters), in the run record and NetCDF: kinetic_energy, reflections"));
  CHECK(has_comment(csv, "# no per-chain times: the record has none (chains[i].timing; a record of an older sgmcmc)"));
  std::ifstream in(base + "_1.csv");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\nnan,0.01,0,2,0,3.5,-4.5\n") != std::string::npos);  // integers stay integers (cmdstanpy's int())
  // No '=' in the explanations: rstan and cmdstanpy take every "key = value" comment for a setting.
  for (const std::string& c : csv.comments)
    if (c.starts_with("# lp__") || c.starts_with("# no ") || c.starts_with("# divergent__") || c.starts_with("# treedepth__")) CHECK(c.find('=') == std::string::npos);
}

TEST_CASE("Stan CSV's adaptation block: a diagonal preconditioner adapted in the burn-in, each chain's own s squared") {
  // Catches (issue #34 item 1): adapt engaged = 0 for a preconditioner the burn-in estimated; the scale
  // missing from the CSV; chains given each other's scale; a block after the first draw (cmdstanpy reads
  // it between the column names and the draws); a chain without draws left without the block.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "pre").string();
  StanCsvWriter writer(base);
  RunHeader header = make_header(2, {2}, {&stats::step_size}, false);
  header.config["sampler"]["preconditioner"] = {{"adapt_steps", 10}};
  header.metric = {.diagonal = true, .adapt_steps = 10, .given_inverse = {}, .burn_in = header.config["burn_in"].get<std::uint64_t>()};
  writer.begin(header);
  writer.warm_up_done(0, WarmUp{{0.25, 4.0}});     // s = (0.5, 2)
  writer.warm_up_done(1, WarmUp{{16.0, 0.0625}});  // s = (4, 0.25)
  Draws d;
  d.dim = 2;
  d.values = {1, 2};
  d.stats.resize(1);
  d.stats[0].step_size = 0.125;
  writer.append(d.block(0, 1));
  writer.finish(json::object());
  const StanCsv first = read_stan_csv(base + "_1.csv"), second = read_stan_csv(base + "_2.csv");
  CHECK(has_comment(first, "#       engaged = 1"));
  CHECK(has_comment(first, "#       metric = diag_e"));
  std::ifstream in(base + "_1.csv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("x.2\n# Adaptation terminated\n# Step size = 0.125\n# Diagonal elements of inverse mass matrix:\n# 0.25, 4\n"
                  "nan,0.125,0,0,1,2\n") != std::string::npos);
  CHECK(second.draws.rows() == 0);
  CHECK(has_comment(second, "# Diagonal elements of inverse mass matrix:"));
  CHECK(has_comment(second, "# 16, 0.0625"));
  CHECK(has_comment(second, "# Step size = 0.01"));  // no draw: the config's h
}

TEST_CASE("Stan CSV's adaptation block: a dense preconditioner — metric dense_e, each chain's own SSᵀ a row a line, as CmdStan writes it") {
  // Catches (issue #35 item 2): a dense metric written as diag_e or as one line (CmdStan's dense_e_point
  // writes "# Elements of inverse mass matrix:" and one "# a, b" line per row, which cmdstanr and
  // cmdstanpy read as the matrix), chains given each other's matrix, a given factor's LLᵀ missing for a
  // chain whose warm-up adapted nothing.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "dense").string();
  StanCsvWriter writer(base);
  RunHeader header = make_header(2, {2}, {&stats::step_size}, false);
  header.metric = {.dense = true, .adapt_steps = 10, .given_inverse = {}, .burn_in = header.config["burn_in"].get<std::uint64_t>()};
  writer.begin(header);
  writer.warm_up_done(0, WarmUp{{4.0, 1.0, 1.0, 0.3125}});
  Draws d;
  d.dim = 2;
  d.values = {1, 2};
  d.stats.resize(1);
  d.stats[0].step_size = 0.125;
  writer.append(d.block(0, 1));
  writer.finish(json::object());
  const StanCsv first = read_stan_csv(base + "_1.csv"), second = read_stan_csv(base + "_2.csv");
  CHECK(has_comment(first, "#       metric = dense_e"));
  std::ifstream in(base + "_1.csv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("x.2\n# Adaptation terminated\n# Step size = 0.125\n# Elements of inverse mass matrix:\n# 4, 1\n# 1, 0.3125\n"
                  "nan,0.125,0,0,1,2\n") != std::string::npos);
  CHECK(has_comment(second, "# Elements of inverse mass matrix:"));  // no warm-up reported: the identity
  CHECK(has_comment(second, "# 1, 0"));
  CHECK(has_comment(second, "# 0, 1"));
}

TEST_CASE("Stan CSV with save_warmup: the warm-up draws, then the adaptation block, then the draws after it") {
  // Catches: the adaptation block before the warm-up draws (cmdstanpy reads the warm-up rows up to the
  // first '#' line and then requires "# Adaptation terminated"; CmdStan writes them in this order).
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "warm").string();
  StanCsvWriter writer(base);
  writer.begin(make_header(1, {1}, {&stats::step_size}, false));
  Draws d;
  d.dim = 1;
  d.values = {7, 8, 9};
  d.stats.resize(3);
  for (std::size_t k = 0; k < 3; ++k) d.stats[k].step_size = 0.5 / static_cast<double>(k + 1);
  DrawBlock warm = d.block(0, 2);
  warm.warmup_rows = 1;  // row 0 a warm-up draw, row 1 the first draw after the burn-in
  writer.append(warm);
  writer.append(d.block(2, 1));
  writer.finish(json::object());
  std::ifstream in(base + "_1.csv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("x.1\nnan,0.5,0,0,7\n# Adaptation terminated\n# Step size = 0.25\nnan,0.25,0,0,8\nnan,0.16666666666666666,0,0,9\n") !=
        std::string::npos);
}

TEST_CASE("a failed chain's error is a comment of its file") {
  // Catches: an errored chain's file that looks like a complete run, or an error text spanning lines
  // that a reader would take for a draw.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "err").string();
  StanCsvWriter writer(base);
  writer.begin(make_header(2, {1}, {&stats::acceptance}, false));
  writer.finish({{"chains", json::array({{{"status", "ok"}}, {{"status", "error"}, {"error", "chain 1: non-finite state\nat step 12"}}})}});
  const StanCsv ok = read_stan_csv(base + "_1.csv"), failed = read_stan_csv(base + "_2.csv");
  CHECK(failed.draws.rows() == 0);
  CHECK(has_comment(failed, "# error: chain 1: non-finite state"));
  CHECK(has_comment(failed, "# error: at step 12"));
  CHECK(std::none_of(ok.comments.begin(), ok.comments.end(), [](const std::string& c) { return c.find("error") != std::string::npos; }));
}

TEST_CASE("a Stan CSV writer destroyed without finish leaves no file and no temporary") {
  // Catches: a killed or failed run leaving a truncated CSV that a reader takes for a short chain.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  {
    StanCsvWriter writer((dir.path / "gone").string());
    writer.begin(make_header(3, {2}, {&stats::acceptance}, true));
    Draws d = awkward_draws(1, 4, 2);
    writer.append(d.block(0, 4));
    for (const auto& e : dir.entries()) CHECK(e.starts_with("."));  // temporaries only, if named
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("Python's csv module reads a Stan CSV once the '#' lines are skipped") {
  // Catches: a file only our own reader accepts (stray spaces, a comment without '#', ragged rows).
  // An independent reader: fails, not skips, when python3 is missing.
  REQUIRE_MESSAGE(std::system("command -v python3 >/dev/null 2>&1") == 0, "python3 is needed for this check");
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const std::string base = (dir.path / "py").string();
  StanCsvWriter writer(base);
  writer.begin(make_header(1, {3}, {&stats::acceptance, &stats::energy, &stats::step_size, &stats::gradient_evals}, true));
  const Draws d = awkward_draws(0, 5, 3);
  writer.append(d.block(0, 5));
  writer.finish({{"timings", {{"phases", json::array({{{"sampling_seconds", 0.125}}})}}}});
  const std::string script =
      "import csv, sys\n"
      "rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith('#')]\n"
      "head, data = rows[0], rows[1:]\n"
      "assert all(len(r) == len(head) for r in data)\n"
      "print(len(data), len(head), float(data[1][head.index('x.1')]) == float(sys.argv[2]))\n";
  // The expected value goes over as 17 significant digits (printf's, not the writer's formatter).
  const std::string out = run_command(fmt::format("python3 -c \"{}\" '{}' {:.17g}", script, base + "_1.csv", d.values[3]));
  CHECK(out == "5 10 True\n");
}

TEST_CASE("read_stan_csv names the file and line of a malformed row") {
  // Catches: a short row silently padded or dropped, a non-number read as 0.
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const fs::path path = dir.path / "bad.csv";
  write_text(path, "# comment\nlp__,a,b\n1,2,3\n\n# between\n4,5\n");
  try {
    read_stan_csv(path.string());
    FAIL("a row with a missing column was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == path.string() + ":6: expected 3 values (one per column), got 2");
  }
  write_text(path, "lp__,a\n1,2\n3,abc\n");
  CHECK_THROWS_WITH_AS(read_stan_csv(path.string()), (path.string() + ":3: column 2: expected a number (decimal or exponent notation, nan, inf)").c_str(), Error);
  write_text(path, "lp__,a\n1,\n");
  CHECK_THROWS_AS(read_stan_csv(path.string()), Error);
  write_text(path, "# only comments\n");
  CHECK_THROWS_AS(read_stan_csv(path.string()), Error);
  CHECK_THROWS_AS(read_stan_csv((dir.path / "missing.csv").string()), Error);
}

TEST_CASE("read_stan_csv reads Stan's spellings of non-finite numbers and Windows line ends") {
  // Catches: a reader that refuses what CmdStan itself writes (nan, inf, +inf, -inf, NaN).
  sgmcmc_test::ScratchFolder dir("sgmcmc_stan_csv");
  const fs::path path = dir.path / "stan.csv";
  write_text(path, "lp__,x.1,x.2,x.3,x.4,x.5\r\n-1.5,nan,inf,+inf,-inf,NaN\r\n# Elapsed\r\n");
  const StanCsv csv = read_stan_csv(path.string());
  REQUIRE(csv.draws.rows() == 1);
  CHECK(csv.columns.back() == "x.5");
  CHECK(csv.draws(0, 0) == -1.5);
  CHECK(std::isnan(csv.draws(0, 1)));
  CHECK(csv.draws(0, 2) == std::numeric_limits<double>::infinity());
  CHECK(csv.draws(0, 3) == std::numeric_limits<double>::infinity());
  CHECK(csv.draws(0, 4) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(csv.draws(0, 5)));
  CHECK(csv.comments == std::vector<std::string>{"# Elapsed"});
}
