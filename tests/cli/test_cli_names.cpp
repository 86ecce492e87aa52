// Parameter names everywhere (issue #34 item 2; docs/run-format.md, "Parameter names"): a logistic run
// on a headed CSV says b_age and b_income in its record, Stan CSV, NetCDF (read back here and by
// xarray), draws_csv and summary, with the draws of the same run without a header; bnn's and bpmf's
// blocks, a product manifold's factors and `target.names` name their coordinates; bad names are errors
// naming the field. The data are tiny files the test writes: every run takes milliseconds.
#include <doctest/doctest.h>

#include "../support/cli.hpp"
#include "../support/external.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/run/output/netcdf.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>

namespace test_cli_names {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_names_scratch");
  return dir;
}

/// 30 examples of two features and a 0/1 label, with the header line `header` (none when empty).
fs::path write_logistic(const std::string& name, const std::string& header) {
  const fs::path p = scratch() / name;
  std::ofstream out(p);
  if (!header.empty()) out << header << '\n';
  for (int i = 0; i < 30; ++i) {
    const double a = 0.1 * (i % 7) - 0.3, b = 0.05 * (i % 5) - 0.1;
    out << a << ',' << b << ',' << (a - b + 0.1 * (i % 3) > 0 ? 1 : 0) << '\n';
  }
  return p;
}

json logistic_config(const fs::path& data) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
          {"target", {{"name", "logistic"}, {"data", data.string()}, {"batch_size", 10}}},
          {"steps", 30}, {"chains", 2}, {"seed", 5}};
}

/// Runs `config` into OUT = scratch/NAME.json with `formats`; REQUIREs success and returns OUT.
fs::path run_to(const std::string& name, const json& config, const std::string& formats = "json") {
  return sgmcmc_test::cli::run_to(scratch(), name, config, formats);
}

/// The error of a run of `config` that must fail with exit code 1.
std::string error_of(const std::string& name, const json& config) {
  const Result r = run_cli(scratch(), fmt::format("run -q '{}' -o '{}'", write_json(scratch(), name + ".config.json", config).string(),
                                                  (scratch() / (name + ".json")).string()));
  CHECK(r.code == 1);
  return r.err;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The first line of a file.
std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

json blocks(std::initializer_list<std::pair<const char*, std::vector<int>>> list) {
  json out = json::array();
  for (const auto& [name, shape] : list) out.push_back({{"name", name}, {"shape", shape}});
  return out;
}

}  // namespace

TEST_CASE("a logistic run on a headed CSV names its coefficients b_<column> in every output, with the unnamed run's draws") {
  // Catches: a format that keeps x.1/x[1]/x, names in the wrong order, or values moved by the naming.
  const fs::path named = run_to("named", logistic_config(write_logistic("headed.csv", "age,income,label")), "json,csv,netcdf,draws_csv");
  const fs::path plain = run_to("plain", logistic_config(write_logistic("bare.csv", "")));
  const json rec = read_json(named), bare = read_json(plain);
  CHECK(rec["parameters"] == blocks({{"b_age", {}}, {"b_income", {}}}));
  CHECK(bare["parameters"] == blocks({{"x", {2}}}));  // no header: today's one block x
  for (int c = 0; c < 2; ++c) CHECK(rec["chains"][c]["samples"] == bare["chains"][c]["samples"]);

  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "named_1.csv").string());
  REQUIRE(csv.columns.size() >= 2);
  CHECK(csv.columns[csv.columns.size() - 2] == "b_age");
  CHECK(csv.columns.back() == "b_income");
  const std::vector<double> first = rec["chains"][0]["samples"][0];
  CHECK(csv.draws(0, static_cast<Eigen::Index>(csv.columns.size()) - 2) == first[0]);
  CHECK(csv.draws(0, static_cast<Eigen::Index>(csv.columns.size()) - 1) == first[1]);

  CHECK(has(first_line(scratch() / "named_draws.csv"), ".chain,.iteration,.draw,b_age,b_income,"));

  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "named.nc").string());
  REQUIRE(nc.parameters.blocks.size() == 2);
  CHECK(nc.parameters.blocks[0].name == "b_age");
  CHECK(nc.parameters.blocks[1].name == "b_income");
  CHECK(nc.parameters.blocks[1].shape.empty());
  CHECK(nc.chains[1].draws(3, 1) == rec["chains"][1]["samples"][3][1].get<double>());

  // xarray (what ArviZ reads the file with): a (chain, draw) variable per coefficient, no x.
  const std::string said = sgmcmc_test::run_script(scratch(), "names.py", sgmcmc_test::python(),
                                                   "import sys\n"
                                                   "try:\n    import xarray\nexcept ImportError:\n    sys.exit(3)\n"
                                                   "p = xarray.open_dataset(sys.argv[1], group='posterior')\n"
                                                   "print(sorted(p.data_vars), p['b_age'].dims, repr(float(p['b_income'][1, 3])))\n",
                                                   "named.nc", "python3-xarray python3-netcdf4");
  CHECK(said == fmt::format("['b_age', 'b_income'] ('chain', 'draw') {}\n", json(rec["chains"][1]["samples"][3][1]).dump()));

  const Result summary = run_cli(scratch(), fmt::format("summary '{}'", named.string()));
  REQUIRE(summary.code == 0);
  CHECK(has(summary.out, "\nb_age "));
  CHECK(has(summary.out, "\nb_income "));
  const json rows = json::parse(run_cli(scratch(), fmt::format("summary --json '{}'", named.string())).out)["summary"];
  CHECK(rows[1]["parameter"] == "b_income");
  // convert recomputes the names from the record's config (the data file's header).
  REQUIRE(run_cli(scratch(), fmt::format("convert '{}' -o '{}' --format json,netcdf", named.string(), (scratch() / "conv.json").string())).code == 0);
  CHECK(read_json(scratch() / "conv.json")["parameters"] == rec["parameters"]);
  CHECK(sgmcmc::run::output::read_netcdf((scratch() / "conv.nc").string()).parameters.blocks[0].name == "b_age");
  // So do resume and thin.
  REQUIRE(run_cli(scratch(), fmt::format("resume -q '{}' --steps 5 -o '{}'", named.string(), (scratch() / "resumed.json").string())).code == 0);
  CHECK(read_json(scratch() / "resumed.json")["parameters"] == rec["parameters"]);
  REQUIRE(run_cli(scratch(), fmt::format("thin -q '{}' --to 3 -o '{}' --format json,csv", named.string(), (scratch() / "thinned.json").string())).code == 0);
  CHECK(read_json(scratch() / "thinned.json")["parameters"] == rec["parameters"]);
  CHECK(sgmcmc::run::output::read_stan_csv((scratch() / "thinned_2.csv").string()).columns.back() == "b_income");
  // A record without `parameters` (an older one) reads as the block x.
  json old = rec;
  old.erase("parameters");
  CHECK(has(run_cli(scratch(), fmt::format("summary '{}'", write_json(scratch(), "old.json", old).string())).out, "\nx[2] "));
}

TEST_CASE("a header cell becomes a coefficient name by a documented rule, or is an error naming the file and the columns") {
  // Catches: an invalid name reaching the outputs, or two columns silently sharing a name.
  const json rec = read_json(run_to("clean", logistic_config(write_logistic("clean.csv", "Sepal.Length,income ($),y"))));
  CHECK(rec["parameters"] == blocks({{"b_Sepal_Length", {}}, {"b_income", {}}}));
  const std::string twice = error_of("twice", logistic_config(write_logistic("twice.csv", "a b,a_b,y")));
  CHECK(has(twice, "/target/data: "));
  CHECK(has(twice, "twice.csv: column 2 ('a_b'): gives the coefficient name 'b_a_b', as column 1 does"));
  CHECK(has(error_of("blank", logistic_config(write_logistic("blank.csv", "age,(%),y"))), "blank.csv: column 2 ('(%)'): a coefficient is named b_<column>"));
  // target.names overrides the header (and is not held to its rule).
  json c = logistic_config(write_logistic("twice.csv", "a b,a_b,y"));
  c["target"]["names"] = {"slope", "tilt"};
  CHECK(read_json(run_to("override", c))["parameters"] == blocks({{"slope", {}}, {"tilt", {}}}));
}

TEST_CASE("bnn and bpmf name their blocks as the models lay θ out") {
  // bnn d–H–K = 2–3–2: θ = [vec(W1) 2×3, b1 3, vec(W2) 3×2, b2 2], 17 weights. Started at θ_k = k and
  // moved by at most ~1e-6 (h = 1e-14), the first draw shows which flat coordinate each name holds.
  // Catches: blocks named in the wrong order, a matrix block transposed, an offset off by one.
  {
    std::ofstream out(scratch() / "classes.csv");
    out << "f1,f2,label\n";
    for (int i = 0; i < 20; ++i) out << 0.1 * (i % 4) << ',' << 0.2 * (i % 3) << ',' << i % 2 << '\n';
  }
  std::vector<double> init(17);
  for (int k = 0; k < 17; ++k) init[static_cast<std::size_t>(k)] = k;
  const json bnn = {{"sampler", {{"name", "sgld"}, {"step_size", 1e-14}}},
                    {"target", {{"name", "bnn"}, {"data", (scratch() / "classes.csv").string()}, {"hidden", 3}, {"batch_size", 5}}},
                    {"init", init}, {"steps", 1}, {"seed", 1}};
  const json rec = read_json(run_to("bnn", bnn, "json,csv,netcdf"));
  CHECK(rec["parameters"] == blocks({{"W1", {2, 3}}, {"b1", {3}}, {"W2", {3, 2}}, {"b2", {2}}}));
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "bnn_1.csv").string());
  const auto at = [&](const std::string& name) {
    for (std::size_t k = 0; k < csv.columns.size(); ++k)
      if (csv.columns[k] == name) return csv.draws(0, static_cast<Eigen::Index>(k));
    FAIL("no column ", name);
    return 0.0;
  };
  CHECK(at("W1.2.1") == doctest::Approx(1).epsilon(1e-5));   // W1(2, 1): flat 1 + 2·0
  CHECK(at("W1.1.3") == doctest::Approx(4).epsilon(1e-5));   // W1(1, 3): flat 0 + 2·2
  CHECK(at("b1.1") == doctest::Approx(6).epsilon(1e-5));     // after W1's 6
  CHECK(at("W2.1.2") == doctest::Approx(12).epsilon(1e-5));  // W2(1, 2): 9 + 0 + 3·1
  CHECK(at("b2.2") == doctest::Approx(16).epsilon(1e-5));
  // NetCDF keeps the matrix's own indices: W1[chain, draw, i, j].
  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "bnn.nc").string());
  REQUIRE(nc.parameters.blocks.size() == 4);
  CHECK(nc.parameters.blocks[2].name == "W2");
  CHECK(nc.parameters.blocks[2].shape == std::vector<Eigen::Index>{3, 2});
  CHECK(nc.chains[0].draws(0, 12) == doctest::Approx(12).epsilon(1e-5));

  // bpmf on 2 users × 3 items at latent 2: U 2×2, V 2×3, user_bias 2, item_bias 3.
  {
    std::ofstream out(scratch() / "ratings.csv");
    out << "userId,movieId,rating\n1,10,4\n2,20,3\n1,30,5\n2,10,2\n";
  }
  const json bpmf = {{"sampler", {{"name", "sgld"}, {"step_size", 0.001}}},
                     {"target", {{"name", "bpmf"}, {"data", (scratch() / "ratings.csv").string()}, {"latent", 2}, {"batch_size", 2}}},
                     {"steps", 2}, {"seed", 1}};
  CHECK(read_json(run_to("bpmf", bpmf))["parameters"] ==
        blocks({{"U", {2, 2}}, {"V", {2, 3}}, {"user_bias", {2}}, {"item_bias", {3}}}));
}

TEST_CASE("a product manifold's factors are blocks of their own shapes, named x1, x2, ... or by their parameter field") {
  // Catches: a product written as one flat vector, or a Stiefel factor losing its matrix shape.
  const json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
                  {"manifold", {{"name", "product"}, {"factors", {{{"name", "sphere"}, {"n", 3}, {"parameter", "direction"}},
                                                                  {{"name", "stiefel"}, {"n", 3}, {"p", 2}}}}}},
                  {"target", {{"name", "uniform"}}}, {"steps", 5}, {"seed", 1}};
  const json rec = read_json(run_to("product", c, "json,csv,netcdf,draws_csv"));
  CHECK(rec["parameters"] == blocks({{"direction", {3}}, {"x2", {3, 2}}}));
  CHECK(rec["config"]["manifold"]["factors"][0]["parameter"] == "direction");  // kept, so a resume names them alike
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "product_1.csv").string());
  CHECK(csv.columns.back() == "x2.3.2");
  CHECK(has(first_line(scratch() / "product_draws.csv"), ",direction[3],\"x2[1,1]\",\"x2[2,1]\","));
  const auto nc = sgmcmc::run::output::read_netcdf((scratch() / "product.nc").string());
  REQUIRE(nc.parameters.blocks.size() == 2);
  CHECK(nc.parameters.blocks[1].shape == std::vector<Eigen::Index>{3, 2});
  CHECK(nc.chains[0].draws(4, 3 + 1 + 3 * 1) == rec["chains"][0]["samples"][4][7].get<double>());  // x2(2, 2)
  json bad = c;
  bad["manifold"]["factors"][1]["parameter"] = "direction";
  CHECK(has(error_of("product_twice", bad), "/manifold/factors/1: the name 'direction' is given twice"));
  bad["manifold"]["factors"][1]["parameter"] = "2nd";
  CHECK(has(error_of("product_bad", bad), "/manifold/factors/1/parameter: '2nd' is not a parameter name"));
}

TEST_CASE("target.names names any target's coordinates; a wrong total, a duplicate or an invalid name is an error naming it") {
  // Catches: the field refused as unknown by a target, names not reaching the outputs, or errors that
  // do not say which entry is wrong.
  json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}}, {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
            {"target", {{"name", "gaussian"}, {"names", {"mu", {{"name", "v"}, {"shape", {2}}}}}}}, {"steps", 5}, {"seed", 1}};
  const json rec = read_json(run_to("given", c, "json,csv"));
  CHECK(rec["parameters"] == blocks({{"mu", {}}, {"v", {2}}}));
  const auto csv = sgmcmc::run::output::read_stan_csv((scratch() / "given_1.csv").string());
  CHECK(std::vector<std::string>(csv.columns.end() - 3, csv.columns.end()) == std::vector<std::string>{"mu", "v.1", "v.2"});
  c["target"]["names"] = {"mu", "v"};
  CHECK(has(error_of("short", c), "/target/names: the parameters' sizes sum to 2, but a draw has 3 coordinates"));
  c["target"]["names"] = {"mu", "nu", "mu"};
  CHECK(has(error_of("dup", c), "/target/names/2: the name 'mu' is given twice"));
  c["target"]["names"] = {"mu", "nu", "lp__"};
  CHECK(has(error_of("reserved", c), "/target/names/2: 'lp__' is not a parameter name"));
  c["target"]["names"] = {"mu", "log_lik", "nu"};
  CHECK(has(error_of("log_lik", c), "/target/names/1: 'log_lik' is not a parameter name"));
  c["target"]["names"] = {"mu", {{"name", "v"}, {"shape", {2, 1, 1}}}};
  CHECK(has(error_of("rank", c), "/target/names/1/shape: a scalar [], vector [n] or matrix [n, p], got 3 sizes"));
}

}  // namespace test_cli_names
