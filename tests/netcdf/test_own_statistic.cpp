// A sampler's own statistics (concepts/statistics.hpp): declared once as descriptors, listed in the
// sampler's `statistics`, and written by every shipped format — the JSON run record, Stan CSV and
// NetCDF — with no change to any writer; read back by name into the StepInfo slot they came from.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/netcdf.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

#include "../support/scratch_folder.hpp"

namespace test_own_statistic {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::output::DrawBlock;
using run::output::json;
using run::output::RunHeader;

// A count and a real of the sampler's own; the second has an ArviZ name of its own.
inline constexpr Statistic tree_depth = stats::own<0>("tree_depth", StatKind::count);
inline constexpr Statistic proposal_scale = stats::own<1>("proposal_scale", StatKind::real, "scale");

// A sampler that reports them beside a shipped one (its step is beside the point here).
struct OwnStatisticsWalk {
  struct State {
    Eigen::VectorXd x;
  };
  static constexpr Statistics statistics = tree_depth | stats::acceptance | proposal_scale;
  template <class R>
  State init(Eigen::VectorXd x0, R&) const { return {std::move(x0)}; }
  template <class P, class R>
  StepInfo step(State&, const P&, R&, std::uint64_t t) const {
    StepInfo info;
    info.own[0] = static_cast<double>(t % 5);
    info.own[1] = 0.5;
    return info;
  }
  const Eigen::VectorXd& position(const State& s) const { return s.x; }
  void describe(const State&, StepInfo&) const {}
};
static_assert(Sampler<OwnStatisticsWalk>);
static_assert(OwnStatisticsWalk::statistics.has(tree_depth) && OwnStatisticsWalk::statistics.has(proposal_scale));
static_assert(OwnStatisticsWalk::statistics.has(stats::acceptance) && !OwnStatisticsWalk::statistics.has(stats::energy));
// Identity is the descriptor, not its name: another descriptor with the same name is another statistic.
inline constexpr Statistic same_name = stats::own<2>("tree_depth", StatKind::count);
static_assert(!OwnStatisticsWalk::statistics.has(same_name));
static_assert((stats::acceptance | stats::acceptance).size() == 1);

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) out.push_back(cell);
  return out;
}

TEST_CASE("a sampler's own statistics reach the JSON record and NetCDF (Stan CSV names them), and read back into their slots") {
  // Catches: a writer that writes only the shipped statistics (a closed list), a count written as a
  // real, an own statistic under another's name or ArviZ name, a record column read back into the
  // wrong slot, writers listing statistics in another order than the shipped ones first.
  sgmcmc_test::ScratchFolder folder("sgmcmc_own_statistic");
  RunHeader h;
  h.config = {{"sampler", {{"name", "own_walk"}, {"step_size", 0.1}}}, {"chains", 1}, {"seed", 3}};
  h.sampler = "own_walk";
  h.chains = 1;
  h.parameters = run::output::default_parameters({2});
  h.statistics = OwnStatisticsWalk::statistics.ordered();
  h.expected_draws = 3;
  h.library_version = "test";
  // The shipped statistic first (order 0), then the sampler's own in the order it declares them.
  REQUIRE(h.statistics.size() == 3);
  CHECK(h.statistics[0] == &stats::acceptance);
  CHECK(h.statistics[1] == &tree_depth);
  CHECK(h.statistics[2] == &proposal_scale);

  const std::vector<double> values{1, 2, 3, 4, 5, 6};
  std::vector<StepInfo> infos(3);
  for (std::size_t k = 0; k < 3; ++k) {
    infos[k].acceptance = 0.5 + 0.125 * static_cast<double>(k);
    infos[k].own[0] = static_cast<double>(k + 1);
    infos[k].own[1] = 0.25 * static_cast<double>(k);
  }
  const DrawBlock block{0, 2, values, infos, {}, {}};
  const json record = {{"schema", "sgmcmc.run"}, {"schema_version", 2}, {"status", "ok"},
                       {"chains", json::array({{{"id", 0}, {"status", "ok"}, {"draws", 3}}})}};

  run::output::JsonRecordWriter json_writer(folder.file("run.json"));
  run::output::StanCsvWriter csv_writer(folder.file("run"));
  run::output::NetcdfWriter netcdf_writer(folder.file("run.nc"));
  for (run::output::Writer* w : std::vector<run::output::Writer*>{&json_writer, &csv_writer, &netcdf_writer}) {
    w->begin(h);
    w->append(block);
    w->finish(record);
  }

  // The JSON record: a column per statistic, by its name, read back into the slot it came from.
  std::vector<StepInfo> back;
  run::output::read_record(folder.file("run.json"), [&](const run::output::RecordDraw& d) {
    StepInfo info;
    for (const auto& [name, v] : d.stats)
      if (const Statistic* s = statistic_named(h.statistics, name)) s->set(info, v);
    back.push_back(info);
  });
  REQUIRE(back.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(back[k].acceptance == infos[k].acceptance);
    CHECK(back[k].own[0] == infos[k].own[0]);
    CHECK(back[k].own[1] == infos[k].own[1]);
  }

  // Stan CSV: rstan's sampler columns only (it would take any other for a parameter, issue #34 item 1);
  // a header line names the statistics left to the record and NetCDF.
  std::ifstream csv(folder.file("run_1.csv"));
  std::string line, left_out;
  while (std::getline(csv, line) && line.starts_with('#'))
    if (line.starts_with("# not in this file")) left_out = line;
  const std::vector<std::string> columns = split(line);
  CHECK(columns == std::vector<std::string>{"lp__", "accept_stat__", "stepsize__", "treedepth__", "divergent__", "x.1", "x.2"});
  CHECK(left_out.ends_with(": tree_depth, proposal_scale"));
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line))  // the draws, after the adaptation block's comment lines
    if (!line.starts_with('#')) rows.push_back(split(line));
  REQUIRE(rows.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(std::stod(rows[k][1]) == infos[k].acceptance);

  // NetCDF: under the ArviZ names, the count as an integer variable.
  const auto nc = run::output::read_netcdf(folder.file("run.nc"));
  REQUIRE(nc.chains.size() == 1);
  const auto& st = nc.chains[0].stats;
  REQUIRE(st.count("tree_depth") == 1);
  REQUIRE(st.count("scale") == 1);
  CHECK(st.count("proposal_scale") == 0);
  for (Eigen::Index k = 0; k < 3; ++k) {
    CHECK(st.at("tree_depth")[k] == static_cast<double>(k + 1));
    CHECK(st.at("scale")[k] == 0.25 * static_cast<double>(k));
    CHECK(st.at("acceptance_rate")[k] == infos[static_cast<std::size_t>(k)].acceptance);
  }
  netCDF::NcFile file(folder.file("run.nc"), netCDF::NcFile::read);
  CHECK(file.getGroup("sample_stats").getVar("tree_depth").getType() == netCDF::ncInt64);
}

}  // namespace test_own_statistic
