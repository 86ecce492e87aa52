// The draws_csv format (run/output/draws_csv.hpp), through the shipped registry as `--format draws_csv`
// selects it: one CSV table of every chain's draws, in posterior's draws_df layout.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/run/runner.hpp>

#include "../support/cli.hpp"
#include "../support/scratch_folder.hpp"

namespace test_cli_draws_csv {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using sgmcmc::run::json;
namespace output = sgmcmc::run::output;

/// A CSV line's fields (a quoted field may hold commas; no field here holds a quote).
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

/// Runs `config` writing the formats `chosen` at `out` (a path in the scratch folder).
json run_with(const json& config, const std::string& out, const std::vector<std::string>& chosen) {
  const output::Formats formats = output::builtin_formats();
  auto made = formats.writers(out, chosen);
  std::vector<output::Writer*> writers;
  for (auto& w : made) writers.push_back(w.get());
  sgmcmc::run::Options opt;
  opt.threads = 1;
  return sgmcmc::run::run(config, opt, sgmcmc::run::shipped_registry(), writers);
}

std::vector<std::vector<std::string>> rows_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(fields_of(line));
  return rows;
}

TEST_CASE("draws_csv: every chain's draws, statistics and lp in one table, equal to the JSON record's to the bit") {
  // Catches: a draw dropped, repeated or given to the wrong chain or iteration (each row against the
  // record's draw by .chain and .iteration), digits that do not read back to the same double, a
  // statistic column under another name or out of step with its draw, lp__ missing when the run records
  // lp, .draw not unique, and the file named other than BASE_draws.csv.
  sgmcmc_test::ScratchFolder folder("sgmcmc_draws_csv");
  const json config = {{"sampler", {{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 5}}},
                       {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                       {"target", {{"name", "gaussian"}, {"mean", {1, -1}}, {"cov", {{1, 0.5}, {0.5, 2}}}}},
                       {"steps", 250}, {"burn_in", 50}, {"thin", 2}, {"chains", 2}, {"seed", 5}, {"log_density", true}};
  run_with(config, folder.file("r.json"), {"json", "draws_csv"});
  CHECK(folder.entries() == std::vector<std::string>{"r.json", "r_draws.csv"});
  std::ifstream in(folder.file("r.json"));
  const json record = json::parse(in);
  const auto rows = rows_of(folder.file("r_draws.csv"));
  REQUIRE(rows.size() == 1 + 2 * 100);
  const auto& head = rows[0];
  REQUIRE(head.size() >= 6);
  CHECK(std::vector<std::string>(head.begin(), head.begin() + 5) == std::vector<std::string>{".chain", ".iteration", ".draw", "x[1]", "x[2]"});
  CHECK(head.back() == "lp__");
  const json& stats0 = record["chains"][0]["sample_stats"];
  CHECK(head.size() == 5 + stats0.size());  // every statistic of the record (lp among them), none other
  std::map<std::string, int> seen_draw;
  std::vector<std::size_t> next(2, 1);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto& row = rows[k];
    REQUIRE(row.size() == head.size());
    const auto chain = std::stoul(row[0]), iteration = std::stoul(row[1]);
    REQUIRE((chain >= 1 && chain <= 2));
    CHECK(iteration == next[chain - 1]++);  // each chain's draws in order, none skipped
    CHECK(++seen_draw[row[2]] == 1);
    const json& c = record["chains"][chain - 1];
    const auto draw = iteration - 1;
    for (std::size_t j = 0; j < 2; ++j) CHECK(std::strtod(row[3 + j].c_str(), nullptr) == c["samples"][draw][j].get<double>());
    for (std::size_t j = 5; j < head.size(); ++j) {
      std::string name = head[j].substr(0, head[j].size() - 2);  // "accept_stat__" -> the record's "accept_stat"
      REQUIRE_MESSAGE(c["sample_stats"].contains(name), head[j]);
      CHECK_MESSAGE(std::strtod(row[j].c_str(), nullptr) == c["sample_stats"][name][draw].get<double>(), head[j]);
    }
  }
  CHECK(next == std::vector<std::size_t>{101, 101});
}

TEST_CASE("sgmcmc run --format json,draws_csv writes BASE_draws.csv beside the record") {
  // Catches: the format not registered in the tool (--format refuses it) or named other than its entry says.
  sgmcmc_test::ScratchFolder folder("sgmcmc_draws_csv");
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.05}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0, 0}}}},
                       {"steps", 40}, {"burn_in", 20}, {"chains", 2}, {"seed", 2}};
  const auto cfg = sgmcmc_test::cli::write_json(folder.path, "c.json", config);
  const auto r = sgmcmc_test::cli::run_cli(folder.path, "run -q '" + cfg.string() + "' -o '" + folder.file("r.json") + "' --format json,draws_csv");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(std::filesystem::exists(folder.file("r.json")));
  CHECK(rows_of(folder.file("r_draws.csv")).size() == 1 + 2 * 20);
}

TEST_CASE("draws_csv on a matrix manifold: posterior's x[i,j] names, quoted, column-major as the draws are flattened") {
  // Catches: names in the wrong (row-major) order, an unquoted x[1,2] that splits into two columns.
  sgmcmc_test::ScratchFolder folder("sgmcmc_draws_csv");
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
                       {"manifold", {{"name", "stiefel"}, {"n", 3}, {"p", 2}}},
                       {"target", {{"name", "uniform"}}},
                       {"steps", 20}, {"burn_in", 10}, {"chains", 1}, {"seed", 1}};
  run_with(config, folder.file("s"), {"draws_csv"});
  std::ifstream in(folder.file("s_draws.csv"));
  std::string head;
  std::getline(in, head);
  CHECK(head.starts_with(R"(.chain,.iteration,.draw,"x[1,1]","x[2,1]","x[3,1]","x[1,2]","x[2,2]","x[3,2]",)"));
  const auto rows = rows_of(folder.file("s_draws.csv"));
  REQUIRE(rows.size() == 1 + 10);
  CHECK(rows[1].size() == rows[0].size());
}

}  // namespace test_cli_draws_csv
