// Outputs never replace what is not a regular file (issue #40): a FIFO, a folder or a symlink to a FIFO
// named as an output is refused, naming the path, and left as it was — by the -o check before a run
// and by every output file's AtomicFile (a format's own files included).
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

namespace test_cli_special_outputs {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace fs = std::filesystem;
using sgmcmc_test::cli::json;
using sgmcmc_test::cli::Result;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_special_outputs_scratch");
  return dir;
}
Result sgmcmc(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }

/// A run of a second, written as `name` in the scratch folder.
fs::path small_config(const std::string& name) {
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                       {"steps", 200}, {"burn_in", 100}, {"chains", 1}, {"seed", 1}};
  return sgmcmc_test::cli::write_json(scratch(), name, config);
}

bool fifo_at(const fs::path& p) {
  struct ::stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

TEST_CASE("an output that is a FIFO, a folder or a link to a FIFO is refused and left as it was; a replaced file keeps its permissions") {
  // Catches: an output that widened a replaced file's permissions (a 0600 record became 0644, in every
  // format: the JSON record, Stan CSV, NetCDF, whose temporary netCDF rewrites by name), the rename that makes an output appear replacing a FIFO or device node with a regular file
  // (as root, `-o /dev/null` turned the system's /dev/null into a file), the check made only on the -o
  // path and not on a format's own files (BASE_1.csv), and a message that does not name the path.
  const auto cfg = small_config("c.json");
  const fs::path fifo = scratch() / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), fifo.string()));
  CHECK(r.code == 2);  // a bad command line, found before the run
  CHECK_MESSAGE(r.err.find("-o " + fifo.string() + ": exists and is a FIFO: an output only replaces a regular file") != std::string::npos, r.err);
  CHECK(fifo_at(fifo));

  const fs::path link = scratch() / "link.json";
  fs::create_symlink(fifo, link);
  const Result l = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), link.string()));
  CHECK(l.code == 2);
  CHECK(l.err.find("link.json: exists and is a FIFO") != std::string::npos);
  CHECK(fs::is_symlink(link));
  CHECK(fifo_at(fifo));

  const fs::path folder = scratch() / "folder.json";
  fs::create_directory(folder);
  const Result d = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), folder.string()));
  CHECK(d.code == 2);
  for (const std::string& other : {fmt::format("thin '{}' --to 5 -o '{}'", cfg.string(), fifo.string()),
                                   fmt::format("convert '{}' --format csv -o '{}'", cfg.string(), fifo.string()),
                                   fmt::format("resume '{}' -o '{}'", cfg.string(), fifo.string()),
                                   fmt::format("sweep '{}' --reference '{}' -o x.json --svg '{}'", cfg.string(), cfg.string(), fifo.string())}) {
    const Result o = sgmcmc(other);
    CHECK_MESSAGE(o.code == 2, other, ": ", o.err);
    CHECK_MESSAGE(o.err.find("exists and is a FIFO") != std::string::npos, other, ": ", o.err);
  }
  CHECK(fifo_at(fifo));
  CHECK(d.err.find("folder.json: exists and is a folder") != std::string::npos);
  CHECK(fs::is_directory(folder));

  // A format's own file: -o r.json is free, r_1.csv is a FIFO.
  const fs::path csv = scratch() / "r_1.csv";
  REQUIRE(::mkfifo(csv.c_str(), 0600) == 0);
  const Result c = sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv", cfg.string(), (scratch() / "r.json").string()));
  CHECK(c.code == 2);  // found with -o, before the config is read (tests/cli/test_cli_output_sets.cpp)
  CHECK_MESSAGE(c.err.find("r_1.csv: exists and is a FIFO") != std::string::npos, c.err);
  CHECK(fifo_at(csv));
  // A regular file and a symlink to one are still replaced as before.
  const fs::path regular = scratch() / "regular.json";
  sgmcmc_test::cli::write_json(scratch(), "regular.json", json::object());
  fs::create_symlink(regular, scratch() / "to_regular.json");
  fs::permissions(regular, fs::perms::owner_read | fs::perms::owner_write);  // 0600: a private record
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv,netcdf", cfg.string(), regular.string())).code == 0);
  CHECK(fs::status(regular).permissions() == (fs::perms::owner_read | fs::perms::owner_write));  // kept, not widened
  fs::permissions(scratch() / "regular_1.csv", fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(scratch() / "regular.nc", fs::perms::owner_read);
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv,netcdf", cfg.string(), regular.string())).code == 0);
  CHECK(fs::status(scratch() / "regular_1.csv").permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(fs::status(scratch() / "regular.nc").permissions() == fs::perms::owner_read);
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), (scratch() / "to_regular.json").string())).code == 0);
}

TEST_CASE("every command refuses an output that is one of its inputs or another output, and leaves the input as it was") {
  // Catches: thin -o RUN, convert -o RUN, resume -o RUN, sweep -o CONFIG, sweep -o REFERENCE and --svg
  // equal to -o overwriting the command's own input (they did so silently, exit 0), a check fooled by
  // another spelling of the same path (./r.json) or by a symlink, and a refusal that is not a bad
  // command line (exit 2) or that reads or writes anything first.
  const auto cfg = small_config("overlap_config.json");
  const fs::path record = scratch() / "overlap_run.json";
  REQUIRE(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), record.string())).code == 0);
  const std::string before = sgmcmc_test::cli::slurp(record), config_before = sgmcmc_test::cli::slurp(cfg);
  const fs::path link = scratch() / "overlap_link.json";
  fs::create_symlink(record, link);
  const std::string dotted = (scratch() / "." / "overlap_run.json").string();
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {fmt::format("thin '{}' --to 5 -o '{}'", record.string(), record.string()), "that is the run record it thins (RUN)"},
      {fmt::format("convert '{}' --format json -o '{}'", record.string(), dotted), "that is the run record it converts (RUN)"},
      {fmt::format("resume '{}' --steps 10 -o '{}'", record.string(), link.string()), "that is the run record it continues (RUN)"},
      {fmt::format("run -q '{}' -o '{}'", cfg.string(), cfg.string()), "that is the config file"},
      {fmt::format("sweep '{}' --reference '{}' -o '{}'", cfg.string(), record.string(), cfg.string()), "that is the sweep's config (CONFIG)"},
      {fmt::format("sweep '{}' --reference '{}' -o '{}'", cfg.string(), record.string(), record.string()), "that is a --reference file"},
      {fmt::format("sweep '{}' --reference '{}' -o '{}' --svg '{}'", cfg.string(), record.string(), (scratch() / "s.json").string(),
                   (scratch() / "s.json").string()),
       "--svg " + (scratch() / "s.json").string() + ": that is -o too"},
  };
  for (const Case& c : cases) {
    const Result r = sgmcmc(c.args);
    CHECK_MESSAGE(r.code == 2, c.args, ": ", r.err);
    CHECK_MESSAGE(r.err.find(c.message) != std::string::npos, c.args, ": ", r.err);
  }
  CHECK(sgmcmc_test::cli::slurp(record) == before);
  CHECK(sgmcmc_test::cli::slurp(cfg) == config_before);
  CHECK_FALSE(fs::exists(scratch() / "s.json"));
}

}  // namespace test_cli_special_outputs
