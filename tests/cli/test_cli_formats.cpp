// The run's outputs end to end through the command line: the streamed JSON record (version 2, with
// per-draw statistics), Stan CSV and NetCDF from `run --format`, `resume` and `convert`, the same draws
// in every format, and version-1 records still read.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <string>

#include <Eigen/Dense>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/run/output/netcdf.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

namespace test_cli_formats {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

using sgmcmc_test::cli::Result;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_formats_scratch");
  return dir;
}
Result cli(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }
fs::path write_config(const std::string& name, const json& j) { return sgmcmc_test::cli::write_json(scratch(), name, j); }
json read(const fs::path& p) { return sgmcmc_test::cli::read_json(p); }

json hmc_config(std::uint64_t steps) {
  return {{"sampler", {{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 5}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"target", {{"name", "gaussian"}, {"mean", {1, -1}}, {"cov", {{1, 0.5}, {0.5, 2}}}}},
          {"steps", steps}, {"burn_in", 50}, {"thin", 2}, {"chains", 2}, {"seed", 5}, {"log_density", true}};
}

// Every draw of the JSON record's chain c equals the CSV's parameter columns exactly.
void check_csv_matches(const json& record, std::size_t c, const fs::path& csv) {
  const auto s = sgmcmc::run::output::read_stan_csv(csv.string());
  const auto& samples = record["chains"][c]["samples"];
  REQUIRE(static_cast<std::size_t>(s.draws.rows()) == samples.size());
  REQUIRE(s.columns.size() >= 6);
  CHECK(s.columns[0] == "lp__");
  CHECK(s.columns[1] == "accept_stat__");
  CHECK(s.columns[2] == "stepsize__");
  CHECK(s.columns[3] == "treedepth__");
  const auto first_x = static_cast<Eigen::Index>(s.columns.size()) - 2;
  CHECK(s.columns[static_cast<std::size_t>(first_x)] == "x.1");
  const auto& lp = record["chains"][c]["sample_stats"]["lp"];
  const auto& accept = record["chains"][c]["sample_stats"]["accept_stat"];
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    CHECK(s.draws(i, first_x) == samples[k][0].get<double>());
    CHECK(s.draws(i, first_x + 1) == samples[k][1].get<double>());
    CHECK(s.draws(i, 0) == lp[k].get<double>());
    CHECK(s.draws(i, 1) == accept[k].get<double>());
  }
}

}  // namespace

TEST_CASE("run --format json,csv,netcdf writes the same draws in every format, with per-draw statistics") {
  // Catches: a format dropping or reordering draws, chains swapped between files, statistics not
  // paired with their draw, lp with the wrong sign, a lost round of the streaming writers.
  const auto cfg = write_config("hmc.json", hmc_config(4050));
  const auto out = scratch() / "hmc.run.json";
  const Result r = cli(fmt::format("run -q '{}' -o '{}' --format json,csv,netcdf", cfg.string(), out.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json rec = read(out);
  CHECK(rec["schema_version"] == 2);
  for (std::size_t c = 0; c < 2; ++c) {
    const auto& ch = rec["chains"][c];
    CHECK(ch["draws"] == 2000);
    REQUIRE(ch["samples"].size() == 2000);
    const auto& stats = ch["sample_stats"];
    for (const char* name : {"accept_stat", "divergent", "energy", "stepsize", "n_grad", "lp"})
      CHECK_MESSAGE(stats.contains(name), name);
    REQUIRE(stats["lp"].size() == 2000);
    // lp = −U(x) = −½ (x − m)ᵀ Σ⁻¹ (x − m) + const: differences between draws fix its sign and scale.
    Eigen::Matrix2d prec;
    prec << 1, 0.5, 0.5, 2;
    prec = prec.inverse().eval();
    const auto quad = [&](std::size_t k) {
      Eigen::Vector2d d(ch["samples"][k][0].get<double>() - 1, ch["samples"][k][1].get<double>() + 1);
      return -0.5 * d.dot(prec * d);
    };
    for (std::size_t k = 1; k < 2000; k += 97)
      CHECK(stats["lp"][k].get<double>() - stats["lp"][0].get<double>() == doctest::Approx(quad(k) - quad(0)).epsilon(1e-9));
    for (std::size_t k = 0; k < 2000; ++k) {
      CHECK(stats["accept_stat"][k].get<double>() >= 0.0);
      CHECK(stats["accept_stat"][k].get<double>() <= 1.0);
      CHECK(stats["stepsize"][k].get<double>() == 0.3);
    }
    check_csv_matches(rec, c, scratch() / fmt::format("hmc.run_{}.csv", c + 1));
  }
  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "hmc.run.nc").string());
  REQUIRE(nc.chains.size() == 2);
  for (std::size_t c = 0; c < 2; ++c) {
    REQUIRE(nc.chains[c].draws.rows() == 2000);
    for (Eigen::Index k = 0; k < 2000; ++k)
      for (Eigen::Index j = 0; j < 2; ++j)
        CHECK(nc.chains[c].draws(k, j) == rec["chains"][c]["samples"][static_cast<std::size_t>(k)][static_cast<std::size_t>(j)].get<double>());
  }
}

TEST_CASE("resume streams the record's draws and the new ones to every format, as one longer run would") {
  // Catches: a resumed CSV or NetCDF holding only the new draws, draws of the record lost or doubled.
  const auto half = write_config("half.json", hmc_config(600));
  const auto whole = write_config("whole.json", hmc_config(1200));
  const auto a = scratch() / "half.run.json", b = scratch() / "whole.run.json", ab = scratch() / "resumed.run.json";
  REQUIRE(cli(fmt::format("run -q '{}' -o '{}'", half.string(), a.string())).code == 0);
  REQUIRE(cli(fmt::format("run -q '{}' -o '{}' --format json,csv", whole.string(), b.string())).code == 0);
  const Result r = cli(fmt::format("resume -q '{}' --steps 600 -o '{}' --format json,csv", a.string(), ab.string()));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json x = read(b), y = read(ab);
  for (std::size_t c = 0; c < 2; ++c) {
    CHECK(x["chains"][c]["samples"] == y["chains"][c]["samples"]);
    CHECK(x["chains"][c]["sample_stats"] == y["chains"][c]["sample_stats"]);
    const auto cx = sgmcmc::run::output::read_stan_csv((scratch() / fmt::format("whole.run_{}.csv", c + 1)).string());
    const auto cy = sgmcmc::run::output::read_stan_csv((scratch() / fmt::format("resumed.run_{}.csv", c + 1)).string());
    CHECK(cx.columns == cy.columns);
    CHECK(cx.draws == cy.draws);
  }
}

TEST_CASE("convert writes a record's draws as Stan CSV and NetCDF; a version-1 record still converts, summarises and resumes") {
  // Catches: convert losing draws or statistics, the version-1 reader broken by the streaming reader.
  const auto cfg = write_config("conv.json", hmc_config(450));
  const auto rec_path = scratch() / "conv.run.json";
  REQUIRE(cli(fmt::format("run -q '{}' -o '{}'", cfg.string(), rec_path.string())).code == 0);
  const Result conv = cli(fmt::format("convert '{}' --format csv,netcdf -o '{}'", rec_path.string(), (scratch() / "conv_out").string()));
  REQUIRE_MESSAGE(conv.code == 0, conv.err);
  const json rec = read(rec_path);
  check_csv_matches(rec, 0, scratch() / "conv_out_1.csv");
  check_csv_matches(rec, 1, scratch() / "conv_out_2.csv");
  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "conv_out.nc").string());
  REQUIRE(nc.chains.size() == 2);
  CHECK(nc.chains[1].draws(199, 1) == rec["chains"][1]["samples"][199][1].get<double>());

  // The same record as version 1 wrote it: no per-draw statistics, no draw counts.
  json v1 = rec;
  v1["schema_version"] = 1;
  for (auto& ch : v1["chains"]) {
    ch.erase("sample_stats");
    ch.erase("draws");
  }
  const auto v1_path = write_config("v1.run.json", v1);
  const Result s1 = cli(fmt::format("summary '{}' --json", v1_path.string()));
  const Result s2 = cli(fmt::format("summary '{}' --json", rec_path.string()));
  REQUIRE_MESSAGE(s1.code == 0, s1.err);
  CHECK(s1.out == s2.out);
  const Result c1 = cli(fmt::format("convert '{}' --format csv -o '{}'", v1_path.string(), (scratch() / "v1_out").string()));
  REQUIRE_MESSAGE(c1.code == 0, c1.err);
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "v1_out_2.csv").string());
  CHECK(csv.draws.rows() == 200);
  const Result r1 = cli(fmt::format("resume -q '{}' --steps 100 -o '{}'", v1_path.string(), (scratch() / "v1_resumed.json").string()));
  REQUIRE_MESSAGE(r1.code == 0, r1.err);
  CHECK(read(scratch() / "v1_resumed.json")["chains"][0]["samples"].size() == 250);
}

TEST_CASE("-o r.csv and -o r.nc name the files as CmdStan and ArviZ users expect; without --format the ending chooses") {
  // Catches (issue #34 item 7): `-o r.csv --format csv` wrote r.csv_1.csv, `-o r.nc --format netcdf`
  // wrote r.nc.nc, and `-o r.csv` alone wrote a JSON record named r.csv.
  const json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}}, {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                  {"target", {{"name", "gaussian"}}}, {"steps", 50}, {"chains", 2}, {"seed", 1}};
  const fs::path cfg = write_config("ending.json", c);
  const fs::path dir = scratch() / "endings";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto run = [&](const std::string& rest) {
    const Result r = cli(fmt::format("run '{}' -q {}", cfg.string(), rest));
    CAPTURE(rest);
    CAPTURE(r.err);
    CHECK(r.code == 0);
  };
  run(fmt::format("-o '{}' --format csv", (dir / "a.csv").string()));
  CHECK(fs::exists(dir / "a_1.csv"));
  CHECK(fs::exists(dir / "a_2.csv"));
  run(fmt::format("-o '{}' --format netcdf", (dir / "b.nc").string()));
  CHECK(fs::exists(dir / "b.nc"));
  run(fmt::format("-o '{}'", (dir / "c.csv").string()));  // the ending chooses Stan CSV
  CHECK(fs::exists(dir / "c_1.csv"));
  run(fmt::format("-o '{}'", (dir / "d.nc").string()));  // and NetCDF
  CHECK(sgmcmc::run::output::read_netcdf((dir / "d.nc").string()).chains.size() == 2);
  run(fmt::format("-o '{}' --format json,csv", (dir / "e.csv").string()));  // the record beside them: BASE.json
  CHECK(read(dir / "e.json")["chains"].size() == 2);
  CHECK(fs::exists(dir / "e_1.csv"));
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(dir)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a_1.csv", "a_2.csv", "b.nc", "c_1.csv", "c_2.csv", "d.nc", "e.json", "e_1.csv", "e_2.csv"});
}

TEST_CASE("output formats on the command line: bad names and a missing -o are bad command lines") {
  // Catches: an unknown format silently ignored, --format csv without anywhere to write.
  CHECK(cli("run -q --format xml -o x.json").code == 2);
  CHECK(cli("run -q --format csv").code == 2);
  const Result r = cli("convert nothing.json --format csv -o out");
  CHECK(r.code == 1);
  CHECK(r.err.find("nothing.json") != std::string::npos);
}

}  // namespace test_cli_formats
