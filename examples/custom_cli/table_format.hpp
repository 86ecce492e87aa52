#pragma once
// The user's own output format for examples/custom_cli: "table", a plain-text draws table any tool
// reads (R's read.table(header = TRUE), pandas.read_csv(sep=r"\s+"), awk). One header line, then one
// line per kept draw, whitespace-separated:
//
//   chain draw x.1.1 x.2.1 x.3.1 x.1.2 x.2.2 x.3.2
//   0 0 0.0839 -0.1446 0.9859 0.3316 0.2195 0.9175
//   ...
//
// `chain` and `draw` count from 0 (as the JSON record's chains[i] and the NetCDF coordinates do);
// the coordinates are named as Stan names them (run::output::stan_names: x.i.j, or the run's own
// parameter names). Lines of different
// chains may interleave (the run hands the draws over in rounds); each line says whose draw it is.
//
// A format is a Writer (run/output/writer.hpp: begin, append, finish, files) and a FormatEntry (its
// name, a line for --help, the files it writes, how to make its writer). One line registers it in the
// user's CLI (custom_cli.cpp): `program.formats.add(user::table_format());`.
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace user {

namespace output = sgmcmc::run::output;

/// Streams a run's draws to `path` as a whitespace-separated table. The file appears whole at
/// `finish` (run::AtomicFile), or not at all if the run fails before it.
class TableWriter final : public output::Writer {
 public:
  explicit TableWriter(std::string path) : file_(std::move(path)) {}

  void begin(const output::RunHeader& header) override {
    std::string line = "chain draw";
    for (const auto& name : output::stan_names(header.parameters)) line += ' ' + name;
    file_.write(line + '\n');
    next_draw_.assign(header.chains, 0);
  }

  void append(const output::DrawBlock& all) override {
    const output::DrawBlock block = all.sampling();  // the draws after the burn-in (not the warm-up's, with save_warmup)
    std::string text;
    for (std::size_t i = 0; i < block.rows(); ++i) {
      fmt::format_to(std::back_inserter(text), "{} {}", block.chain, next_draw_.at(block.chain)++);
      for (double v : block.row(i)) fmt::format_to(std::back_inserter(text), " {}", v);  // shortest round-trip digits
      text += '\n';
    }
    file_.write(text);
  }

  void finish(const output::json& /*record*/) override { file_.commit(); }

  std::vector<std::string> files() const override { return {file_.path()}; }

 private:
  sgmcmc::run::AtomicFile file_;
  std::vector<std::size_t> next_draw_;  ///< per chain: the index of its next draw
};

/// The format's registration: `--format table` writes BASE.txt (BASE: the -o path without ".json").
inline output::FormatEntry table_format() {
  return {{"table"}, "the draws as a plain-text table: chain, draw, then one column per coordinate", "BASE.txt",
          [](const output::OutputPath& out) { return std::make_unique<TableWriter>(out.base + ".txt"); }};
}

}  // namespace user
