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

bool fifo_at(const fs::path& p) {
  struct ::stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

TEST_CASE("an output that is a FIFO, a folder or a link to a FIFO is refused and left as it was") {
  // Catches: the rename that makes an output appear replacing a FIFO or device node with a regular file
  // (as root, `-o /dev/null` turned the system's /dev/null into a file), the check made only on the -o
  // path and not on a format's own files (BASE_1.csv), and a message that does not name the path.
  const json config = {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                       {"target", {{"name", "gaussian"}, {"mean", {0, 0}}}},
                       {"steps", 200}, {"burn_in", 100}, {"chains", 1}, {"seed", 1}};
  const auto cfg = sgmcmc_test::cli::write_json(scratch(), "c.json", config);
  const fs::path fifo = scratch() / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Result r = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), fifo.string()));
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.err.find(fifo.string() + ": exists and is a FIFO: an output only replaces a regular file") != std::string::npos, r.err);
  CHECK(fifo_at(fifo));

  const fs::path link = scratch() / "link.json";
  fs::create_symlink(fifo, link);
  const Result l = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), link.string()));
  CHECK(l.code == 1);
  CHECK(l.err.find("link.json: exists and is a FIFO") != std::string::npos);
  CHECK(fs::is_symlink(link));
  CHECK(fifo_at(fifo));

  const fs::path folder = scratch() / "folder.json";
  fs::create_directory(folder);
  const Result d = sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), folder.string()));
  CHECK(d.code == 1);
  CHECK(d.err.find("folder.json: exists and is a folder") != std::string::npos);
  CHECK(fs::is_directory(folder));

  // A format's own file: -o r.json is free, r_1.csv is a FIFO.
  const fs::path csv = scratch() / "r_1.csv";
  REQUIRE(::mkfifo(csv.c_str(), 0600) == 0);
  const Result c = sgmcmc(fmt::format("run -q '{}' -o '{}' --format json,csv", cfg.string(), (scratch() / "r.json").string()));
  CHECK(c.code == 1);
  CHECK_MESSAGE(c.err.find("r_1.csv: exists and is a FIFO") != std::string::npos, c.err);
  CHECK(fifo_at(csv));
  // A regular file and a symlink to one are still replaced as before.
  const fs::path regular = scratch() / "regular.json";
  sgmcmc_test::cli::write_json(scratch(), "regular.json", json::object());
  fs::create_symlink(regular, scratch() / "to_regular.json");
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), regular.string())).code == 0);
  CHECK(sgmcmc(fmt::format("run -q '{}' -o '{}'", cfg.string(), (scratch() / "to_regular.json").string())).code == 0);
}

}  // namespace test_cli_special_outputs
