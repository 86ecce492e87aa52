// The NetCDF writer (ArviZ InferenceData, run/output/netcdf.hpp): exact round trips through the reader,
// chains that stop early, no file left by an abandoned run, and the file as xarray (and ArviZ, when
// installed) reads it.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sgmcmc/run/output/netcdf.hpp>

#include "../support/scratch_folder.hpp"
#include "../support/external.hpp"

namespace test_netcdf {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using run::output::DrawBlock;
using run::output::NetcdfWriter;
using run::output::RunHeader;
using run::output::json;

namespace {

RunHeader header_of(std::vector<Eigen::Index> shape, std::size_t chains, std::uint64_t draws, std::vector<const Statistic*> statistics) {
  RunHeader h;
  h.config = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.01}}}, {"chains", chains}, {"seed", 7}};
  h.sampler = "sghmc";
  h.chains = chains;
  h.parameters = run::output::default_parameters(std::move(shape));
  h.statistics = std::move(statistics);
  h.has_lp = true;
  h.expected_draws = draws;
  h.library_version = "0.1.0";
  return h;
}

/// Draw k of chain c, coordinate `col` of the flattened (column-major) draw: distinct everywhere, with
/// values a lossy path would change (−0, a subnormal, infinity, a number with every mantissa bit).
double value(std::size_t c, std::size_t k, std::size_t col) {
  if (c == 0 && k == 1 && col == 0) return -0.0;
  if (c == 1 && k == 2 && col == 1) return 4.9e-324;
  if (c == 0 && k == 0 && col == 2) return std::numeric_limits<double>::infinity();
  return (c + 1) * 1000.0 + static_cast<double>(k) + static_cast<double>(col) / 7.0 + 1.0 / 3.0;
}

StepInfo stats_of(std::size_t c, std::size_t k) {
  StepInfo s;
  s.acceptance = 1.0 / static_cast<double>(k + 2 + c);
  s.divergent = (k + c) % 3 == 1;
  s.energy = -static_cast<double>(k) * 0.1 - static_cast<double>(c);
  s.step_size = 0.01 / static_cast<double>(k + 1);
  s.gradient_evals = 10 * k + c;
  return s;
}

double lp_of(std::size_t c, std::size_t k) { return -1.5 * static_cast<double>(k) - 0.25 * static_cast<double>(c) - 1e-9; }

/// Hands chain c's draws [from, to) to the writer as one block.
void append(NetcdfWriter& writer, const RunHeader& h, std::size_t c, std::size_t from, std::size_t to) {
  const auto d = static_cast<std::size_t>(h.dim());
  std::vector<double> values, lp;
  std::vector<StepInfo> stats;
  for (std::size_t k = from; k < to; ++k) {
    for (std::size_t col = 0; col < d; ++col) values.push_back(value(c, k, col));
    stats.push_back(stats_of(c, k));
    lp.push_back(lp_of(c, k));
  }
  writer.append(DrawBlock{c, h.dim(), values, stats, lp, {}});
}

json record_of(const std::vector<std::uint64_t>& kept) {
  json chains = json::array();
  for (std::size_t c = 0; c < kept.size(); ++c) chains.push_back({{"id", c}, {"status", "ok"}, {"draws", kept[c]}});
  return {{"status", "ok"},
          {"timings", {{"phases", {{{"phase", "run"}, {"sampling_seconds", 1.25}}, {{"phase", "resume"}, {"sampling_seconds", 0.5}}}}}},
          {"chains", chains}};
}

/// doctest's Contains, from a std::string (a message that names a file made here).
doctest::Contains contains(const std::string& text) { return doctest::Contains(text.c_str()); }

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

/// Every draw and statistic of chain c read back equals what was written, bit for bit, up to `kept`.
void check_chain(const run::output::InferenceChain& chain, std::size_t c, std::size_t kept, std::size_t dim) {
  int wrong = 0;
  for (std::size_t k = 0; k < kept; ++k) {
    for (std::size_t col = 0; col < dim; ++col)
      wrong += !same_bits(chain.draws(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(col)), value(c, k, col));
    const StepInfo s = stats_of(c, k);
    const auto at = static_cast<Eigen::Index>(k);
    wrong += !same_bits(chain.stats.at("acceptance_rate")(at), s.acceptance);
    wrong += chain.stats.at("diverging")(at) != (s.divergent ? 1.0 : 0.0);
    wrong += !same_bits(chain.stats.at("energy")(at), s.energy);
    wrong += !same_bits(chain.stats.at("step_size")(at), s.step_size);
    wrong += !same_bits(chain.stats.at("lp")(at), lp_of(c, k));
  }
  CHECK_MESSAGE(wrong == 0, "chain ", c, ": ", wrong, " values differ from what was written");
}

/// Writes 2 chains of 7 draws with the given draw shape in interleaved blocks of several sizes.
void write_interleaved(const std::string& path, const RunHeader& h) {
  NetcdfWriter writer(path);
  writer.begin(h);
  append(writer, h, 0, 0, 3);
  append(writer, h, 1, 0, 5);
  append(writer, h, 0, 3, 4);
  append(writer, h, 1, 5, 5);  // an empty block changes nothing
  append(writer, h, 1, 5, 7);
  append(writer, h, 0, 4, 7);
  writer.finish(record_of({7, 7}));
}

const std::vector<const Statistic*> test_statistics{&stats::acceptance, &stats::divergent, &stats::energy, &stats::step_size};

using sgmcmc_test::python;
using sgmcmc_test::run_command;

std::string python_list(const std::vector<double>& v) {
  std::vector<std::string> items;
  for (double x : v) items.push_back(std::isnan(x) ? "nan" : std::isinf(x) ? (x > 0 ? "inf" : "-inf") : fmt::format("{}", x));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

}  // namespace

TEST_CASE("a matrix and a vector run read back bit for bit, blocks interleaved between chains") {
  // Catches: a transposed matrix draw, swapped chains, a lost or misplaced block, a statistic under
  // another statistic's name, values rounded on the way (−0, subnormals, infinity).
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  for (const std::vector<Eigen::Index>& shape : {std::vector<Eigen::Index>{2, 3}, std::vector<Eigen::Index>{4}}) {
    CAPTURE(shape.size());
    const RunHeader h = header_of(shape, 2, 7, test_statistics);
    const std::string path = folder.file(shape.size() == 2 ? "matrix.nc" : "vector.nc");
    write_interleaved(path, h);
    const auto back = run::output::read_netcdf(path);
    CHECK(back.shape == shape);
    REQUIRE(back.chains.size() == 2);
    for (std::size_t c = 0; c < 2; ++c) {
      CHECK(back.chains[c].draws.rows() == 7);
      CHECK(back.chains[c].draws.cols() == h.dim());
      CHECK(back.chains[c].draws_kept == 7);
      CHECK(back.chains[c].status == "ok");
      std::vector<std::string> names;
      for (const auto& [name, column] : back.chains[c].stats) names.push_back(name);
      CHECK(names == std::vector<std::string>{"acceptance_rate", "diverging", "energy", "lp", "step_size"});
      check_chain(back.chains[c], c, 7, static_cast<std::size_t>(h.dim()));
    }
    CHECK(back.config == h.config);
    CHECK(back.sampler == "sghmc");
    CHECK(back.library_version == "0.1.0");
    CHECK(back.status == "ok");
  }
}

TEST_CASE("a dense preconditioner's metric: dense_e, and inverse_metric(chain, dim_0, dim_1) with each chain's SSᵀ") {
  // Catches (issue #35 item 2): a dense metric written as diag_e, flattened into one dimension, its
  // rows and columns swapped (the matrix below is not symmetric, so a transpose shows), or a chain
  // given another's (chain 1 reported none: NaN).
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  RunHeader h = header_of({2}, 2, 7, test_statistics);
  h.metric = {.dense = true, .adapt_steps = 3, .given_inverse = {}, .burn_in = 5};
  const std::string path = folder.file("dense.nc");
  {
    NetcdfWriter writer(path);
    writer.begin(h);
    writer.warm_up_done(0, run::output::WarmUp{{4.0, 1.0, 2.0, 0.5}});
    append(writer, h, 0, 0, 7);
    append(writer, h, 1, 0, 7);
    writer.finish(record_of({7, 7}));
  }
  const netCDF::NcFile file(path, netCDF::NcFile::read);
  std::string metric;
  file.getGroup("sample_stats").getAtt("metric").getValues(metric);
  CHECK(metric == "dense_e");
  const netCDF::NcVar v = file.getVar("inverse_metric");
  REQUIRE(v.getDimCount() == 3);
  CHECK(v.getDim(1).getName() == "inverse_metric_dim_0");
  CHECK(v.getDim(2).getName() == "inverse_metric_dim_1");
  std::vector<double> values(8);
  v.getVar(values.data());
  CHECK(std::vector<double>(values.begin(), values.begin() + 4) == std::vector<double>{4.0, 1.0, 2.0, 0.5});
  CHECK(std::isnan(values[4]));
}

TEST_CASE("a chain that stopped early reads NaN beyond the draws it kept, and its count and status are stored") {
  // Catches: a short chain padded with zeros or another chain's draws, a count or status lost, a
  // record whose count disagrees with the draws written going unnoticed.
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  const RunHeader h = header_of({3}, 2, 6, {&stats::divergent, &stats::energy, &stats::gradient_evals});
  const std::string path = folder.file("short.nc");
  {
    NetcdfWriter writer(path);
    writer.begin(h);
    append(writer, h, 0, 0, 6);
    append(writer, h, 1, 0, 2);
    json record = record_of({6, 2});
    record["status"] = "error";
    record["chains"][1]["status"] = "error";
    record["chains"][1]["error"] = "chain 1: non-finite state at step 3";
    writer.finish(record);
  }
  const auto back = run::output::read_netcdf(path);
  REQUIRE(back.chains.size() == 2);
  const auto& short_chain = back.chains[1];
  CHECK(back.chains[0].draws_kept == 6);
  CHECK(short_chain.draws_kept == 2);
  CHECK(short_chain.status == "error");
  CHECK(short_chain.error == "chain 1: non-finite state at step 3");
  CHECK(back.chains[0].status == "ok");
  CHECK(back.status == "error");
  for (Eigen::Index k = 0; k < 2; ++k) {
    for (Eigen::Index col = 0; col < 3; ++col) CHECK(same_bits(short_chain.draws(k, col), value(1, static_cast<std::size_t>(k), col)));
    CHECK(short_chain.stats.at("n_grad")(k) == static_cast<double>(stats_of(1, static_cast<std::size_t>(k)).gradient_evals));
  }
  for (Eigen::Index k = 2; k < 6; ++k) {
    CHECK(short_chain.draws.row(k).array().isNaN().all());
    CHECK(std::isnan(short_chain.stats.at("energy")(k)));
    CHECK(std::isnan(short_chain.stats.at("n_grad")(k)));
    CHECK(short_chain.stats.at("diverging")(k) == 0.0);  // false, as a bool cannot be missing
  }
  CHECK(!back.chains[0].draws.array().isNaN().any());

  NetcdfWriter disagreeing(folder.file("disagree.nc"));
  disagreeing.begin(h);
  append(disagreeing, h, 0, 0, 6);
  append(disagreeing, h, 1, 0, 2);
  CHECK_THROWS_WITH_AS(disagreeing.finish(record_of({6, 3})), doctest::Contains("the record says 3 draws, 2 were written"), Error);
}

TEST_CASE("more draws than the run announced is an error naming the file") {
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  const RunHeader h = header_of({2}, 1, 3, test_statistics);
  const std::string path = folder.file("over.nc");
  NetcdfWriter writer(path);
  writer.begin(h);
  append(writer, h, 0, 0, 2);
  CHECK_THROWS_WITH_AS(append(writer, h, 0, 2, 4), contains(path + ": chain 0 would keep 4 draws, more than the 3"), Error);
}

TEST_CASE("a writer destroyed without finish leaves no file and no temporary, and an older file as it was") {
  // Catches: a half-written file under the target's name after a failed or killed run, a temporary
  // left behind, an abandoned run replacing the previous output.
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  const RunHeader h = header_of({2, 3}, 2, 7, test_statistics);
  const std::string path = folder.file("run.nc");
  {
    NetcdfWriter writer(path);
    writer.begin(h);
    append(writer, h, 0, 0, 3);
  }
  { NetcdfWriter never_begun(path); }
  CHECK(folder.entries().empty());

  write_interleaved(path, h);
  {
    RunHeader other = header_of({4}, 1, 2, test_statistics);
    NetcdfWriter writer(path);
    writer.begin(other);
    append(writer, other, 0, 0, 1);
  }
  CHECK(folder.entries() == std::vector<std::string>{"run.nc"});
  const auto back = run::output::read_netcdf(path);
  CHECK(back.shape == std::vector<Eigen::Index>{2, 3});
  check_chain(back.chains[1], 1, 7, 6);
}

TEST_CASE("a file that is not an sgmcmc NetCDF run is an error naming the file and what is missing") {
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  const std::string text = folder.file("not.nc");
  std::ofstream(text) << "not netCDF\n";
  CHECK_THROWS_WITH_AS(run::output::read_netcdf(text), contains(text + ": netCDF:"), Error);
  CHECK_THROWS_WITH_AS(run::output::read_netcdf(folder.file("absent.nc")), contains(folder.file("absent.nc")), Error);

  const std::string partial = folder.file("partial.nc");
  {
    netCDF::NcFile file(partial, netCDF::NcFile::replace, netCDF::NcFile::nc4);
    file.addGroup("posterior");
  }
  CHECK_THROWS_WITH_AS(run::output::read_netcdf(partial), contains(partial + ": no group 'sample_stats'"), Error);
  {
    netCDF::NcFile file(partial, netCDF::NcFile::replace, netCDF::NcFile::nc4);
    file.addGroup("posterior");
    file.addGroup("sample_stats");
  }
  CHECK_THROWS_WITH_AS(run::output::read_netcdf(partial), contains(partial + ": no (chain, draw, ...) variable in group 'posterior'"), Error);
}

TEST_CASE("xarray reads the groups with ArviZ's dimensions, coordinates, names and values") {
  // Catches: what only a reader other than ours would see — a matrix stored transposed against
  // ArviZ's x[chain, draw, x_dim_0, x_dim_1], a boolean that xarray does not read as bool, missing
  // coordinates or attributes, a file h5netcdf (ArviZ's default engine) or ArviZ cannot open.
  sgmcmc_test::ScratchFolder folder("sgmcmc_netcdf");
  const std::size_t n = 2, p = 3, draws = 3;
  RunHeader h = header_of({2, 3}, 2, draws, {&stats::acceptance, &stats::divergent, &stats::gradient_evals});
  h.config["big"] = std::string(100000, 'a');  // over HDF5's 64 KiB compact attribute limit
  const std::string path = folder.file("run.nc");
  {
    NetcdfWriter writer(path);
    writer.begin(h);
    append(writer, h, 0, 0, 2);
    append(writer, h, 1, 0, 2);
    append(writer, h, 0, 2, 3);
    writer.finish(record_of({3, 2}));
  }
  // x[c, k, i, j] as ArviZ indexes it, from draws flattened column-major.
  std::vector<double> x, acceptance, diverging, n_grad, lp;
  for (std::size_t c = 0; c < 2; ++c)
    for (std::size_t k = 0; k < draws; ++k) {
      const bool made = c == 0 || k < 2;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < p; ++j) x.push_back(made ? value(c, k, i + n * j) : NAN);
      acceptance.push_back(made ? stats_of(c, k).acceptance : NAN);
      diverging.push_back(made && stats_of(c, k).divergent ? 1 : 0);
      n_grad.push_back(made ? static_cast<double>(stats_of(c, k).gradient_evals) : NAN);
      lp.push_back(made ? lp_of(c, k) : NAN);
    }
  const std::string script = fmt::format(R"(
import sys, json, datetime
try:
    import numpy as np, xarray as xr, netCDF4
except ImportError as e:
    print("missing:", e)
    sys.exit(3)
path = sys.argv[1]
inf, nan = float("inf"), float("nan")

def same(a, b):
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))

def check(engine):
    post = xr.open_dataset(path, group="posterior", engine=engine)
    assert post["x"].dims == ("chain", "draw", "x_dim_0", "x_dim_1"), post["x"].dims
    assert dict(post.sizes) == {{"chain": 2, "draw": {draws}, "x_dim_0": {n}, "x_dim_1": {p}}}, dict(post.sizes)
    for name, size in (("chain", 2), ("draw", {draws}), ("x_dim_0", {n}), ("x_dim_1", {p})):
        assert list(post[name].values) == list(range(size)), (name, post[name].values)
    assert post["x"].dtype == np.float64
    assert same(post["x"].values, {x}), post["x"].values
    stats = xr.open_dataset(path, group="sample_stats", engine=engine)
    assert set(stats.data_vars) == {{"acceptance_rate", "diverging", "n_grad", "lp"}}, set(stats.data_vars)
    for name in stats.data_vars:
        assert stats[name].dims == ("chain", "draw"), (name, stats[name].dims)
    assert stats["diverging"].dtype == bool, stats["diverging"].dtype
    assert same(stats["diverging"].values, {diverging})
    assert same(stats["acceptance_rate"].values, {acceptance})
    assert same(stats["n_grad"].values, {n_grad}), stats["n_grad"].values
    assert same(stats["lp"].values, {lp})
    for group in (post, stats):
        assert group.attrs["inference_library"] == "sgmcmc"
        assert group.attrs["inference_library_version"] == "0.1.0"
        assert group.attrs["sampler"] == "sghmc"
        assert "arviz_version" not in group.attrs
        datetime.datetime.fromisoformat(group.attrs["created_at"])
    root = xr.open_dataset(path, engine=engine)
    assert list(root["draws_kept"].values) == [3, 2], root["draws_kept"].values
    assert list(root["chain_status"].values) == ["ok", "ok"], root["chain_status"].values
    assert json.loads(root.attrs["sgmcmc_config"])["big"] == "a" * 100000
    assert root.attrs["sampling_seconds"] == 1.75

check("netcdf4")
try:
    import h5netcdf
except ImportError:
    h5netcdf = None
if h5netcdf is not None:
    check("h5netcdf")
try:
    import arviz
except ImportError:
    arviz = None
if arviz is not None:
    idata = arviz.from_netcdf(path)
    assert idata.posterior["x"].shape == (2, {draws}, {n}, {p})
    assert same(idata.posterior["x"].values, {x})
    assert idata.sample_stats["diverging"].dtype == bool
print("read by xarray" + (", h5netcdf" if h5netcdf else "") + (", arviz" if arviz else ""))
)",
                                         fmt::arg("draws", draws), fmt::arg("n", n), fmt::arg("p", p), fmt::arg("x", python_list(x)),
                                         fmt::arg("diverging", python_list(diverging)), fmt::arg("acceptance", python_list(acceptance)),
                                         fmt::arg("n_grad", python_list(n_grad)), fmt::arg("lp", python_list(lp)));
  const std::string script_path = folder.file("check.py");
  std::ofstream(script_path) << script;
  std::string output;
  const int status = run_command(fmt::format("{} '{}' '{}'", python(), script_path, path), output);
  if (status == 3 || status == 127)
    FAIL("this test reads the file with Python's xarray: run scripts/deps.sh python3-xarray python3-netcdf4 (", python(),
         " said: ", output, ")");
  if (status != 0) FAIL_CHECK(output);
  else MESSAGE(output);
}

}  // namespace test_netcdf
