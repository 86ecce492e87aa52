// The diagnostics that say how wrong an SG chain is, through the command line: `thin` and what may be
// done with a thinned record, and the targets the Stein diagnostics refuse. Their statistics (KSD,
// the temperatures, the sweep) are checked in test_cli_sg_diagnostics_stat.cpp.
#include <doctest/doctest.h>

#include "../support/cli.hpp"
#include "sgld_gaussian.hpp"

#include <cmath>
#include <string>

#include <Eigen/Core>

#include <netcdf>

#include <sgmcmc/modules/diagnostics/stein.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

namespace test_cli_sg_diagnostics {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_sg_diagnostics_scratch");
  return dir;
}


/// The JSON after "# NAME = " in a Stan CSV file's comments (null when there is no such line).
json comment_json(const sgmcmc::run::output::StanCsv& csv, const std::string& name) {
  const std::string key = name + " = ";
  for (const std::string& c : csv.comments)
    if (const auto at = c.find(key); at != std::string::npos) return json::parse(c.substr(at + key.size()));
  return nullptr;
}

/// A root variable over `chain` of a NetCDF file, one value per chain.
std::vector<double> root_column(const fs::path& path, const std::string& name, std::size_t chains) {
  const netCDF::NcFile file(path.string(), netCDF::NcFile::read);
  const netCDF::NcVar var = file.getVar(name);
  REQUIRE_MESSAGE(!var.isNull(), name);
  std::vector<double> v(chains);
  var.getVar(v.data());
  return v;
}

}  // namespace

TEST_CASE("convert --stein: every format carries each chain's Stein diagnostics and its record diagnostics; summary prints them") {
  // Catches: a report computed and then dropped by a writer, chains' values swapped (each chain is
  // compared with its own), the kinetic temperature missing from the outputs, a recorded report that
  // summary ignores without --stein.
  const json config = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.1}, {"friction", 2.0}}},
                       {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", 1}}},
                       {"steps", 3000}, {"burn_in", 500}, {"thin", 5}, {"chains", 2}, {"seed", 5}};
  const fs::path cfg = write_json(scratch(), "conv_stein.json", config), src = scratch() / "conv_stein_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), src.string())).code == 0);
  const Result fresh = run_cli(scratch(), fmt::format("summary '{}' --stein --json", src.string()));
  REQUIRE_MESSAGE(fresh.code == 0, fresh.err);
  const json stein = json::parse(fresh.out)["stein"];
  const json source = read_json(src);
  const fs::path base = scratch() / "conv_stein_out";
  const Result conv =
      run_cli(scratch(), fmt::format("convert '{}' --stein --format json,csv,netcdf -o '{}.json'", src.string(), base.string()));
  REQUIRE_MESSAGE(conv.code == 0, conv.err);

  const json converted = read_json(base.string() + ".json");
  REQUIRE(converted.contains("stein"));
  const Result recorded = run_cli(scratch(), fmt::format("summary '{}' --json", (base.string() + ".json")));
  REQUIRE_MESSAGE(recorded.code == 0, recorded.err);
  CHECK(json::parse(recorded.out)["stein"] == converted["stein"]);
  CHECK(run_cli(scratch(), fmt::format("summary '{}'", (base.string() + ".json"))).out.find("chain 1: KSD") != std::string::npos);
  const std::vector<double> nc_ksd = root_column(base.string() + ".nc", "stein_ksd", 2);
  const std::vector<double> nc_kinetic = root_column(base.string() + ".nc", "diagnostic_kinetic_temperature", 2);
  const std::vector<double> nc_steps = root_column(base.string() + ".nc", "diagnostic_steps", 2);
  for (std::size_t ch = 0; ch < 2; ++ch) {
    CAPTURE(ch);
    const double ksd = stein["chains"][ch]["ksd"].get<double>();
    CHECK(converted["stein"]["chains"][ch]["ksd"].get<double>() == doctest::Approx(ksd).epsilon(1e-12));
    const auto csv = sgmcmc::run::output::read_stan_csv(fmt::format("{}_{}.csv", base.string(), ch + 1));
    const json csv_stein = comment_json(csv, "sgmcmc_stein"), csv_diag = comment_json(csv, "sgmcmc_diagnostics");
    REQUIRE(csv_stein.is_object());
    REQUIRE(csv_diag.is_object());
    CHECK(csv_stein == converted["stein"]["chains"][ch]);
    CHECK(csv_diag == source["chains"][ch]["diagnostics"]);
    const double kinetic = source["chains"][ch]["diagnostics"]["kinetic_temperature"].get<double>();
    CHECK(kinetic == doctest::Approx(1).epsilon(0.2));  // present and about the target's temperature
    CHECK(csv_diag["kinetic_temperature"].get<double>() == kinetic);
    CHECK(nc_ksd[ch] == converted["stein"]["chains"][ch]["ksd"].get<double>());
    CHECK(nc_kinetic[ch] == kinetic);
    CHECK(nc_steps[ch] == 3000);
  }
}

TEST_CASE("thin: each chain cut to the M draws Stein thinning picks; the result summarises but does not resume") {
  // Catches: picked draws written with another chain's or draw's values (the record's draws must be the
  // source's at the recorded indices), a thinned KSD no better than regular thinning, a thinned record
  // that resumes as if it were a chain.
  const fs::path cfg = write_json(scratch(), "thin.json", sgld_gaussian_config(0.5, 5));
  const fs::path src = scratch() / "thin_run.json", out = scratch() / "thinned.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), src.string())).code == 0);
  const Result r = run_cli(scratch(), fmt::format("thin '{}' --to 40 -o '{}'", src.string(), out.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("chain 0: KSD") != std::string::npos);
  const json source = read_json(src), thinned = read_json(out);
  REQUIRE(thinned["thinned"]["indices"].size() == 4);
  CHECK(thinned["thinned"]["method"] == "stein");
  for (std::size_t ch = 0; ch < 4; ++ch) {
    CAPTURE(ch);
    const json& idx = thinned["thinned"]["indices"][ch];
    REQUIRE(thinned["chains"][ch]["samples"].size() == 40);
    CHECK(thinned["chains"][ch]["draws"] == 40);
    Eigen::MatrixXd picked(2, 40), regular(2, 40);
    for (std::size_t j = 0; j < 40; ++j) {
      const json& x = thinned["chains"][ch]["samples"][j];
      CHECK(x == source["chains"][ch]["samples"][idx[j].get<std::size_t>()]);
      picked.col(static_cast<Eigen::Index>(j)) << x[0].get<double>(), x[1].get<double>();
      const json& y = source["chains"][ch]["samples"][50 * j];
      regular.col(static_cast<Eigen::Index>(j)) << y[0].get<double>(), y[1].get<double>();
    }
    const double ksd_picked = sgmcmc::diagnostics::kernel_stein_discrepancy(picked, -picked);
    CHECK(ksd_picked == doctest::Approx(thinned["thinned"]["ksd_after"][ch].get<double>()).epsilon(1e-9));
    CHECK(ksd_picked < sgmcmc::diagnostics::kernel_stein_discrepancy(regular, -regular));
  }
  CHECK(run_cli(scratch(), fmt::format("summary '{}'", out.string())).code == 0);
  const Result resumed = run_cli(scratch(), fmt::format("resume '{}' --steps 10 -o '{}'", out.string(), (scratch() / "again.json").string()));
  CHECK(resumed.code == 1);
  CHECK(resumed.err.find("/thinned: a thinned record holds a selection of draws, not chains to continue: resume") != std::string::npos);
  const Result twice = run_cli(scratch(), fmt::format("thin '{}' --to 10 -o '{}'", out.string(), (scratch() / "twice.json").string()));
  CHECK(twice.code == 1);
  CHECK(twice.err.find("/thinned: the record is already thinned") != std::string::npos);
}

TEST_CASE("the Stein diagnostics refuse what they cannot measure, naming the record's field") {
  // A target on a sphere: the Euclidean Stein operator does not apply there.
  const json vmf = {{"sampler", {{"name", "sggmc"}, {"step_size", 0.05}}},
                    {"manifold", {{"name", "sphere"}, {"n", 3}}},
                    {"target", {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2}}},
                    {"steps", 200}, {"chains", 1}, {"seed", 1}};
  const fs::path cfg = write_json(scratch(), "vmf.json", vmf), out = scratch() / "vmf_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", cfg.string(), out.string())).code == 0);
  const Result r = run_cli(scratch(), fmt::format("summary '{}' --stein", out.string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("vmf_run.json: /config/manifold: the Stein diagnostics need a target on euclidean space; this run is on sphere") !=
        std::string::npos);
  const Result t = run_cli(scratch(), fmt::format("thin '{}' --to 10 -o '{}'", out.string(), (scratch() / "t.json").string()));
  CHECK(t.code == 1);
  CHECK(t.err.find("/config/manifold") != std::string::npos);
  CHECK(run_cli(scratch(), fmt::format("thin '{}' --to 0 -o '{}'", out.string(), (scratch() / "t.json").string())).code == 2);
}

}  // namespace test_cli_sg_diagnostics
