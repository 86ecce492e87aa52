// The pointwise log-likelihood (config "log_likelihood": true, `run --log-likelihood`;
// docs/run-format.md, "Pointwise log-likelihood"): written with each kept draw as Stan's log_lik.i
// columns and NetCDF's log_likelihood group, checked with r-cran-loo against a direct computation in R,
// equal in every format, and the same after a resume or a conversion (which compute it again from the
// record's draws and the data).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../support/cli.hpp"
#include "../support/external.hpp"

namespace test_cli_log_likelihood {

using namespace sgmcmc_test::cli;
using sgmcmc_test::python;
using sgmcmc_test::rscript;
using sgmcmc_test::run_script;

/// 30 examples of a logistic regression with a header row, from a fixed rule (no random numbers).
void write_data(const fs::path& dir) {
  std::ofstream out(dir / "d.csv");
  out << "age,income,label\n";
  for (int i = 0; i < 30; ++i) {
    const double age = std::sin(1.3 * i), income = std::cos(0.7 * i + 0.2);
    const int label = (age - 0.5 * income + 0.6 * std::sin(5.1 * i)) > 0 ? 1 : 0;
    out << fmt::format("{:.6f},{:.6f},{}\n", age, income, label);
  }
}

json config(std::uint64_t steps) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 0.002}}},
          {"target", {{"name", "logistic"}, {"data", "d.csv"}, {"batch_size", 10}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"steps", steps}, {"burn_in", 1000}, {"thin", 5}, {"chains", 2}, {"seed", 11}, {"log_likelihood", true}};
}

const fs::path& folder() {
  static const fs::path dir = [] {
    const fs::path d = scratch_dir("cli_log_likelihood");
    write_data(d);
    write_json(d, "c.json", config(4000));
    const Result r = run_cli_in(d, "run c.json -o r.json --format json,csv,netcdf,draws_csv -q");
    REQUIRE_MESSAGE(r.code == 0, r.err);
    return d;
  }();
  return dir;
}

TEST_CASE("log_lik columns: loo's elpd from them equals loo's elpd from a direct computation in R") {
  // Catches a wrong per-example log-likelihood (a sign, a missing term, examples out of order, the
  // wrong draw's values), which would change both the values and loo's elpd_loo.
  const std::string script = R"(
if (!requireNamespace("loo", quietly = TRUE)) quit(status = 3)
data <- read.csv("d.csv")
X <- as.matrix(data[, 1:2]); y <- data[, 3]
written <- NULL; direct <- NULL; chain <- NULL
for (k in 1:2) {
  t <- read.csv(sprintf("r_%d.csv", k), comment.char = "#", check.names = FALSE)
  params <- names(t)[!grepl("__$", names(t)) & !grepl("^log_lik", names(t))]
  stopifnot(length(params) == 2)
  eta <- as.matrix(t[, params]) %*% t(X)                      # draws x examples
  Y <- matrix(y, nrow(eta), ncol(eta), byrow = TRUE)
  direct <- rbind(direct, ifelse(Y == 1, plogis(eta, log.p = TRUE), plogis(-eta, log.p = TRUE)))
  written <- rbind(written, as.matrix(t[, grepl("^log_lik\\.", names(t))]))
  chain <- c(chain, rep(k, nrow(t)))
}
stopifnot(ncol(written) == nrow(data), nrow(written) == 1200)
err <- max(abs(written - direct))
r_eff <- loo::relative_eff(exp(written), chain_id = chain)
a <- suppressWarnings(loo::loo(written, r_eff = r_eff))$estimates
b <- suppressWarnings(loo::loo(direct, r_eff = r_eff))$estimates
cat(sprintf("max |written - direct| = %.3g; elpd_loo %.12f (written) %.12f (direct), se %.4f, p_loo %.4f\n", err,
            a["elpd_loo", "Estimate"], b["elpd_loo", "Estimate"], a["elpd_loo", "SE"], a["p_loo", "Estimate"]))
stopifnot(err < 1e-12, abs(a["elpd_loo", "Estimate"] - b["elpd_loo", "Estimate"]) < 1e-9)
# Not a degenerate fit: 30 examples of two classes, a loo estimate in (-30 log 2 - 10, 0).
stopifnot(a["elpd_loo", "Estimate"] < 0, a["elpd_loo", "Estimate"] > -30 * log(2) - 10)
)";
  MESSAGE(run_script(folder(), "loo.R", rscript(), script, "", "r-base-core r-cran-loo"));
}

TEST_CASE("NetCDF's log_likelihood group and draws_csv's log_lik[i] hold the CSV's numbers") {
  // Catches a format writing another draw's or example's values, or rounding them.
  const std::string script = R"(
import sys
try:
    import numpy as np, xarray
except ImportError:
    sys.exit(3)
ll = xarray.open_dataset("r.nc", group="log_likelihood")["log_lik"]
assert ll.dims == ("chain", "draw", "log_lik_dim_0") and ll.shape == (2, 600, 30), ll.shape
table = [l.rstrip("\n").split(",") for l in open("r_draws.csv")]
draws_cols = [i for i, h in enumerate(table[0]) if h.startswith("log_lik[")]
for k in (1, 2):
    rows = [l.rstrip("\n").split(",") for l in open(f"r_{k}.csv") if not l.startswith("#")]
    cols = [i for i, h in enumerate(rows[0]) if h.startswith("log_lik.")]
    csv = np.array([[float(r[i]) for i in cols] for r in rows[1:]])
    assert np.array_equal(csv, ll.values[k - 1]), f"chain {k}: NetCDF differs from the CSV"
    mine = np.array([[float(r[i]) for i in draws_cols] for r in table[1:] if r[0] == str(k)])
    assert np.array_equal(csv, mine), f"chain {k}: draws_csv differs from the CSV"
print("log_lik: NetCDF and draws_csv equal the Stan CSV, 2 x 600 draws x 30 examples")
)";
  MESSAGE(run_script(folder(), "same.py", python(), script, "", "python3-xarray python3-netcdf4"));
}

TEST_CASE("a resumed run and a converted record write the log-likelihood of one uninterrupted run") {
  // Catches the draws replayed from a record (resume, convert) going out without their log-likelihood,
  // or with another target's.
  const fs::path& dir = folder();
  write_json(dir, "half.json", config(2500));
  REQUIRE(run_cli_in(dir, "run half.json -o half.json.out -q").code == 0);
  const Result resumed = run_cli_in(dir, "resume half.json.out --steps 1500 -o resumed.json --format json,csv -q");
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  const Result converted = run_cli_in(dir, "convert r.json --format csv -o converted");
  REQUIRE_MESSAGE(converted.code == 0, converted.err);
  for (int k : {1, 2}) {
    const auto whole = rows_of(dir / fmt::format("r_{}.csv", k));
    REQUIRE(whole.size() == 601);
    CHECK(whole[0].find(",log_lik.30") != std::string::npos);
    CHECK(rows_of(dir / fmt::format("resumed_{}.csv", k)) == whole);
    CHECK(rows_of(dir / fmt::format("converted_{}.csv", k)) == whole);
  }
}

TEST_CASE("log_likelihood: a target without data is refused, naming the field; --log-likelihood sets it") {
  const fs::path& dir = folder();
  write_json(dir, "g.json", {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}}, {"target", {{"name", "gaussian"}, {"mean", {0}}}},
                             {"steps", 100}, {"log_likelihood", true}});
  const Result bad = run_cli_in(dir, "run g.json -o g.json.out");
  CHECK(bad.code == 1);
  CHECK(bad.err.find("/log_likelihood: target 'gaussian' has no pointwise log-likelihood") != std::string::npos);
  json plain = config(1100);
  plain.erase("log_likelihood");
  write_json(dir, "p.json", plain);
  REQUIRE(run_cli_in(dir, "run p.json -o p.csv -q").code == 0);
  CHECK(rows_of(dir / "p_1.csv")[0].find("log_lik") == std::string::npos);
  REQUIRE(run_cli_in(dir, "run p.json -o q.csv --log-likelihood -q").code == 0);
  CHECK(rows_of(dir / "q_1.csv")[0].find(",log_lik.30") != std::string::npos);
}

}  // namespace test_cli_log_likelihood
