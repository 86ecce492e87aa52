// What an output says about how its draws were made (issue #34 item 4): a Stein-thinned output is
// marked in every format that can hold a mark (method, each chain's indices and KSDs) and refused by the
// one that cannot; `summary` leaves ESS, R̂ and MCSE out for it; NetCDF's per-chain facts sit where
// ArviZ loads them (sample_stats' attributes) and every group names the library that wrote it.
#include <doctest/doctest.h>

#include <string>

#include "../support/cli.hpp"
#include "../support/external.hpp"

namespace test_cli_thinned_marks {

using namespace sgmcmc_test::cli;

const fs::path& folder() {
  static const fs::path dir = [] {
    const fs::path d = scratch_dir("cli_thinned_marks");
    write_json(d, "c.json", sgld_gaussian_1d(2100, 5));
    REQUIRE(run_cli_in(d, "run c.json -o r.json -q --format json,netcdf").code == 0);
    const Result t = run_cli_in(d, "thin r.json --to 40 -o t.json --format json,csv,netcdf");
    REQUIRE_MESSAGE(t.code == 0, t.err);
    return d;
  }();
  return dir;
}

TEST_CASE("a Stein-thinned Stan CSV says so in its header and gives each chain's indices and KSDs at its end") {
  // Catches a thinned CSV that claims plain thinning (the issue: rstan and ArviZ then compute ESS on
  // reordered, repeated draws without a word) or whose indices are not the record's.
  const fs::path& dir = folder();
  const json record = read_json(dir / "t.json");
  const json& thinned = record.at("thinned");
  for (int k : {1, 2}) {
    const std::string csv = slurp(dir / fmt::format("t_{}.csv", k));
    CHECK(csv.find("# sgmcmc_thinned = {") != std::string::npos);
    CHECK(csv.find("\"method\":\"stein\"") != std::string::npos);
    const std::string key = "# sgmcmc_thinned_chain = ";
    const auto at = csv.find(key);
    REQUIRE(at != std::string::npos);
    const json mine = json::parse(csv.substr(at + key.size(), csv.find('\n', at) - at - key.size()));
    CHECK(mine.at("indices") == thinned.at("indices").at(k - 1));
    CHECK(mine.at("ksd_after") == thinned.at("ksd_after").at(k - 1));
    CHECK(mine.at("ksd_before") == thinned.at("ksd_before").at(k - 1));
  }
}

TEST_CASE("summary of a thinned record: no ESS, R-hat or MCSE, and a warning that says why") {
  // Catches the summary computing ESS and R̂ on a selection (ESS 460 for 200 draws, no warning).
  const fs::path& dir = folder();
  const Result text = run_cli(dir, "summary " + (dir / "t.json").string());
  REQUIRE(text.code == 0);
  CHECK(text.out.find("warning: the draws are Stein-thinned") != std::string::npos);
  const Result as_json = run_cli(dir, "summary --json " + (dir / "t.json").string());
  REQUIRE(as_json.code == 0);
  const json doc = json::parse(as_json.out);
  CHECK(doc["summary"][0]["ess_bulk"].is_null());
  CHECK(doc["summary"][0]["rhat"].is_null());
  CHECK(doc["summary"][0]["mean"].is_number());
  // The source record's summary keeps them.
  const json source = json::parse(run_cli(dir, "summary --json " + (dir / "r.json").string()).out);
  CHECK(source["summary"][0]["ess_bulk"].is_number());
}

TEST_CASE("draws_csv refuses a thinned output: a plain table cannot say it is one") {
  const fs::path& dir = folder();
  const Result r = run_cli_in(dir, "thin r.json --to 40 -o u.json --format json,draws_csv");
  CHECK(r.code == 1);
  CHECK(r.err.find("draws_csv cannot mark Stein-thinned draws") != std::string::npos);
  CHECK(!fs::exists(dir / "u.json"));  // all or nothing
}

TEST_CASE("NetCDF: the thinned selection's source draws and KSDs, the chains' facts in sample_stats, creation_library") {
  // Catches facts ArviZ never loads (the root group's variables only), and a thinned file without its
  // indices.
  const std::string script = R"(
import json, sys
try:
    import numpy as np, xarray
except ImportError:
    sys.exit(3)
record = json.load(open("t.json"))
stats = xarray.open_dataset("t.nc", group="sample_stats")
for c in range(2):
    assert list(stats["source_draw"].values[c].astype(int)) == record["thinned"]["indices"][c]
assert np.allclose(stats.attrs["ksd_after"], record["thinned"]["ksd_after"], rtol=0, atol=0)
assert json.loads(stats.attrs["sgmcmc_thinned"])["method"] == "stein"
run = xarray.open_dataset("r.nc", group="sample_stats")
run_record = json.load(open("r.json"))
assert list(run.attrs["draws_kept"]) == [ch["draws"] for ch in run_record["chains"]]
assert list(run.attrs["chain_status"]) == ["ok", "ok"]
assert list(run.attrs["diagnostic_steps"]) == [2100, 2100]
for group in ("posterior", "sample_stats"):
    a = xarray.open_dataset("r.nc", group=group).attrs
    assert (a["creation_library"], a["creation_library_language"]) == ("sgmcmc", "C++"), a
    assert a["creation_library_version"] == run_record["library"]["version"]
print("thinned NetCDF marked; per-chain facts in sample_stats' attributes; creation_library set")
)";
  MESSAGE(sgmcmc_test::run_script(folder(), "marks.py", sgmcmc_test::python(), script, "", "python3-xarray python3-netcdf4"));
}

TEST_CASE("an acceptance rate only where there is a Metropolis test") {
  // Catches an SG sampler's chain reporting mean_accept_stat 1.0, which looks like a statistic (issue #34).
  const fs::path& dir = folder();
  const json sgld = read_json(dir / "r.json");
  CHECK(!sgld["chains"][0]["diagnostics"].contains("mean_accept_stat"));
  json hmc = sgld_gaussian_1d(300, 5);
  hmc["sampler"] = {{"name", "hmc"}, {"step_size", 0.2}, {"leapfrog_steps", 5}};
  write_json(dir, "hmc.json", hmc);
  REQUIRE(run_cli_in(dir, "run hmc.json -o hmc.out.json -q").code == 0);
  const double accept = read_json(dir / "hmc.out.json")["chains"][0]["diagnostics"]["mean_accept_stat"].get<double>();
  CHECK(accept > 0.5);
  CHECK(accept < 1.0);
}

TEST_CASE("NetCDF says what the warm-up adapted: metric, adaptation_engaged and each chain's inverse metric") {
  // Catches the issue's "the scale is in neither CSV nor NetCDF": a diagonal preconditioner estimated in
  // the burn-in, each chain's s² as its inverse metric (not another chain's, not ones).
  const fs::path& dir = folder();
  json c = sgld_gaussian_1d(2000, 9);
  c["target"] = {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", {4.0, 0.25}}};
  c["sampler"]["step_size"] = 0.02;
  c["sampler"]["preconditioner"] = "diagonal";
  c["burn_in"] = 400;
  write_json(dir, "pre.json", c);
  REQUIRE(run_cli_in(dir, "run pre.json -o pre.out.json -q --format json,netcdf").code == 0);
  write_json(dir, "plain.json", sgld_gaussian_1d(300, 9));
  REQUIRE(run_cli_in(dir, "run plain.json -o plain.out.json -q --format json,netcdf").code == 0);
  const std::string script = R"(
import json, sys
try:
    import numpy as np, xarray
except ImportError:
    sys.exit(3)
record = json.load(open("pre.out.json"))
stats = xarray.open_dataset("pre.out.nc", group="sample_stats").attrs
root = xarray.open_dataset("pre.out.nc")
assert stats["metric"] == "diag_e" and int(stats["adaptation_engaged"]) == 1, stats
for c in range(2):
    s = np.array(record["chains"][c]["state"]["sampler"]["scale"])
    assert np.array_equal(root["inverse_metric"].values[c], s * s)
    assert json.loads(stats["inverse_metric"])[c] == list(s * s)
assert not np.array_equal(root["inverse_metric"].values[0], root["inverse_metric"].values[1])
for key in ("warmup_seconds", "sampling_seconds"):  # each chain's own wall times (chains[i].timing)
    assert list(stats["chain_" + key]) == [ch["timing"][key] for ch in record["chains"]], key
plain = xarray.open_dataset("plain.out.nc", group="sample_stats").attrs
assert plain["metric"] == "unit_e" and int(plain["adaptation_engaged"]) == 0 and "inverse_metric" not in plain
print("NetCDF: diag_e, engaged, each chain's s squared; unit_e without a preconditioner")
)";
  MESSAGE(sgmcmc_test::run_script(dir, "metric.py", sgmcmc_test::python(), script, "", "python3-xarray python3-netcdf4"));
}

}  // namespace test_cli_thinned_marks
