// The glm target through the command line (issue #35; docs/glm.md): the example config runs with
// brms's names in every output; draws are reported on brms's scale (sigma, not log sigma; the intercept
// of the original design) while what reads them back — a resume's checks, summary --stein, convert's
// pointwise log-likelihood — maps them to the sampled scale; `init` is given on the reported scale; bad
// input is an error naming the JSON path, the file, the column and the row, with nothing written; the
// data's questionable predictors are warnings in the record and the summary. The data are small files
// the test writes: every run takes milliseconds.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/run/output/netcdf.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

namespace test_cli_glm {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_glm_scratch");
  return dir;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// 60 rows of kid_score, mom_hs, mom_iq, a Gaussian regression kid_score = 26 + 6 mom_hs + 0.6 mom_iq + e
/// with a deterministic e of sd about 15 (no random numbers: the file is the same on every machine).
fs::path write_kid() {
  const fs::path p = scratch() / "kid.csv";
  std::ofstream out(p);
  out << "kid_score,mom_hs,mom_iq\n";
  for (int i = 0; i < 60; ++i) {
    const int hs = i % 5 == 0 ? 0 : 1;
    const double iq = 80 + 40.0 * ((i * 37) % 60) / 60.0, e = 15 * std::sin(1.7 * i + 0.3);
    out << fmt::format("{:.4f},{},{:.4f}\n", 26 + 6 * hs + 0.6 * iq + e, hs, iq);
  }
  return p;
}

/// The example config on that file (SGHMC here: the sampler is any).
json kid_config() {
  return {{"target", {{"name", "glm"}, {"data", write_kid().string()}, {"response", "kid_score"}, {"predictors", {"mom_hs", "mom_iq"}},
                      {"intercept", true}, {"family", "gaussian"}, {"link", "identity"},
                      {"prior", {{"b", "normal(0, 10)"}, {"Intercept", "student_t(3, 0, 10)"}, {"sigma", "cauchy(0, 2.5)"}}},
                      {"batch_size", 20}, {"estimator", "control_variate"}}},
          {"sampler", {{"name", "sghmc"}, {"step_size", 1e-3}}},
          {"steps", 400}, {"burn_in", 100}, {"chains", 2}, {"seed", 3}};
}

fs::path run_to(const std::string& name, const json& config, const std::string& formats = "json") {
  return sgmcmc_test::cli::run_to(scratch(), name, config, formats);
}

/// A run that must fail: its message, with the record not written.
std::string error_of(const std::string& name, const json& config) {
  const fs::path out = scratch() / (name + ".json");
  const Result r = run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", write_json(scratch(), name + ".config.json", config).string(), out.string()));
  CHECK(r.code == 1);
  CHECK_FALSE(fs::exists(out));
  return r.err;
}

/// A CSV of `header` and `rows` (lines as written).
fs::path write_csv(const std::string& name, const std::string& header, const std::vector<std::string>& rows) {
  const fs::path p = scratch() / name;
  std::ofstream out(p);
  out << header << '\n';
  for (const auto& r : rows) out << r << '\n';
  return p;
}

std::vector<double> column_means(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  double hs = 0, iq = 0;
  int n = 0;
  while (std::getline(in, line)) {
    const auto a = line.find(','), b = line.find(',', a + 1);
    hs += std::stod(line.substr(a + 1, b - a - 1)), iq += std::stod(line.substr(b + 1)), ++n;
  }
  return {hs / n, iq / n};
}

}  // namespace

TEST_CASE("glm: the issue's example config names brms's parameters in every output, on brms's scale") {
  // Catches: a format left with x[1]…, a draw written on the sampled scale (log sigma, the centred
  // intercept), or reported by a wrong map (the last draw must equal the reported chain state).
  const fs::path rec_path = run_to("kid", kid_config(), "json,csv,netcdf,draws_csv");
  const json rec = read_json(rec_path);
  const json names = {{{"name", "b_Intercept"}, {"shape", json::array()}}, {{"name", "b_mom_hs"}, {"shape", json::array()}},
                      {{"name", "b_mom_iq"}, {"shape", json::array()}}, {{"name", "sigma"}, {"shape", json::array()}}};
  CHECK(rec["parameters"] == names);
  CHECK(rec["config"]["target"]["prior"]["sigma"] == "cauchy(0, 2.5)");
  // The chain's state is the sampled θ = (α_c, b, log σ); its last kept draw (step 400, thin 1) is
  // reported: b_Intercept = α_c − bᵀx̄, σ = e^{log σ}.
  const std::vector<double> mean = column_means(scratch() / "kid.csv");
  for (int c = 0; c < 2; ++c) {
    const std::vector<double> theta = rec["chains"][c]["state"]["sampler"]["x"], last = rec["chains"][c]["samples"].back();
    REQUIRE(theta.size() == 4);
    CHECK(last[0] == doctest::Approx(theta[0] - theta[1] * mean[0] - theta[2] * mean[1]).epsilon(1e-9));
    CHECK(last[1] == theta[1]);
    CHECK(last[2] == theta[2]);
    CHECK(last[3] == doctest::Approx(std::exp(theta[3])).epsilon(1e-14));
    for (const auto& d : rec["chains"][c]["samples"]) CHECK(d[3].get<double>() > 0);
  }
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "kid_2.csv").string());
  REQUIRE(csv.columns.size() >= 4);
  const std::vector<std::string> tail(csv.columns.end() - 4, csv.columns.end());
  CHECK(tail == std::vector<std::string>{"b_Intercept", "b_mom_hs", "b_mom_iq", "sigma"});
  CHECK(csv.draws(7, static_cast<Eigen::Index>(csv.columns.size()) - 1) == rec["chains"][1]["samples"][7][3].get<double>());
  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "kid.nc").string());
  REQUIRE(nc.parameters.blocks.size() == 4);
  CHECK(nc.parameters.blocks[3].name == "sigma");
  CHECK(nc.chains[0].draws(5, 0) == rec["chains"][0]["samples"][5][0].get<double>());
  std::ifstream draws(scratch() / "kid_draws.csv");
  std::string header;
  std::getline(draws, header);
  CHECK(has(header, ".chain,.iteration,.draw,b_Intercept,b_mom_hs,b_mom_iq,sigma"));
  const Result summary = run_cli(scratch(), fmt::format("summary '{}'", rec_path.string()));
  REQUIRE(summary.code == 0);
  for (const char* row : {"\nb_Intercept ", "\nb_mom_hs ", "\nb_mom_iq ", "\nsigma "}) CHECK(has(summary.out, row));
}

TEST_CASE("glm: what reads reported draws back maps them to the sampled scale") {
  // Catches: a resume whose checks see σ as log σ, Stein diagnostics scored at the reported point, a
  // pointwise log-likelihood computed from reported draws. Exact HMC, 300 kept draws per chain: the
  // default check's configurational temperature and summary --stein's use the same draws (both keep up
  // to 1000), so they agree to the rounding of the round trip.
  json c = kid_config();
  c["sampler"] = {{"name", "hmc"}, {"step_size", 0.05}, {"leapfrog_steps", 10}};
  c["steps"] = 400;
  c["init"] = {40, 5, 0.5, 15};  // reported scale: sigma 15, not log sigma
  const json whole = read_json(run_to("hmc_whole", c));
  c["steps"] = 250;
  const fs::path part = run_to("hmc_part", c);
  REQUIRE(run_cli(scratch(), fmt::format("resume -q '{}' --steps 150 -o '{}'", part.string(), (scratch() / "hmc_resumed.json").string())).code == 0);
  const json resumed = read_json(scratch() / "hmc_resumed.json");
  for (int k = 0; k < 2; ++k) {
    CHECK(resumed["chains"][k]["samples"] == whole["chains"][k]["samples"]);
    const double a = resumed["chains"][k]["checks"]["configurational_temperature"]["value"];
    const double b = whole["chains"][k]["checks"]["configurational_temperature"]["value"];
    CHECK(a == doctest::Approx(b).epsilon(1e-10));
  }
  const Result stein = run_cli(scratch(), fmt::format("summary --json --stein '{}'", (scratch() / "hmc_whole.json").string()));
  INFO(stein.err);
  REQUIRE(stein.code == 0);
  const json report = json::parse(stein.out);
  for (int k = 0; k < 2; ++k) {
    const double t = report["stein"]["chains"][k]["configurational_temperature"];
    CHECK(t == doctest::Approx(whole["chains"][k]["checks"]["configurational_temperature"]["value"].get<double>()).epsilon(1e-9));
  }
  // The pointwise log-likelihood written during the run equals convert's, recomputed from the record.
  c["steps"] = 120;
  c["log_likelihood"] = true;
  run_to("ll", c, "json,csv");
  REQUIRE(run_cli(scratch(), fmt::format("convert '{}' -o '{}' --format csv", (scratch() / "ll.json").string(), (scratch() / "ll_conv.csv").string())).code == 0);
  const auto during = sgmcmc::run::output::read_stan_csv((scratch() / "ll_2.csv").string());
  const auto after = sgmcmc::run::output::read_stan_csv((scratch() / "ll_conv_2.csv").string());
  REQUIRE(during.columns == after.columns);
  REQUIRE(during.draws.rows() == 120 - 100);
  const auto ll = std::find(during.columns.begin(), during.columns.end(), "log_lik.1") - during.columns.begin();
  REQUIRE(ll + 60 == static_cast<std::ptrdiff_t>(during.columns.size()));  // 60 examples, the last columns
  const Eigen::MatrixXd a = during.draws.rightCols(60), b = after.draws.rightCols(60);
  CHECK(a.allFinite());
  CHECK((a - b).cwiseAbs().maxCoeff() < 1e-9);
}

TEST_CASE("glm: init on the reported scale; outside its domain an error naming the coordinate") {
  // Catches: an init read as log sigma, or a negative sigma reaching log() as a NaN start.
  json c = kid_config();
  c["sampler"] = {{"name", "sgld"}, {"step_size", 1e-14}};
  c["steps"] = 1;
  c["burn_in"] = 0;
  c["init"] = {40, 5, 0.5, 15};
  const json rec = read_json(run_to("init", c));
  const std::vector<double> first = rec["chains"][0]["samples"][0];
  // One SGLD step of h = 1e-14 moves θ by about sqrt(2h) = 1.4e-7.
  CHECK(first[0] == doctest::Approx(40).epsilon(1e-5));
  CHECK(first[3] == doctest::Approx(15).epsilon(1e-5));
  c["init"] = {40, 5, 0.5, -1};
  CHECK(has(error_of("bad_init", c), "/init: sigma (coordinate 3) is -1: expected a positive number"));
}

TEST_CASE("glm: bad input is an error naming the JSON path, the file, the column and the row; nothing is written") {
  // Catches: a crash, an error without its place, or an output left behind (item 4 of the issue).
  const auto with = [](json target) {
    json c = kid_config();
    for (auto& [k, v] : target.items()) c["target"][k] = v;
    return c;
  };
  CHECK(has(error_of("family", with({{"family", "weibull"}})), "/target/family: unknown family \"weibull\""));
  CHECK(has(error_of("link", with({{"link", "logit"}})), "/target/link: "));
  CHECK(has(error_of("prior_name", with({{"prior", {{"b", "normale(0, 1)"}}}})), "/target/prior/b: "));
  CHECK(has(error_of("prior_class", with({{"prior", {{"shape", "normal(0, 2)"}}}})), "/target/prior/shape: "));
  CHECK(has(error_of("prior_param", with({{"prior", {{"sigma", "normal(0, -2)"}}}})), "/target/prior/sigma: prior \"normal(0, -2)\": sigma must be positive"));
  CHECK(has(error_of("response", with({{"response", "score"}})), "/target/response: "));
  CHECK(has(error_of("response", with({{"response", "score"}})), "kid.csv has no column \"score\""));
  CHECK(has(error_of("predictor", with({{"predictors", {"mom_hs", "iq"}}})), "/target/predictors/1: "));
  const fs::path text = write_csv("text.csv", "y,x", {"1,2", "3,abc", "4,5"});
  const std::string t = error_of("text", with({{"data", text.string()}, {"response", "y"}, {"predictors", json::array({"x"})}}));
  CHECK(has(t, "/target/data: "));
  CHECK(has(t, "text.csv"));
  CHECK(has(t, "text.csv:3: column 2: expected a number (a field of 3 characters is not one; data row 2, column \"x\")"));
  const fs::path counts = write_csv("counts.csv", "y,x", {"1,0.5", "2.5,1", "0,2"});
  const std::string n = error_of("counts", with({{"data", counts.string()}, {"response", "y"}, {"predictors", json::array({"x"})}, {"family", "poisson"},
                                                 {"link", "log"}, {"prior", json::object()}}));
  CHECK(has(n, "counts.csv"));
  CHECK(has(n, "y"));
  CHECK(has(n, "row 2"));
  const fs::path binary = write_csv("binary.csv", "y,x", {"1,0.5", "0,1", "2,2"});
  const std::string b = error_of("binary", with({{"data", binary.string()}, {"response", "y"}, {"predictors", json::array({"x"})}, {"family", "bernoulli"},
                                                 {"link", "logit"}, {"prior", json::object()}}));
  CHECK(has(b, "binary.csv"));
  CHECK(has(b, "row 3"));
  const fs::path trials = write_csv("trials.csv", "y,n,x", {"1,3,0.5", "0,0,1", "2,4,2"});
  const std::string tr = error_of("trials", with({{"data", trials.string()}, {"response", "y"}, {"predictors", json::array({"x"})}, {"family", "binomial"},
                                                  {"trials", "n"}, {"link", "logit"}, {"prior", json::object()}}));
  CHECK(has(tr, "trials.csv"));
  CHECK(has(tr, "row 2"));
}

TEST_CASE("glm: a constant or collinear predictor is a warning in the record and the summary, by name") {
  // Catches: a warning the section finds and nobody sees.
  std::vector<std::string> rows;
  for (int i = 0; i < 30; ++i) rows.push_back(fmt::format("{},{},{},{}", 1.0 + 0.1 * i + std::sin(i), 0.1 * i, 2 * 0.1 * i + 1, 7));
  const fs::path p = write_csv("collinear.csv", "y,a,c,k", rows);
  json c = kid_config();
  c["target"] = {{"name", "glm"}, {"data", p.string()}, {"response", "y"}, {"batch_size", 10}};
  c["sampler"] = {{"name", "sgld"}, {"step_size", 1e-4}};
  c["steps"] = 20;
  c["burn_in"] = 0;
  const fs::path out = run_to("collinear", c);
  const json rec = read_json(out);
  REQUIRE(rec.contains("warnings"));
  std::string all;
  for (const auto& w : rec["warnings"]) {
    CHECK(w["kind"] == "data");
    all += w["message"].get<std::string>() + "\n";
  }
  CHECK(has(all, "predictor \"k\" is constant"));
  CHECK(has(all, "collinear.csv"));
  const Result summary = run_cli(scratch(), fmt::format("summary '{}'", out.string()));
  CHECK(has(summary.out, "warning: data: "));
  CHECK(has(summary.out, "\"k\" is constant"));
}

}  // namespace test_cli_glm
