// The diagnostics that say how wrong an SG chain is, through the command line: `thin` and what may be
// done with a thinned record, and the targets the Stein diagnostics refuse. Their statistics (KSD,
// the temperatures, the sweep) are checked in test_cli_sg_diagnostics_stat.cpp.
#include <doctest/doctest.h>

#include "../support/cli.hpp"
#include "sgld_gaussian.hpp"

#include <cmath>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/modules/diagnostics/stein.hpp>

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_sg_diagnostics_scratch");
  return dir;
}


}  // namespace

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

