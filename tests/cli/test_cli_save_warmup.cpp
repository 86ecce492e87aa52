// save_warmup (config "save_warmup": true; docs/run-format.md): the burn-in's draws at steps 1,
// 1 + thin, … (⌈burn_in / thin⌉ of them, CmdStan's count) written before the draws and marked as warm-up
// in every format; the same after a resume; left out of everything computed from the draws.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/cli.hpp"
#include "../support/external.hpp"

namespace test_cli_save_warmup {

using namespace sgmcmc_test::cli;

json config(std::uint64_t steps, std::uint64_t burn_in, std::uint64_t thin, bool save_warmup) {
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}}}, {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
            {"steps", steps}, {"burn_in", burn_in}, {"thin", thin}, {"chains", 2}, {"seed", 3}};
  if (save_warmup) c["save_warmup"] = true;
  return c;
}

const fs::path& folder() {
  static const fs::path dir = [] {
    const fs::path d = scratch_dir("cli_save_warmup");
    write_json(d, "w.json", config(300, 100, 7, true));
    const Result r = run_cli_in(d, "run w.json -o w.out.json --format json,csv,netcdf,draws_csv -q");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    return d;
  }();
  return dir;
}

TEST_CASE("the warm-up draws are the burn-in's states at steps 1, 1 + thin, ...: ceil(burn_in / thin) of them, first") {
  // Catches warm-up draws taken at the wrong steps (CmdStan's and rstan's count is ceil(100 / 7) = 15),
  // put after the draws, or counted as draws.
  const fs::path& dir = folder();
  const json rec = read_json(dir / "w.out.json");
  // The same chains with no burn-in and thin 1: row t − 1 is the state after step t.
  write_json(dir, "all.json", config(300, 0, 1, false));
  REQUIRE(run_cli_in(dir, "run all.json -o all.out.json -q").code == 0);
  const json all = read_json(dir / "all.out.json");
  for (int c = 0; c < 2; ++c) {
    const json& ch = rec["chains"][c];
    CHECK(ch["burn_in_draws"] == 15);
    CHECK(ch["draws"] == 28);  // floor(200 / 7)
    REQUIRE(ch["samples"].size() == 43);
    for (int k = 0; k < 15; ++k) CHECK(ch["samples"][k] == all["chains"][c]["samples"][7 * k]);          // steps 1, 8, ..., 99
    for (int k = 0; k < 28; ++k) CHECK(ch["samples"][15 + k] == all["chains"][c]["samples"][99 + 7 * (k + 1)]);  // steps 107, ...
    // Stan CSV: 43 rows, warm-up first, and the header says so.
    const auto rows = rows_of(dir / fmt::format("w.out_{}.csv", c + 1));
    CHECK(rows.size() == 44);  // the column names and 43 rows
    CHECK(slurp(dir / fmt::format("w.out_{}.csv", c + 1)).find("#     save_warmup = 1") != std::string::npos);
  }
  // draws_csv (posterior's draws_df, which has no warm-up) holds the 2 × 28 draws only.
  CHECK(rows_of(dir / "w.out_draws.csv").size() == 1 + 56);
}

TEST_CASE("summaries leave the warm-up draws out") {
  // Catches warm-up draws mixed into a summary: the same config without save_warmup keeps the same draws.
  const fs::path& dir = folder();
  write_json(dir, "plain.json", config(300, 100, 7, false));
  REQUIRE(run_cli_in(dir, "run plain.json -o plain.out.json -q").code == 0);
  const json a = json::parse(run_cli_in(dir, "summary --json w.out.json").out);
  const json b = json::parse(run_cli_in(dir, "summary --json plain.out.json").out);
  CHECK(a["summary"] == b["summary"]);
  const json plain = read_json(dir / "plain.out.json");
  CHECK(!plain["chains"][0].contains("burn_in_draws"));
}

TEST_CASE("resumed inside and after the burn-in: the draws and warm-up draws of one uninterrupted run") {
  // Catches a resume that loses the record's warm-up draws, marks them as draws, or keeps new warm-up
  // draws at the wrong steps.
  const fs::path& dir = folder();
  const json whole = read_json(dir / "w.out.json");
  for (std::uint64_t first : {50, 200}) {
    const std::string name = fmt::format("part{}", first);
    write_json(dir, name + ".json", config(first, 100, 7, true));
    REQUIRE(run_cli_in(dir, fmt::format("run {0}.json -o {0}.out.json -q", name)).code == 0);
    const Result r = run_cli_in(dir, fmt::format("resume {0}.out.json --steps {1} -o {0}.done.json --format json,csv -q", name, 300 - first));
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const json resumed = read_json(dir / (name + ".done.json"));
    for (int c = 0; c < 2; ++c) {
      CHECK(resumed["chains"][c]["burn_in_draws"] == 15);
      CHECK(resumed["chains"][c]["samples"] == whole["chains"][c]["samples"]);
      CHECK(rows_of(dir / fmt::format("{}.done_{}.csv", name, c + 1)) == rows_of(dir / fmt::format("w.out_{}.csv", c + 1)));
    }
  }
}

TEST_CASE("a record whose warm-up count was edited is refused by resume, naming the field") {
  const fs::path& dir = folder();
  json rec = read_json(dir / "w.out.json");
  rec["chains"][1]["burn_in_draws"] = 14;
  write_json(dir, "edited.json", rec);
  const Result r = run_cli_in(dir, "resume edited.json --steps 10 -o edited.done.json");
  CHECK(r.code == 1);
  CHECK(r.err.find("/chains/1/burn_in_draws") != std::string::npos);
}

TEST_CASE("NetCDF: warmup_posterior and warmup_sample_stats hold the warm-up draws, posterior the draws after them") {
  // Catches warm-up draws in ArviZ's posterior (az.summary would mix them in) or lost.
  const std::string script = R"(
import json, sys
try:
    import numpy as np, xarray
except ImportError:
    sys.exit(3)
record = json.load(open("w.out.json"))
warm = xarray.open_dataset("w.out.nc", group="warmup_posterior")["x"].values
post = xarray.open_dataset("w.out.nc", group="posterior")["x"].values
stats = xarray.open_dataset("w.out.nc", group="warmup_sample_stats")
assert warm.shape == (2, 15, 2) and post.shape == (2, 28, 2), (warm.shape, post.shape)
assert stats["step_size"].shape == (2, 15)
for c in range(2):
    samples = np.array(record["chains"][c]["samples"])
    assert np.array_equal(warm[c], samples[:15]) and np.array_equal(post[c], samples[15:])
print("NetCDF: 15 warm-up draws in warmup_posterior, 28 in posterior, the record's")
)";
  MESSAGE(sgmcmc_test::run_script(folder(), "warmup.py", sgmcmc_test::python(), script, "", "python3-xarray python3-netcdf4"));
}

TEST_CASE("rstan reads the warm-up: warmup2 = 15 per chain, 28 draws after it") {
  // Catches a header or row count rstan's read_stan_csv disagrees with (it warns and shifts draws).
  const std::string script = R"(
if (!requireNamespace("rstan", quietly = TRUE)) quit(status = 3)
fit <- suppressMessages(rstan::read_stan_csv(c("w.out_1.csv", "w.out_2.csv")))
stopifnot(all(fit@sim$warmup2 == 15), dim(as.array(fit))[1:2] == c(28, 2))
w <- read.csv("w.out_1.csv", comment.char = "#")
post <- as.array(fit)[, 1, "x[1]"]
stopifnot(all(post == w[16:43, "x.1"]))
cat("rstan: 15 warm-up and 28 draws per chain, the draws the rows after the warm-up\n")
)";
  MESSAGE(sgmcmc_test::run_script(folder(), "warmup.R", sgmcmc_test::rscript(), script, "", "r-base-core r-cran-rstan"));
}

}  // namespace test_cli_save_warmup
