// Resume sees what changed in the data (issue #40 item 2): a record keeps each data file's size, hash
// and example count (`data_files`), a relative data path is relative to the record's own folder, and
// a SAGA chain's saved sum must be its table's. Before: an edited CSV resumed with status ok (a chain's
// mean moved from 1.85 to −1.38), a relative path was read from wherever `resume` was started, and one
// edited number of saga_sum biased the chain for good (mean −116 instead of 1.75), exit 0.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace test_cli_resume_data {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc_test::cli;

namespace {

fs::path scratch() {
  static const fs::path dir = scratch_dir("cli_resume_data_scratch");
  return dir;
}

// 200 examples of (intercept, x, label) with a header row; `shift` changes one number of the last row.
void write_csv(const fs::path& p, double shift = 0.0) {
  std::ofstream out(p);
  out << "intercept,x,label\n";
  for (int i = 0; i < 200; ++i) {
    const double x = -2.0 + 0.02 * i + (i == 199 ? shift : 0.0);
    out << fmt::format("1,{},{}\n", x, (i * 7919 % 13) < 6 + 0.05 * i ? 1 : 0);
  }
}

json logistic(const std::string& data, const char* estimator = "minibatch") {
  return {{"sampler", {{"name", "sgld"}, {"step_size", 1e-3}}},
          {"target", {{"name", "logistic"}, {"data", data}, {"batch_size", 20}, {"estimator", estimator}}},
          {"steps", 200}, {"thin", 10}, {"chains", 2}, {"seed", 8}};
}

}  // namespace

TEST_CASE("resume: a data file changed since the run was written is refused, naming it; --allow-changed notes it") {
  const fs::path dir = scratch() / "changed";
  fs::create_directories(dir);
  write_csv(dir / "d.csv");
  const fs::path cfg = write_json(dir, "c.json", logistic((dir / "d.csv").string()));
  REQUIRE(run_cli(dir, fmt::format("run '{}' -q -o '{}'", cfg.string(), (dir / "r.json").string())).code == 0);
  const json record = read_json(dir / "r.json");
  REQUIRE(record["data_files"].size() == 1);
  CHECK(record["data_files"][0]["pointer"] == "/target/data");
  CHECK(record["data_files"][0]["bytes"] == fs::file_size(dir / "d.csv"));
  CHECK(record["data_files"][0]["examples"] == 200);
  CHECK(record["data_files"][0]["hash"].get<std::string>().starts_with("fnv1a64:"));
  // The same file resumes.
  CHECK(run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", (dir / "r.json").string(), (dir / "ok.json").string())).code == 0);

  write_csv(dir / "d.csv", 0.5);  // one number edited, same size class
  write_json(dir, "out.json", json{{"keep", "me"}});
  const Result r = run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", (dir / "r.json").string(), (dir / "out.json").string()));
  CAPTURE(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("/data_files/0: data file") != std::string::npos);
  CHECK(r.err.find("d.csv") != std::string::npos);
  CHECK(r.err.find("is not the file the run read") != std::string::npos);
  CHECK(read_json(dir / "out.json") == json{{"keep", "me"}});

  const Result allowed = run_cli(dir, fmt::format("resume '{}' --steps 10 -q --allow-changed -o '{}'", (dir / "r.json").string(),
                                                  (dir / "allowed.json").string()));
  CAPTURE(allowed.err);
  REQUIRE(allowed.code == 0);
  const json resumed = read_json(dir / "allowed.json");
  CHECK(resumed["timings"]["phases"].back()["data_changed"] == true);
  CHECK_FALSE(resumed["timings"]["phases"].back().contains("config_changed"));
  // The resumed record holds the file as it is now: it resumes again without the flag.
  CHECK(run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", (dir / "allowed.json").string(), (dir / "again.json").string()))
            .code == 0);

  // A record that does not say which file it read (written before data_files, or the field deleted).
  json bare = record;
  bare.erase("data_files");
  write_csv(dir / "d.csv");
  const fs::path bare_path = write_json(dir, "bare.json", bare);
  const Result b = run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", bare_path.string(), (dir / "out.json").string()));
  CHECK(b.code == 1);
  CHECK(b.err.find("/data_files: required field is missing") != std::string::npos);
}

TEST_CASE("resume: a relative data path is relative to the record's folder, from any working directory") {
  // The run starts in `project/` with "data/d.csv" and writes `project/out/r.json`: the record says
  // "../data/d.csv". A resume started elsewhere finds the same file, and continues with the draws of
  // one uninterrupted run.
  const fs::path project = scratch() / "project";
  fs::create_directories(project / "data");
  fs::create_directories(project / "out");
  write_csv(project / "data" / "d.csv");
  json c = logistic("data/d.csv");
  const fs::path half = write_json(project, "half.json", c);
  c["steps"] = 400;
  const fs::path whole = write_json(project, "whole.json", c);
  REQUIRE(run_cli_in(project, "run half.json -q -o out/r.json").code == 0);
  REQUIRE(run_cli_in(project, "run whole.json -q -o out/whole.json").code == 0);
  const json record = read_json(project / "out" / "r.json");
  CHECK(record["config"]["target"]["data"] == "../data/d.csv");
  // A decoy where the old rule (the working directory) would have looked.
  fs::create_directories(scratch() / "data");
  write_csv(scratch() / "data" / "d.csv", 1.0);
  const Result r = run_cli_in(scratch(), fmt::format("resume '{}' --steps 200 -q -o '{}'", (project / "out" / "r.json").string(),
                                                  (scratch() / "resumed.json").string()));
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const json resumed = read_json(scratch() / "resumed.json");
  // Written to another folder, the path is relative to that one.
  CHECK(resumed["config"]["target"]["data"] == "project/data/d.csv");
  const json uninterrupted = read_json(project / "out" / "whole.json");
  for (int i = 0; i < 2; ++i) CHECK(resumed["chains"][i]["samples"] == uninterrupted["chains"][i]["samples"]);
  // convert reads it from the record's folder too, and writes it relative to its own output.
  const Result conv = run_cli_in(scratch() / "data", fmt::format("convert '{}' --format json -o '{}'", (project / "out" / "r.json").string(),
                                                              (scratch() / "conv.json").string()));
  CAPTURE(conv.err);
  REQUIRE(conv.code == 0);
  const json converted = read_json(scratch() / "conv.json");
  CHECK(converted["config"]["target"]["data"] == "project/data/d.csv");
  CHECK(run_cli_in(project, fmt::format("resume '{}' --steps 10 -q -o '{}'", (scratch() / "conv.json").string(),
                                     (scratch() / "conv_resumed.json").string())).code == 0);
}

TEST_CASE("resume, convert and thin refuse an output that is the record's data file") {
  // Catches (issue #40 item 1): the data file is an input of these commands too, known only once the
  // record's config is read; `resume -o DATA` replaced the CSV the run was made on with a record.
  const fs::path dir = scratch() / "overlap";
  fs::create_directories(dir);
  // The data file without an ending: -o names it exactly (an ending such as .csv would name BASE_1.csv).
  write_csv(dir / "examples");
  const std::string before = slurp(dir / "examples");
  const fs::path cfg = write_json(dir, "c.json", logistic((dir / "examples").string()));
  REQUIRE(run_cli(dir, fmt::format("run '{}' -q -o '{}'", cfg.string(), (dir / "r.json").string())).code == 0);
  const std::string rec = (dir / "r.json").string(), data = (dir / "examples").string();
  for (const std::string& args : {fmt::format("resume '{}' --steps 10 -q -o '{}'", rec, data),
                                  fmt::format("convert '{}' --format json -o '{}'", rec, data),
                                  fmt::format("thin '{}' --to 5 -o '{}'", rec, data)}) {
    CAPTURE(args);
    const Result r = run_cli(dir, args);
    CAPTURE(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("that is the data file the record's config names (/target/data)") != std::string::npos);
    CHECK(slurp(dir / "examples") == before);
  }
}

TEST_CASE("resume: a saga chain's saved sum must be its table's") {
  const fs::path dir = scratch() / "saga";
  fs::create_directories(dir);
  write_csv(dir / "d.csv");
  const fs::path cfg = write_json(dir, "c.json", logistic((dir / "d.csv").string(), "saga"));
  REQUIRE(run_cli(dir, fmt::format("run '{}' -q -o '{}'", cfg.string(), (dir / "r.json").string())).code == 0);
  json record = read_json(dir / "r.json");
  REQUIRE(record["chains"][0]["state"]["target"]["saga_sum"].size() == 2);
  CHECK(run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", (dir / "r.json").string(), (dir / "ok.json").string())).code == 0);
  for (const char* field : {"saga_sum", "saga_table"}) {
    json bad = record;
    auto& v = bad["chains"][1]["state"]["target"][field][1];
    v = v.get<double>() + 1.0;
    const fs::path in = write_json(dir, std::string(field) + ".json", bad);
    const Result r = run_cli(dir, fmt::format("resume '{}' --steps 10 -q -o '{}'", in.string(), (dir / "bad.json").string()));
    CAPTURE(field);
    CAPTURE(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("/chains/1/state/target/saga_sum/") != std::string::npos);
    CHECK(r.err.find("the table or its sum was edited") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "bad.json"));
  }
}

}  // namespace test_cli_resume_data
