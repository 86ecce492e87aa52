// Every format's own files (BASE_1.csv, BASE.nc, BASE_draws.csv) are checked as -o is (issue #40, item 1):
// not a FIFO, a folder or a device, not one of the command's inputs (config, record, data file) —
// a bad command line (exit 2) found before anything is read or sampled, naming both files.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace test_cli_format_files {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;
using sgmcmc_test::cli::json;
using sgmcmc_test::cli::Result;
using sgmcmc_test::cli::slurp;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_format_files_scratch");
  return dir;
}
Result sgmcmc(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }


bool fifo_is_there(const fs::path& p) {
  struct ::stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

TEST_CASE("a format's own file that is a FIFO or a folder, or one of the command's inputs, is a bad command line found first") {
  // Catches: BASE_1.csv or BASE.nc being a FIFO or a folder found only when the writer was made (exit 1,
  // after the config was read), and a format's own file that is the config, the record, a data file
  // or another input being overwritten (only -o was compared with the inputs).
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "own.json", sgmcmc_test::cli::sgld_gaussian_1d(200, 1));
  const fs::path fifo = scratch() / "own_out_1.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path out = scratch() / "own_out.json";
  const Result c = sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv", cfg.string(), out.string()));
  CHECK(c.code == 2);
  CHECK_MESSAGE(c.err.find("--format csv's file " + fifo.string() + ": exists and is a FIFO") != std::string::npos, c.err);
  CHECK_FALSE(fs::exists(out));
  fs::create_directory(scratch() / "own_out.nc");
  const fs::path record = scratch() / "own_record.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), record.string())).code == 0);
  for (const std::string& args : {fmt::format("run -q '{}' -o '{}' --format netcdf", cfg.string(), out.string()),
                                  fmt::format("convert '{}' --format netcdf -o '{}'", record.string(), out.string()),
                                  fmt::format("thin '{}' --to 3 --format json,netcdf -o '{}'", record.string(), out.string()),
                                  fmt::format("resume '{}' --format netcdf -o '{}'", record.string(), out.string())}) {
    const Result r = sgmcmc(args);
    CHECK_MESSAGE(r.code == 2, args, ": ", r.err);
    CHECK_MESSAGE(r.err.find("--format netcdf's file " + (scratch() / "own_out.nc").string() + ": exists and is a folder") != std::string::npos,
                  args, ": ", r.err);
  }
  CHECK(fifo_is_there(fifo));
  CHECK(fs::is_directory(scratch() / "own_out.nc"));

  // Inputs: the config named like BASE_1.csv, the record like BASE.nc, a data file like BASE_draws.csv.
  const auto cfg_csv = sgmcmc_test::cli::write_json(scratch(), "in_1.csv", sgmcmc_test::cli::sgld_gaussian_1d(200, 1));
  const std::string cfg_text = slurp(cfg_csv);
  const Result a = sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv", cfg_csv.string(), (scratch() / "in.json").string()));
  CHECK(a.code == 2);
  CHECK_MESSAGE(a.err.find("--format csv's file " + cfg_csv.string() + ": that is the config file") != std::string::npos, a.err);
  CHECK(slurp(cfg_csv) == cfg_text);
  const fs::path record_nc = scratch() / "rec.nc";
  fs::copy_file(record, record_nc);
  const std::string record_text = slurp(record_nc);
  const Result b = sgmcmc(fmt::format("convert '{}' --format netcdf -o '{}'", record_nc.string(), (scratch() / "rec").string()));
  CHECK(b.code == 2);
  CHECK_MESSAGE(b.err.find("that is the run record it converts (RUN)") != std::string::npos, b.err);
  CHECK(slurp(record_nc) == record_text);
  const fs::path data = scratch() / "d_draws.csv";
  std::ofstream(data) << "x1,x2,y\n0.5,1,1\n-0.5,2,0\n";
  const json logistic = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
                         {"target", {{"name", "logistic"}, {"data", data.string()}}},
                         {"steps", 20}, {"chains", 1}, {"seed", 1}};
  const auto lcfg = sgmcmc_test::cli::write_json(scratch(), "logistic.json", logistic);
  const Result d = sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,draws_csv", lcfg.string(), (scratch() / "d").string()));
  CHECK(d.code == 2);
  CHECK_MESSAGE(d.err.find("--format draws_csv's file " + data.string() + ": that is the data file of the config's /target/data") !=
                    std::string::npos,
                d.err);
  CHECK(slurp(data) == "x1,x2,y\n0.5,1,1\n-0.5,2,0\n");
  CHECK_FALSE(fs::exists(scratch() / "d"));
  // A FIFO that is another chain count's file (BASE_7.csv of a 2-chain run) is refused too: how many
  // chains there are is known only once the config is read.
  REQUIRE(::mkfifo((scratch() / "seven_7.csv").c_str(), 0600) == 0);
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}' --format csv", cfg.string(), (scratch() / "seven").string())).code == 2);
}

}  // namespace test_cli_format_files
