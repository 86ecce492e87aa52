// Resume trusts no record (issue #13 item 2): a record is checked as a whole before anything is
// written. Each case edits one thing in a valid record — as a user's script, a bad merge or a flipped
// bit on disk might — and expects exit code 1, the field named, and the existing output untouched.
// Catches: a deleted or duplicated draw, chain 1 running on chain 0's stream (duplicate draws), a state
// edited off the manifold that a step would have projected back silently, an impossible steps_done, a
// changed seed or step size resumed as if the draws had been made with it.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace test_cli_resume_checks {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_resume_checks_scratch");
  return dir;
}

// Two chains on the sphere S², burn-in and thinning, so draw counts and manifold checks both bite.
json sphere_config() {
  return {{"sampler", {{"name", "sggmc"}, {"step_size", 0.1}, {"friction", 1.0}}},
          {"manifold", {{"name", "sphere"}, {"n", 3}}},
          {"target", {{"name", "vmf"}, {"mu", {0, 0, 1}}, {"kappa", 2.0}}},
          {"steps", 300}, {"burn_in", 50}, {"thin", 5}, {"chains", 2}, {"seed", 4}};
}

// Writes `record` edited by `edit`, resumes it onto an existing output, and checks the refusal.
template <class Edit>
void refused(const json& record, const std::string& name, Edit edit, const std::string& field, const std::string& words) {
  json bad = record;
  edit(bad);
  const fs::path in = write_json(scratch(), name + ".json", bad);
  const fs::path out = scratch() / (name + "_out.json");
  write_json(scratch(), name + "_out.json", json{{"keep", "me"}});
  const Result r = run_cli(scratch(), fmt::format("resume '{}' --steps 10 -q -o '{}'", in.string(), out.string()));
  CAPTURE(name);
  CAPTURE(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find(field) != std::string::npos);
  CHECK(r.err.find(words) != std::string::npos);
  CHECK(read_json(out) == json{{"keep", "me"}});  // the existing output is untouched
}

}  // namespace

TEST_CASE("resume refuses a record edited in any of the ways that would make its continuation wrong") {
  const fs::path cfg = write_json(scratch(), "sphere.json", sphere_config());
  const fs::path rec = scratch() / "run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg.string(), rec.string())).code == 0);
  const json record = read_json(rec);
  REQUIRE(record["chains"][0]["draws"] == 50);  // (300 − 50) / 5
  REQUIRE(record.contains("config_digest"));

  // The unedited record resumes (the checks do not refuse what the library wrote).
  CHECK(run_cli(scratch(), fmt::format("resume '{}' --steps 10 -q -o '{}'", rec.string(), (scratch() / "ok.json").string())).code == 0);

  refused(record, "deleted_draws", [](json& r) {
    auto& s = r["chains"][1]["samples"];
    s.erase(s.begin() + 3, s.begin() + 13);
  }, "/chains/1/draws", "holds 40 draws");
  refused(record, "added_draw", [](json& r) { r["chains"][0]["samples"].push_back(r["chains"][0]["samples"][0]); },
          "/chains/0/draws", "holds 51 draws");
  refused(record, "shared_stream", [](json& r) { r["chains"][1]["state"] = r["chains"][0]["state"]; },
          "/chains/1/state/rng/stream", "chains sharing a stream");
  refused(record, "off_manifold", [](json& r) {
    auto& x = r["chains"][0]["state"]["sampler"]["x"];
    x[0] = x[0].get<double>() + 0.01;
  }, "/chains/0/state", "off the sphere manifold");
  refused(record, "non_finite", [](json& r) { r["chains"][0]["state"]["sampler"]["x"][1] = nullptr; },
          "/chains/0/state/sampler/x", "");
  refused(record, "steps_done_max", [](json& r) { r["chains"][0]["state"]["steps_done"] = 18446744073709551615ull; },
          "/chains/0/draws", "keep 3689348814741910313");
  refused(record, "changed_seed", [](json& r) { r["config"]["seed"] = 5; }, "/config", "edited after the run");
  refused(record, "changed_step_size", [](json& r) { r["config"]["sampler"]["step_size"] = 0.2; }, "/config",
          "--allow-changed");
  refused(record, "bad_digest", [](json& r) { r["config_digest"] = 7; }, "/config_digest", "expected a string");
  // Deleting the digest bypassed the edit check (issue #40): now it is required.
  refused(record, "missing_digest", [](json& r) {
    r.erase("config_digest");
    r["config"]["seed"] = 5;
  }, "/config_digest", "required field is missing");

  SUBCASE("--allow-changed resumes an edited config and the record says so") {
    json edited = record;
    edited["config"]["sampler"]["step_size"] = 0.05;
    const fs::path in = write_json(scratch(), "edited.json", edited);
    const fs::path out = scratch() / "edited_out.json";
    const Result r = run_cli(scratch(), fmt::format("resume '{}' --steps 10 --allow-changed -q -o '{}'", in.string(), out.string()));
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const json resumed = read_json(out);
    CHECK(resumed["config"]["sampler"]["step_size"] == 0.05);
    CHECK(resumed["timings"]["phases"].back()["config_changed"] == true);
    CHECK(resumed["chains"][0]["draws"] == 52);
    // The new record's digest is of the config it now holds: it resumes again without the flag.
    CHECK(run_cli(scratch(), fmt::format("resume '{}' --steps 10 -q -o '{}'", out.string(), (scratch() / "again.json").string())).code == 0);
  }
}

TEST_CASE("resume refuses a preconditioner state whose scale is not the one its warm-up gives") {
  // Catches (issue #40 item 2): an edited diagonal scale, or warm-up sums edited after the scale was
  // fixed, resumed as if the run had estimated them — another sampler from then on, exit 0.
  json c = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}, {"preconditioner", "diagonal"}}},
            {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
            {"target", {{"name", "gaussian"}, {"grad_noise", 0.5}}},
            {"steps", 300}, {"burn_in", 100}, {"chains", 2}, {"seed", 6}};
  const fs::path cfg = write_json(scratch(), "precond.json", c);
  const fs::path rec = scratch() / "precond_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg.string(), rec.string())).code == 0);
  const json record = read_json(rec);
  REQUIRE(record["chains"][0]["state"]["sampler"]["scale"].size() == 3);
  CHECK(run_cli(scratch(), fmt::format("resume '{}' --steps 10 -q -o '{}'", rec.string(), (scratch() / "precond_ok.json").string())).code == 0);
  refused(record, "scale_edited", [](json& r) { r["chains"][0]["state"]["sampler"]["scale"][1] = 2.0; },
          "/chains/0/state/sampler", "scale: not the scale the warm-up's collected squares give");
  refused(record, "square_sum_edited", [](json& r) {
    auto& v = r["chains"][1]["state"]["sampler"]["square_sum"][0];
    v = v.get<double>() * 4;
  }, "/chains/1/state/sampler", "the scale or the warm-up's sums were edited");
  refused(record, "square_sum_negative", [](json& r) { r["chains"][1]["state"]["sampler"]["square_sum"][2] = -1.0; },
          "/chains/1/state/sampler", "square_sum: expected non-negative numbers");
}

TEST_CASE("resume refuses a dense preconditioner state whose factor is not the one its warm-up's draws give") {
  // Catches: an edited Cholesky factor, or the warm-up's Welford sums edited after the factor was fixed,
  // resumed as if the run had estimated them (the check recomputes L from the sums: the same code).
  json c = {{"sampler", {{"name", "sghmc"}, {"step_size", 0.05}, {"preconditioner", "dense"}}},
            {"manifold", {{"name", "euclidean"}, {"dim", 3}}},
            {"target", {{"name", "gaussian"}, {"grad_noise", 0.5}}},
            {"steps", 300}, {"burn_in", 100}, {"chains", 2}, {"seed", 6}};
  const fs::path cfg = write_json(scratch(), "dense.json", c);
  const fs::path rec = scratch() / "dense_run.json";
  REQUIRE(run_cli(scratch(), fmt::format("run '{}' -q -o '{}'", cfg.string(), rec.string())).code == 0);
  const json record = read_json(rec);
  REQUIRE(record["chains"][0]["state"]["sampler"]["factor"].size() == 3);
  CHECK(run_cli(scratch(), fmt::format("resume '{}' --steps 10 -q -o '{}'", rec.string(), (scratch() / "dense_ok.json").string())).code == 0);
  refused(record, "factor_edited", [](json& r) { r["chains"][0]["state"]["sampler"]["factor"][1][0] = 0.5; },
          "/chains/0/state/sampler", "factor: not the factor the warm-up's collected draws give");
  refused(record, "m2_edited", [](json& r) {
    auto& v = r["chains"][1]["state"]["sampler"]["draw_m2"][0][0];
    v = v.get<double>() * 4;
  }, "/chains/1/state/sampler", "the factor or the warm-up's sums were edited");
  refused(record, "factor_upper", [](json& r) { r["chains"][1]["state"]["sampler"]["factor"][0][2] = 0.5; },
          "/chains/1/state/sampler/factor", "expected a lower triangular matrix");
}

}  // namespace test_cli_resume_checks
