// Every run's default checks (issue #39 item 1; docs/diagnostics.md) where a user of the tool meets
// them: the record's chains[i].checks and warnings, the summary `run` and `summary` print, the Stan
// CSV's comment lines and the NetCDF file's sample_stats attributes (read with xarray). The wrong runs
// are the issue's silently wrong cases; a correct run of the same target has no warning.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "../support/cli.hpp"
#include "../support/external.hpp"

namespace test_cli_checks {

using namespace sgmcmc_test::cli;

/// 2000 examples of a logistic regression, from a fixed rule (no random numbers): posterior sds about
/// 0.1, so the log-likelihood's curvature is about 100 and SGLD at h = 1e-2 is far past stable; the
/// logistic gradient is bounded, so the chain never diverges.
void write_data(const fs::path& dir) {
  std::ofstream out(dir / "d.csv");
  out << "a,b,label\n";
  for (int i = 0; i < 2000; ++i) {
    const double a = std::sin(1.3 * i), b = std::cos(0.7 * i + 0.2);
    out << fmt::format("{:.6f},{:.6f},{}\n", a, b, (a - 0.5 * b + 0.6 * std::sin(5.1 * i)) > 0 ? 1 : 0);
  }
}

json logistic(double h, int batch) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", h}}},
          {"target", {{"name", "logistic"}, {"data", "d.csv"}, {"batch_size", batch}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"steps", 20000}, {"burn_in", 2000}, {"chains", 2}, {"seed", 3}};
}

TEST_CASE("SGLD at h = 1e-2 on a logistic regression: R-hat 1.00, and every output says the temperature is off") {
  // Catches the issue's first case: sds 10-30x too wide with perfect R-hat and ESS and status ok.
  const fs::path dir = scratch_dir("cli_checks_logistic");
  write_data(dir);
  write_json(dir, "wrong.json", logistic(1e-2, 10));
  const Result r = run_cli_in(dir, "run wrong.json -o w.json --format json,csv,netcdf");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("warning: chain 0: configurational temperature") != std::string::npos);
  CHECK(r.out.find("warning: chain 1: configurational temperature") != std::string::npos);
  CHECK(r.out.find("R-hat >") == std::string::npos);  // the convergence diagnostics see nothing wrong
  const json record = read_json(dir / "w.json");
  for (const json& chain : record["chains"]) {
    REQUIRE(chain["warnings"].size() == 1);
    CHECK(chain["warnings"][0]["kind"] == "configurational_temperature");
    const json& t = chain["checks"]["configurational_temperature"];
    MESSAGE("h = 1e-2: T_conf = " << t["value"].get<double>() << " ± " << t["se"].get<double>());  // docs/diagnostics.md's numbers
    CHECK(t["value"].get<double>() > 10);  // the draws are far wider than the posterior
    CHECK(t["draws"] == 1000);
  }
  CHECK(run_cli_in(dir, "summary w.json").out.find("warning: chain 1: configurational temperature") != std::string::npos);
  CHECK(slurp(dir / "w_1.csv").find("# warning: configurational temperature") != std::string::npos);
  CHECK(slurp(dir / "w_2.csv").find("# sgmcmc_checks = {\"configurational_temperature\"") != std::string::npos);
  const std::string py = sgmcmc_test::run_script(dir, "read.py", sgmcmc_test::python(), R"(
import sys
try:
    import xarray
except ImportError:
    sys.exit(3)
stats = xarray.open_dataset("w.nc", group="sample_stats")
print(min(stats.attrs["check_configurational_temperature_value"]))
print(stats.attrs["chain_warnings"][1].split(":")[0])
)", "", "python3-xarray python3-netcdf4");
  CHECK(std::stod(py) > 10);
  CHECK(py.find("configurational temperature") != std::string::npos);

  // The same target at a step that suits it: measured, and no warning.
  write_json(dir, "right.json", logistic(1e-4, 500));
  REQUIRE(run_cli_in(dir, "run right.json -o r.json -q").code == 0);
  const json right = read_json(dir / "r.json");
  for (const json& chain : right["chains"]) {
    const json& t = chain["checks"]["configurational_temperature"];
    MESSAGE("h = 1e-4: T_conf = " << t["value"].get<double>() << " ± " << t["se"].get<double>());
    CHECK(chain["warnings"].empty());
    CHECK(chain["checks"]["configurational_temperature"]["draws"] == 1000);
  }
}

TEST_CASE("HMC at h = 0.5 on a target with sd 0.01: acceptance zero and a chain that never moved, said") {
  // Catches the issue's HMC case: every draw the start point, mean 0, sd 0, ESS and R-hat NaN, no word.
  const fs::path dir = scratch_dir("cli_checks_hmc");
  const auto config = [](double h) {
    return json{{"sampler", {{"name", "hmc"}, {"step_size", h}, {"leapfrog_steps", 10}}},
                {"target", {{"name", "gaussian"}, {"mean", {0.0, 0.0}}, {"cov", {1.0, 1e-4}}}},
                {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                {"steps", 1000}, {"burn_in", 100}, {"chains", 1}, {"seed", 5}};
  };
  write_json(dir, "wrong.json", config(0.5));
  const Result r = run_cli_in(dir, "run wrong.json -o w.json");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("warning: chain 0: accepted no proposal in 900 kept steps") != std::string::npos);
  CHECK(r.out.find("warning: chain 0: never moved") != std::string::npos);
  const json chain = read_json(dir / "w.json")["chains"][0];
  CHECK(chain["checks"]["acceptance"] == 0.0);
  CHECK(chain["checks"]["moves"] == 0);
  write_json(dir, "right.json", config(0.005));
  const Result right = run_cli_in(dir, "run right.json -o r.json");
  CHECK(right.out.find("warning: chain 0:") == std::string::npos);
  CHECK(read_json(dir / "r.json")["chains"][0]["checks"]["acceptance"].get<double>() > 0.6);
}

}  // namespace test_cli_checks
