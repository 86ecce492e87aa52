// Output formats are registered like samplers, targets and manifolds (run/output/formats.hpp): the
// registry refuses a name twice, `--format`'s check, help and errors come from it, and a user's own
// format (examples/custom_cli/table_format.hpp) registered beside the shipped ones writes its file.
#include <doctest/doctest.h>

#include "../support/cli.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/run/runner.hpp>

#include "../../examples/custom_cli/table_format.hpp"

namespace test_cli_format_registry {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using json = nlohmann::json;
namespace fs = std::filesystem;
namespace output = sgmcmc::run::output;

namespace {

using sgmcmc_test::cli::Result;

fs::path scratch() {
  static const fs::path dir = sgmcmc_test::cli::scratch_dir("cli_format_registry_scratch");
  return dir;
}
Result cli(const std::string& args) { return sgmcmc_test::cli::run_cli(scratch(), args); }

/// A format that writes nothing, under `names`.
output::FormatEntry dummy(std::vector<std::string> names) {
  return {std::move(names), "a test format", "BASE.dummy",
          [](const output::OutputPath& out) { return std::make_unique<user::TableWriter>(out.base + ".dummy"); }};
}

/// The message of the sgmcmc::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const sgmcmc::Error& e) {
    return e.what();
  }
  return "";
}

/// Runs `config` with the formats `chosen` of `formats` writing at `out`; returns the writers' files.
std::vector<std::string> run_with(const output::Formats& formats, const json& config, const fs::path& out,
                                  const std::vector<std::string>& chosen) {
  auto made = formats.writers(out.string(), chosen);
  std::vector<output::Writer*> writers;
  for (auto& w : made) writers.push_back(w.get());
  sgmcmc::run::Options opt;
  opt.threads = 1;
  sgmcmc::run::run(config, opt, sgmcmc::run::shipped_registry(), writers);
  std::vector<std::string> files;
  for (const auto& w : made)
    for (const auto& f : w->files()) files.push_back(f);
  return files;
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

TEST_CASE("the format registry: the shipped formats in order, names refused twice or unselectable") {
  // Catches: a shipped format not registered (or under another name), a second entry silently
  // shadowing the first ("json" twice: which writer runs?), an alias that collides with a name, a
  // name --format could never select (it splits at commas), an entry without a writer.
  output::Formats formats = output::builtin_formats();
  // The first three, in this order ("json" first: --format's default); formats shipped later follow.
  const std::vector<std::string> names = formats.names();
  REQUIRE(names.size() >= 3);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 3) == std::vector<std::string>{"json", "csv", "netcdf"});
  CHECK(formats.names_text().starts_with("json, csv, netcdf"));
  const std::string shipped = formats.names_text();
  REQUIRE(formats.find("csv") != nullptr);
  CHECK(formats.find("csv")->files.find("BASE_1.csv") != std::string::npos);
  CHECK(formats.find("xml") == nullptr);

  CHECK(error_of([&] { formats.add(output::json_record_format()); }) == "output formats: format name 'json' is registered twice");
  CHECK(error_of([&] { formats.add(dummy({"table", "csv"})); }) == "output formats: format name 'csv' is registered twice");
  CHECK(error_of([&] { formats.add(dummy({"a,b"})); }).find("cannot be a format name") != std::string::npos);
  CHECK(error_of([&] { formats.add(dummy({""})); }).find("cannot be a format name") != std::string::npos);
  CHECK(error_of([&] { formats.add(dummy({})); }) == "output formats: a format entry needs a name");
  output::FormatEntry no_writer = dummy({"nowriter"});
  no_writer.make = nullptr;
  CHECK(error_of([&] { formats.add(no_writer); }) == "output formats: format 'nowriter' has no writer (make)");
  CHECK(formats.names() == names);  // nothing refused was added

  formats.add(dummy({"dummy", "dm"}));
  CHECK(formats.find("dm") == &formats.entries().back());
  CHECK(error_of([&] { (void)formats.at("xml"); }) == "unknown output format 'xml' (registered: " + shipped + ", dummy, dm)");
  const std::string r = (scratch() / "r.json").string();
  CHECK(error_of([&] { (void)formats.writers(r, {"json", "xml"}); }).find("unknown output format 'xml'") != std::string::npos);
  CHECK(formats.writers("", {"json", "csv"}).empty());         // no -o: nothing to write
  CHECK(formats.writers(r, {"dummy", "dm", "dummy"}).size() == 1);  // one format chosen thrice writes once
}

TEST_CASE("output paths: BASE is the -o path without a format's ending, as the shipped formats name their files") {
  // Catches: the naming rule of `-o r.json --format csv` (r_1.csv) changed by the registry.
  CHECK(output::OutputPath("r.json").base == "r");
  CHECK(output::OutputPath("r.json").path == "r.json");
  CHECK(output::OutputPath("out/r.run.json").base == "out/r.run");
  CHECK(output::OutputPath("r").base == "r");
  CHECK(output::OutputPath("r.jsonl").base == "r.jsonl");
  // With the registered endings (issue #34 item 7): -o r.csv or r.nc names BASE r, as CmdStan's
  // `output file=r.csv` gives r_1.csv and ArviZ's users expect r.nc; the record is then r.json.
  const output::Formats formats = output::builtin_formats();
  CHECK(formats.endings() == std::vector<std::string>{".json", ".csv", ".nc"});
  CHECK(formats.output_path("r.csv").base == "r");
  CHECK(formats.output_path("r.csv").path == "r.json");
  CHECK(formats.output_path("out/r.nc").base == "out/r");
  CHECK(formats.output_path("out/r.nc").path == "out/r.json");
  CHECK(formats.output_path("r.json").path == "r.json");
  CHECK(formats.output_path("r").path == "r");
  CHECK(formats.output_path(".csv").base == ".csv");  // an ending alone is a name, not an ending
  CHECK(formats.format_of("r.nc") == "netcdf");
  CHECK(formats.format_of("r.csv") == "csv");
  CHECK(formats.format_of("r.json") == "json");
  CHECK(formats.format_of("r.txt").empty());
  const auto made = formats.writers((scratch() / "r.json").string(), {"json", "netcdf"});  // (NetCDF's temporary: made now)
  REQUIRE(made.size() == 2);
  CHECK(made[0]->files() == std::vector<std::string>{(scratch() / "r.json").string()});
  CHECK(made[1]->files() == std::vector<std::string>{(scratch() / "r.nc").string()});
}

TEST_CASE("--format on the command line: an unknown name is a bad command line naming the registered formats") {
  // Catches: an unknown format silently ignored or reported without the choices, a check that sees only
  // the first of several comma-separated names, convert or thin with a list of their own.
  const std::string shipped = output::builtin_formats().names_text();  // the tool registers the shipped formats
  for (const char* args : {"run -q --format xml -o x.json", "run -q --format json,xml -o x.json", "convert r.json --format xml -o out",
                           "thin r.json --to 5 --format xml -o out", "resume r.json -o out --format xml"}) {
    const Result r = cli(args);
    CHECK_MESSAGE(r.code == 2, args);
    CHECK_MESSAGE(r.err.find("unknown output format 'xml' (registered: " + shipped + ")") != std::string::npos, args, ": ", r.err);
  }
  CHECK_FALSE(fs::exists(scratch() / "x.json"));
  // The help lists every registered format with what it writes; `list` names them too.
  const Result help = cli("run --help");
  REQUIRE(help.code == 0);
  CHECK(help.out.find("one or several of " + shipped + " (default json") != std::string::npos);
  for (const char* text : {"Output formats", "json ", "the JSON run record", "Stan CSV", "BASE_1.csv", "netcdf ", "BASE.nc"})
    CHECK_MESSAGE(help.out.find(text) != std::string::npos, text, " not in:\n", help.out);
  CHECK(cli("convert --help").out.find("BASE.nc") != std::string::npos);
  const Result listed = cli("list");
  REQUIRE(listed.code == 0);
  const auto at = listed.out.find("output formats:");
  REQUIRE(at != std::string::npos);
  for (const char* name : {"json", "csv", "netcdf"}) CHECK_MESSAGE(listed.out.find(name, at) != std::string::npos, name);
}

TEST_CASE("a user's format registered beside the shipped ones writes its file: the draws table of examples/custom_cli") {
  // Catches: a registered format whose writer is never made or never finished (no file), a table that
  // drops, repeats or misplaces draws (each line against the JSON record's draw, to the bit), the
  // header's names out of the flattened (column-major) order of a matrix draw.
  output::Formats formats = output::builtin_formats();
  formats.add(user::table_format());
  CHECK(formats.names_text() == output::builtin_formats().names_text() + ", table");

  const json config = {{"sampler", {{"name", "hmc"}, {"step_size", 0.3}, {"leapfrog_steps", 5}}},
                       {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
                       {"target", {{"name", "gaussian"}, {"mean", {1, -1}}, {"cov", {{1, 0.5}, {0.5, 2}}}}},
                       {"steps", 250}, {"burn_in", 50}, {"thin", 2}, {"chains", 2}, {"seed", 5}};
  const fs::path out = scratch() / "user.run.json";
  const auto files = run_with(formats, config, out, {"json", "table"});
  CHECK(files == std::vector<std::string>{out.string(), (scratch() / "user.run.txt").string()});
  const json record = sgmcmc_test::cli::read_json(out);
  const auto lines = lines_of(scratch() / "user.run.txt");
  REQUIRE(lines.size() == 1 + 2 * 100);
  CHECK(lines[0] == "chain draw x.1 x.2");
  std::vector<std::size_t> seen(2, 0);
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const auto w = words_of(lines[k]);
    REQUIRE(w.size() == 4);
    const auto chain = std::stoul(w[0]), draw = std::stoul(w[1]);
    REQUIRE(chain < 2);
    CHECK(draw == seen[chain]++);  // each chain's draws in order, none skipped
    const auto& sample = record["chains"][chain]["samples"][draw];
    CHECK(std::strtod(w[2].c_str(), nullptr) == sample[0].get<double>());
    CHECK(std::strtod(w[3].c_str(), nullptr) == sample[1].get<double>());
  }
  CHECK(seen == std::vector<std::size_t>{100, 100});

  // A matrix manifold: Stan's x.i.j names, column-major as the draws are flattened.
  const json stiefel = {{"sampler", {{"name", "sgld"}, {"step_size", 0.01}}},
                        {"manifold", {{"name", "stiefel"}, {"n", 3}, {"p", 2}}},
                        {"target", {{"name", "uniform"}}},
                        {"steps", 20}, {"burn_in", 10}, {"chains", 1}, {"seed", 1}};
  run_with(formats, stiefel, scratch() / "stiefel", {"table"});
  const auto matrix_lines = lines_of(scratch() / "stiefel.txt");
  REQUIRE(matrix_lines.size() == 1 + 10);
  CHECK(matrix_lines[0] == "chain draw x.1.1 x.2.1 x.3.1 x.1.2 x.2.2 x.3.2");
  CHECK(words_of(matrix_lines[1]).size() == 8);
}

}  // namespace test_cli_format_registry
