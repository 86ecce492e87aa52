// Save and resume a run from C++ through the run layer (run/runner.hpp) and the compiled registry of
// shipped samplers and targets (link sgmcmc::run): run a JSON config, write its record to a file (and
// Stan CSV), resume the record from the file for more steps, and check that the resumed run equals one
// uninterrupted run of the total length bit for bit. Also shows the error story: a bad config is an
// sgmcmc::Error naming its JSON path. Exits 1 if anything differs or a chain reports an error.
// Usage: example_save_resume [DIRECTORY]   (default: a fresh directory under the system's temp dir)
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>
#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/runner.hpp>

using namespace sgmcmc;
using json = nlohmann::json;

namespace {

// SGGMC (SGHMC on the sphere S²) on a von Mises–Fisher target with noisy gradients, 2 chains
// (docs/config.md lists every field).
json config_with_steps(int steps) {
  json config = json::parse(R"({
    "sampler": {"name": "sghmc", "step_size": 0.05, "friction": 1.0, "noise_estimate": 1.0},
    "manifold": {"name": "sphere", "n": 3},
    "target": {"name": "vmf", "mu": [0, 0, 1], "kappa": 5, "grad_noise": 1.0},
    "burn_in": 500, "thin": 5, "chains": 2, "seed": 7, "log_density": true
  })");
  config["steps"] = steps;
  return config;
}

// A record's status and each chain's: a chain that diverged does not throw; its record says "error".
bool all_ok(const json& record, const char* what) {
  if (record["status"] == "ok") return true;
  std::printf("%s: status %s\n", what, record["status"].get<std::string>().c_str());
  for (const json& chain : record["chains"])
    if (chain.contains("error")) std::printf("  %s\n", chain["error"].get<std::string>().c_str());
  return false;
}

int run_example(const std::filesystem::path& dir) {
  const run::Options options{.threads = 2};
  const run::Registry& registry = run::shipped_registry();  // compiled once, in libsgmcmc_run

  // 1. The first 3000 steps, streamed to the JSON record and Stan CSV files (written whole at the end).
  const std::string record_path = (dir / "first.json").string();
  run::output::JsonRecordWriter record_file(record_path);
  run::output::StanCsvWriter csv_files((dir / "first").string());  // first_1.csv, first_2.csv
  run::output::Writer* writers[] = {&record_file, &csv_files};
  const json first = run::run(config_with_steps(3000), options, registry, writers);
  if (!all_ok(first, "first run")) return 1;
  std::printf("ran 3000 steps: %s, %s, %s\n", record_path.c_str(), csv_files.files()[0].c_str(),
              csv_files.files()[1].c_str());

  // 2. Resume the record in the file for 2000 more steps per chain, into a new record file.
  const std::string resumed_path = (dir / "resumed.json").string();
  run::output::JsonRecordWriter resumed_file(resumed_path);
  run::output::Writer* resumed_writers[] = {&resumed_file};
  const json resumed_summary = run::resume_file(record_path, 2000, options, registry, resumed_writers);
  if (!all_ok(resumed_summary, "resumed run")) return 1;
  std::printf("resumed for 2000 more steps: %s\n", resumed_path.c_str());

  // 3. One uninterrupted run of 5000 steps, in memory (the whole record, draws included).
  const json uninterrupted = run::run(config_with_steps(5000), options, registry);
  if (!all_ok(uninterrupted, "uninterrupted run")) return 1;

  // The draws, their statistics (lp included) and the chains' final states must be the same doubles:
  // the record writes each number with the shortest digits that read back to the same double.
  std::ifstream in(resumed_path);
  const json resumed = json::parse(in);
  bool exact = true;
  for (std::size_t i = 0; i < 2; ++i) {
    const json &a = resumed["chains"][i], &b = uninterrupted["chains"][i];
    exact = exact && a["samples"] == b["samples"] && a["sample_stats"] == b["sample_stats"] && a["state"] == b["state"];
    std::printf("chain %zu: %zu draws, last draw %s\n", i, a["samples"].size(), a["samples"].back().dump().c_str());
  }
  std::printf("resume exact: %s\n", exact ? "yes" : "NO");
  return exact ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? std::filesystem::path(argv[1])
                                             : std::filesystem::temp_directory_path() / "sgmcmc_save_resume_example";
  std::filesystem::create_directories(dir);

  // The error story: bad input, configuration or construction throws sgmcmc::Error, whose message
  // names the offending JSON path; nothing runs and nothing is written.
  json bad = config_with_steps(100);
  bad["sampler"]["friction"] = -1;
  try {
    (void)run::run(bad);
    std::printf("a negative friction was accepted\n");
    return 1;
  } catch (const Error& e) {
    std::printf("bad config refused: %s\n", e.what());
  }

  try {
    return run_example(dir);
  } catch (const Error& e) {  // e.g. a record file that cannot be written or read back
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
