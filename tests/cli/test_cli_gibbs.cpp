// The CLI's Gibbs step on the prior precisions of the bnn and bpmf targets (`target.gibbs_every`,
// docs/config.md; SGHMC paper App. H.1/H.2): exact resume with the precisions in the record, Gibbs
// draws that are a pure function of (seed, chain, Gibbs step), chains that own their precisions, and
// errors naming /target/gibbs_every. The data are tiny files the test writes, so each case is fast.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace test_cli_gibbs {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

using sgmcmc_test::cli::Result;
using sgmcmc_test::cli::slurp;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_gibbs_scratch");
  return dir;
}
Result cli(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }
fs::path write_config(const std::string& name, const json& j) { return sgmcmc_test::cli::write_json(scratch(), name, j); }
json read(const fs::path& p) { return sgmcmc_test::cli::read_json(p); }

// Runs `config` (with "steps" replaced by `steps`) and returns the record; REQUIREs success.
json run(const json& config, std::uint64_t steps, const std::string& name, const std::string& extra = "") {
  json c = config;
  c["steps"] = steps;
  const auto out = scratch() / (name + ".run.json");
  const Result r = cli(fmt::format("run -q '{}' {} -o '{}'", write_config(name + ".json", c).string(), extra, out.string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return read(out);
}

// `steps` then a resume of `more`: the resumed record.
json run_and_resume(const json& config, std::uint64_t steps, std::uint64_t more, const std::string& name) {
  run(config, steps, name);
  const auto out = scratch() / (name + ".resumed.json");
  const Result r = cli(fmt::format("resume -q '{}' --steps {} -o '{}'", (scratch() / (name + ".run.json")).string(), more, out.string()));
  INFO(r.err);
  REQUIRE(r.code == 0);
  return read(out);
}

// 40 examples, 3 features, 2 classes (class c shifts feature c by 1); header row. d–H–K = 3–4–2: 26 weights.
std::string write_classes() {
  sgmcmc::random::Stream rng(21, 0);
  const fs::path p = scratch() / "classes40.csv";
  std::ofstream out(p);
  out << "f1,f2,f3,label\n";
  for (int i = 0; i < 40; ++i) {
    const int c = i % 2;
    for (int k = 0; k < 3; ++k) out << (k == c ? 1.0 : 0.0) + 0.5 * rng.normal() << ',';
    out << c << '\n';
  }
  return p.string();
}

// 60 ratings of 8 users × 6 items, every user and item rated at least once. Latent 2: (2+1)(8+6) = 42.
std::string write_ratings() {
  sgmcmc::random::Stream rng(22, 0);
  const fs::path p = scratch() / "ratings60.csv";
  std::ofstream out(p);
  out << "userId,movieId,rating\n";
  for (int k = 0; k < 60; ++k) {
    const auto u = k < 8 ? std::uint64_t(k) : rng.below(8), j = k < 6 ? std::uint64_t(k) : rng.below(6);
    out << 1 + u << ',' << 10 * (1 + j) << ',' << 0.5 * double(1 + rng.below(10)) << '\n';
  }
  return p.string();
}

json bnn_config(std::uint64_t gibbs_every) {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.02}, {"friction", 5.0}}},
          {"target", {{"name", "bnn"}, {"data", write_classes()}, {"hidden", 4}, {"batch_size", 10}, {"gibbs_every", gibbs_every}}},
          {"burn_in", 20}, {"thin", 5}, {"chains", 2}, {"seed", 31}};
}
json bpmf_config(std::uint64_t gibbs_every) {
  return {{"sampler", {{"name", "sghmc"}, {"step_size", 0.02}, {"friction", 5.0}}},
          {"target", {{"name", "bpmf"}, {"data", write_ratings()}, {"latent", 2}, {"batch_size", 15}, {"gibbs_every", gibbs_every}}},
          {"burn_in", 20}, {"thin", 5}, {"chains", 2}, {"seed", 32}};
}

const json& precisions(const json& record, int chain) { return record["chains"][chain]["state"]["target"]["precisions"]; }

Eigen::VectorXd position(const json& record, int chain) {
  const auto x = record["chains"][chain]["state"]["sampler"]["x"].get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
}

// The conjugate draw λ | block ~ Gamma(1 + n/2, rate 1 + ‖block‖²/2) for consecutive blocks of θ,
// from the Gibbs stream the docs promise: substream m of (seed, chain).
std::vector<double> gibbs_draws(const Eigen::VectorXd& th, const std::vector<Eigen::Index>& sizes, std::uint64_t seed,
                                std::uint32_t chain, std::uint64_t m) {
  auto g = sgmcmc::random::substream(seed, chain, m);
  std::vector<double> out;
  Eigen::Index off = 0;
  for (Eigen::Index n : sizes) {
    out.push_back(sgmcmc::random::gamma(g, 1.0 + 0.5 * double(n)) / (1.0 + 0.5 * th.segment(off, n).squaredNorm()));
    off += n;
  }
  return out;
}

}  // namespace

TEST_CASE("gibbs_every: run N then resume N equals one 2N run, draws and precisions bitwise (bnn, bpmf)") {
  // Catches: precisions left out of the record or not restored, Gibbs draws from a stream whose
  // position a resume loses, a Gibbs step counted from the resume instead of the chain's start.
  // k = 5 puts a Gibbs step exactly at the resume point (step 150); k = 7 puts one across it.
  for (const std::uint64_t k : {5, 7}) {
    for (const bool bnn : {true, false}) {
      CAPTURE(k);
      CAPTURE(bnn);
      const json c = bnn ? bnn_config(k) : bpmf_config(k);
      const std::string name = fmt::format("{}{}", bnn ? "bnn" : "bpmf", k);
      const json whole = run(c, 300, name + "_whole");
      const json resumed = run_and_resume(c, 150, 150, name + "_half");
      REQUIRE(whole["status"] == "ok");
      CHECK(whole["config"]["target"]["gibbs_every"] == k);
      for (int ch = 0; ch < 2; ++ch) {
        CHECK(whole["chains"][ch]["samples"].size() == (300 - 20) / 5);
        CHECK(whole["chains"][ch]["samples"] == resumed["chains"][ch]["samples"]);
        CHECK(whole["chains"][ch]["state"] == resumed["chains"][ch]["state"]);  // precisions included
        CHECK(whole["chains"][ch]["diagnostics"] == resumed["chains"][ch]["diagnostics"]);
        CHECK(whole["chains"][ch]["diagnostics"]["gibbs_steps"] == 300 / k);
        CHECK(whole["chains"][ch]["diagnostics"]["precisions"] == precisions(whole, ch));
      }
    }
  }
}

TEST_CASE("gibbs_every: the precisions move off prior_precision, by the conjugate draw from substream (seed, chain, step/k)") {
  // Catches: a Gibbs step that never runs or writes another chain's (or a copy's) precisions; Gibbs
  // draws that are not the documented pure function of (seed, chain, Gibbs step); an off switch that
  // is not the old behaviour.
  const std::uint64_t steps = 240, k = 8;  // the last step is Gibbs step 30, taken at the final position
  const json bnn = run(bnn_config(k), steps, "bnn_conj");
  const json bpmf = run(bpmf_config(k), steps, "bpmf_conj");
  for (int ch = 0; ch < 2; ++ch) {
    CAPTURE(ch);
    const json& p = precisions(bnn, ch);
    const std::vector<double> want = gibbs_draws(position(bnn, ch), {3 * 4 + 4, 4 * 2 + 2}, 31, std::uint32_t(ch), steps / k);
    CHECK(p["layer1"].get<double>() == want[0]);
    CHECK(p["layer2"].get<double>() == want[1]);
    for (const char* key : {"layer1", "layer2"}) CHECK(p[key].get<double>() != 1.0);  // not the start λ = 1
    const json& q = precisions(bpmf, ch);
    const std::vector<double> wantq = gibbs_draws(position(bpmf, ch), {2 * 8, 2 * 6, 8, 6}, 32, std::uint32_t(ch), steps / k);
    CHECK(q["user"].get<double>() == wantq[0]);
    CHECK(q["item"].get<double>() == wantq[1]);
    CHECK(q["user_bias"].get<double>() == wantq[2]);
    CHECK(q["item_bias"].get<double>() == wantq[3]);
    for (const char* key : {"user", "item", "user_bias", "item_bias"}) CHECK(q[key].get<double>() != 1.0);
  }
  // From a start far from the posterior (λ = 1000 for coordinates that start N(0, 1)), the precisions
  // leave it by orders of magnitude.
  for (const bool is_bnn : {true, false}) {
    CAPTURE(is_bnn);
    json far = is_bnn ? bnn_config(k) : bpmf_config(k);
    far["target"]["prior_precision"] = 1000.0;
    const json moved = run(far, steps, is_bnn ? "bnn_far" : "bpmf_far");
    for (int ch = 0; ch < 2; ++ch)
      for (const auto& item : precisions(moved, ch).items()) {
        const std::string key = item.key();  // CAPTURE's lambda cannot take a structured binding in Clang 14
        CAPTURE(key);
        CHECK(item.value().get<double>() < 100.0);
      }
  }

  // gibbs_every 0 (and no field at all) is the old fixed-precision run: same draws, precisions at the start.
  json off = bnn_config(0);
  const json zero = run(off, steps, "bnn_off0");
  off["target"].erase("gibbs_every");
  const json none = run(off, steps, "bnn_off");
  CHECK(sgmcmc_test::cli::chains_without_timing(zero) == sgmcmc_test::cli::chains_without_timing(none));
  CHECK(none["config"]["target"]["gibbs_every"] == 0);
  CHECK(precisions(none, 0) == json{{"layer1", 1.0}, {"layer2", 1.0}});
  CHECK(none["chains"][0]["diagnostics"]["gibbs_steps"] == 0);
  CHECK(none["chains"][0]["samples"] != bnn["chains"][0]["samples"]);  // the Gibbs step changes the chain
  // The Gibbs draws come from substreams: the chain's own stream (batches, noise) is where it was.
  CHECK(none["chains"][0]["state"]["rng"] == bnn["chains"][0]["state"]["rng"]);
}

TEST_CASE("gibbs_every: each chain owns its precisions; the result does not depend on --threads") {
  // Catches: chains sharing one precisions object through the model's shared_ptr (a data race on
  // threads, and on one thread chain 1 starting from chain 0's last Gibbs draw).
  for (const bool bnn : {true, false}) {
    CAPTURE(bnn);
    json c = bnn ? bnn_config(3) : bpmf_config(3);
    c["chains"] = 3;
    const std::string name = bnn ? "bnn_threads" : "bpmf_threads";
    const json one = run(c, 200, name + "1", "--threads 1");
    const json two = run(c, 200, name + "2", "--threads 2");
    CHECK(sgmcmc_test::cli::chains_without_timing(one) == sgmcmc_test::cli::chains_without_timing(two));
    CHECK(precisions(one, 0) != precisions(one, 1));
    CHECK(precisions(one, 1) != precisions(one, 2));

    // Chain 1 is the same whatever chain 0 does: give chain 0 another start, on one thread (chain 0
    // runs first, so a shared precisions object would hand chain 1 a different start).
    const auto dim = static_cast<std::size_t>(bnn ? 26 : 42);
    sgmcmc::random::Stream rng(40, 0);
    std::vector<std::vector<double>> init(3, std::vector<double>(dim));
    for (auto& x : init)
      for (auto& v : x) v = 0.3 * rng.normal();
    c["init"] = init;
    const json a = run(c, 200, name + "_inita", "--threads 1");
    for (auto& v : init[0]) v *= 3.0;
    c["init"] = init;
    const json b = run(c, 200, name + "_initb", "--threads 1");
    CHECK(a["chains"][0]["samples"] != b["chains"][0]["samples"]);
    CHECK(precisions(a, 0) != precisions(b, 0));
    CHECK(sgmcmc_test::cli::chains_without_timing(a)[1] == sgmcmc_test::cli::chains_without_timing(b)[1]);
    CHECK(sgmcmc_test::cli::chains_without_timing(a)[2] == sgmcmc_test::cli::chains_without_timing(b)[2]);
  }
}

TEST_CASE("gibbs_every: bad values, other targets and bad record states are errors naming the JSON path") {
  // Catches: a negative, fractional or string k read as something else; gibbs_every silently ignored
  // on a target with no precisions; a record whose precisions are missing or invalid resumed anyway.
  for (const json& bad : {json(-1), json(2.5), json("10"), json(true), json(nullptr)}) {
    CAPTURE(bad.dump());
    json c = bnn_config(5);
    c["target"]["gibbs_every"] = bad;
    const auto out = scratch() / "bad.run.json";
    const Result r = cli(fmt::format("run -q '{}' -o '{}'", write_config("bad.json", c).string(), out.string()));
    CHECK(r.code == 1);
    CHECK(r.err.find("/target/gibbs_every: expected an integer >= 0, got " + bad.dump()) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  json q = bpmf_config(5);
  q["target"]["gibbs_every"] = -3;
  Result r = cli(fmt::format("run -q '{}'", write_config("badq.json", q).string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("/target/gibbs_every: expected an integer >= 0, got -3") != std::string::npos);

  const json gaussian = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.1}}},
                         {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"gibbs_every", 10}}}, {"steps", 10}};
  r = cli(fmt::format("run -q '{}'", write_config("badg.json", gaussian).string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("/target/gibbs_every: only the bnn and bpmf targets") != std::string::npos);

  // A record with gibbs_every > 0 must carry each chain's precisions, and valid ones.
  run(bnn_config(5), 50, "rec");
  json rec = read(scratch() / "rec.run.json");
  rec["chains"][1]["state"].erase("target");
  r = cli(fmt::format("resume '{}' --steps 10 -o '{}'", write_config("rec_missing.json", rec).string(), (scratch() / "x.json").string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("/chains/1/state/target: required field is missing") != std::string::npos);
  rec = read(scratch() / "rec.run.json");
  rec["chains"][0]["state"]["target"]["precisions"]["layer2"] = -1.0;
  r = cli(fmt::format("resume '{}' --steps 10 -o '{}'", write_config("rec_neg.json", rec).string(), (scratch() / "x.json").string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("/chains/0/state/target/precisions/layer2: expected a positive number, got -1") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "x.json"));

  // The summary shows each chain's precisions.
  r = cli(fmt::format("summary '{}'", (scratch() / "rec.run.json").string()));
  CHECK(r.code == 0);
  CHECK(r.out.find("\"precisions\":{\"layer1\":") != std::string::npos);
}

TEST_CASE("bnn precision float32: recorded, resumed bitwise, close to float64; bad values name /target/precision") {
  // Catches: a precision field the target ignores (the draws would equal float64's to the bit), a float
  // model whose state a resume loses or rebuilds in double, a typo accepted as a precision, the field
  // silently accepted by a target that has no float path, a record that does not say which tier of
  // build wrote it (README "Reproducibility").
  json c = bnn_config(5);
  c["target"]["precision"] = "float32";
  const json whole = run(c, 300, "bnn_f32_whole");
  const json resumed = run_and_resume(c, 150, 150, "bnn_f32_half");
  REQUIRE(whole["status"] == "ok");
  CHECK(whole["config"]["target"]["precision"] == "float32");
  CHECK(run(bnn_config(5), 20, "bnn_f64_default")["config"]["target"]["precision"] == "float64");
  const std::string tier = whole["library"]["build"]["tier"];
  CHECK((tier == "native" || tier == "portable"));
  CHECK(whole["library"]["build"]["isa"].is_string());
  const json f64 = run(bnn_config(5), 300, "bnn_f64_whole");
  for (int ch = 0; ch < 2; ++ch) {
    CHECK(whole["chains"][ch]["samples"] == resumed["chains"][ch]["samples"]);
    CHECK(whole["chains"][ch]["state"] == resumed["chains"][ch]["state"]);
    // The first kept draw (step 25) from the same seed: float rounding, far below the posterior's spread.
    const auto a = whole["chains"][ch]["samples"][0].get<std::vector<double>>();
    const auto b = f64["chains"][ch]["samples"][0].get<std::vector<double>>();
    double diff = 0;
    for (std::size_t k = 0; k < a.size(); ++k) diff = std::max(diff, std::abs(a[k] - b[k]));
    CHECK(diff > 0);
    CHECK(diff < 1e-4);
  }
  for (const json& bad : {json("float16"), json("double"), json(32), json(nullptr)}) {
    CAPTURE(bad.dump());
    json b = bnn_config(5);
    b["target"]["precision"] = bad;
    const auto out = scratch() / "bad_precision.run.json";
    const Result r = cli(fmt::format("run -q '{}' -o '{}'", write_config("bad_precision.json", b).string(), out.string()));
    CHECK(r.code == 1);
    CHECK(r.err.find("/target/precision") != std::string::npos);
    CHECK(!fs::exists(out));
  }
  json other = bpmf_config(5);
  other["target"]["precision"] = "float32";
  const Result r = cli(fmt::format("run -q '{}' -o '{}'", write_config("bpmf_precision.json", other).string(),
                                   (scratch() / "bpmf_precision.run.json").string()));
  CHECK(r.code == 1);
  CHECK(r.err.find("/target/precision") != std::string::npos);
}

}  // namespace test_cli_gibbs
