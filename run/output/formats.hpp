#pragma once
// The registry of output formats: one entry per format — its names, a line for --help, how its files
// are named from the command line's -o path, and how its Writer is made. The command line's `--format`
// (run, resume, convert, thin) accepts the registered names, and its help and errors list them.
// Adding a format is its own writer plus one registration line: the shipped ones are registered in
// run/output/builtin_formats.hpp, a user's own tool adds its own to `cli::Program::formats`
// (examples/custom_cli/table_format.hpp).
//
// Each shipped format's entry is a small function beside its writer (json_record_format in
// json_record.hpp, stan_csv_format in stan_csv.hpp, netcdf_format in netcdf.hpp): this header includes
// none of them, so a program built without a format's library simply does not register it.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::output {

/// Where a run's outputs go, from the command line's -o: `base`, -o without a format's file ending
/// (`endings`: the registered formats' FormatEntry::ending, ".json" by default), which the formats name
/// their files after, and `path`, where the JSON record goes: -o itself, or BASE.json when -o ends in
/// another format's ending. As CmdStan and ArviZ users expect: `-o r.json`, `-o r.csv`, `-o r.nc` and
/// `-o r` all give r_1.csv, r.nc; the record is r.json (`-o r`: r).
struct OutputPath {
  std::string path;
  std::string base;
  explicit OutputPath(std::string given, const std::vector<std::string>& endings = {".json"}) : path(std::move(given)), base(path) {
    for (const std::string& e : endings)
      if (!e.empty() && path.size() > e.size() && path.ends_with(e)) {
        base = path.substr(0, path.size() - e.size());
        if (e != ".json") path = base + ".json";
        break;
      }
  }
};

/// A registered output format.
struct FormatEntry {
  std::vector<std::string> names;  ///< the canonical name first, then aliases (what `--format` accepts)
  std::string summary;             ///< one line for --help and `list`
  std::string files;               ///< the files it writes, in terms of OUT (the -o path) and BASE (OUT without ".json")
  /// The writer of a run's outputs at `out`.
  std::function<std::unique_ptr<Writer>(const OutputPath& out)> make;
  /// The files it would write at `out`, as far as they are known before the run (the command line
  /// checks them before anything is read: none may be a FIFO, a folder or a device, nor one of the
  /// command's inputs). A format without it is checked when its writer makes its files.
  std::function<std::vector<std::string>(const OutputPath& out)> own_files = {};
  /// The file ending that marks -o as this format's (".csv"): stripped from -o to name BASE, and,
  /// without --format, the format that -o ending in it selects (the first registered with it). Empty: none.
  std::string ending = {};
};

/// The output formats a program knows, in registration order (the first is `--format`'s default).
class Formats {
 public:
  /// Registers `e`; throws Error for an entry without a name or a writer, a name that `--format`
  /// could not select (empty, or holding a comma or a space) or a name already registered.
  Formats& add(FormatEntry e) {
    if (e.names.empty()) throw Error("output formats: a format entry needs a name");
    if (!e.make) sgmcmc::fail("output formats: format '{}' has no writer (make)", e.names.front());
    for (const auto& n : e.names) {
      if (n.empty() || n.find_first_of(", \t\n") != std::string::npos)
        sgmcmc::fail("output formats: '{}' cannot be a format name (empty, or holding a comma or a space)", n);
      if (find(n) != nullptr) sgmcmc::fail("output formats: format name '{}' is registered twice", n);
    }
    entries_.push_back(std::move(e));
    return *this;
  }

  /// The entry named `name` (canonical or alias), or null.
  const FormatEntry* find(std::string_view name) const {
    for (const auto& e : entries_)
      for (const auto& n : e.names)
        if (n == name) return &e;
    return nullptr;
  }

  /// The entry named `name`; throws Error listing the registered names when there is none.
  const FormatEntry& at(std::string_view name) const {
    if (const FormatEntry* e = find(name)) return *e;
    sgmcmc::fail("{}", unknown(name));
  }

  /// "unknown output format 'NAME' (registered: json, csv, netcdf)".
  std::string unknown(std::string_view name) const {
    return fmt::format("unknown output format '{}' (registered: {})", name, names_text());
  }

  const std::vector<FormatEntry>& entries() const { return entries_; }

  /// Every name `--format` accepts, canonical names and aliases, in registration order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.insert(out.end(), e.names.begin(), e.names.end());
    return out;
  }

  /// The names joined by `separator` ("json, csv, netcdf").
  std::string names_text(std::string_view separator = ", ") const {
    std::string out;
    for (const auto& n : names()) {
      if (!out.empty()) out += separator;
      out += n;
    }
    return out;
  }

  /// Every registered ending (FormatEntry::ending), in registration order.
  std::vector<std::string> endings() const {
    std::vector<std::string> out;
    for (const auto& e : entries_)
      if (!e.ending.empty()) out.push_back(e.ending);
    return out;
  }

  /// -o `out` as the formats name their files after it (OutputPath with the registered endings).
  OutputPath output_path(const std::string& out) const { return OutputPath(out, endings()); }

  /// The canonical name of the first format whose ending `out` carries (`-o r.nc`: netcdf), or empty.
  std::string format_of(const std::string& out) const {
    for (const auto& e : entries_)
      if (!e.ending.empty() && out.size() > e.ending.size() && out.ends_with(e.ending)) return e.names.front();
    return {};
  }

  /// The writers of the formats `chosen` for outputs at `out`, each naming its files from OutputPath(out)
  /// (the shipped ones: the JSON record at `out` itself, Stan CSV at BASE_1.csv, ..., NetCDF at
  /// BASE.nc), in the order chosen, one per format (a format chosen twice, by a name or an alias,
  /// writes once); none when `out` is empty. Throws Error for an unknown name, before making any.
  /// The files each format `chosen` says it would write at `out` (FormatEntry::own_files), as
  /// {format name, file}; the formats that do not say are left out, as is an unknown name.
  std::vector<std::pair<std::string, std::string>> own_files(const std::string& out, const std::vector<std::string>& chosen) const {
    std::vector<std::pair<std::string, std::string>> files;
    if (out.empty()) return files;
    const OutputPath path = output_path(out);
    std::vector<const FormatEntry*> seen;
    for (const auto& name : chosen) {
      const FormatEntry* e = find(name);
      if (e == nullptr || !e->own_files || std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
      seen.push_back(e);
      for (auto& f : e->own_files(path)) files.emplace_back(e->names.front(), std::move(f));
    }
    return files;
  }

  std::vector<std::unique_ptr<Writer>> writers(const std::string& out, const std::vector<std::string>& chosen) const {
    std::vector<std::unique_ptr<Writer>> made;
    if (out.empty()) return made;
    std::vector<const FormatEntry*> entries;  // every name checked before any writer is made
    for (const auto& name : chosen)
      if (const FormatEntry* e = &at(name); std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
    const OutputPath path = output_path(out);
    for (const FormatEntry* e : entries) {
      made.push_back(e->make(path));
      if (!made.back()) sgmcmc::fail("output formats: format '{}' made no writer for {}", e->names.front(), out);
    }
    return made;
  }

 private:
  std::vector<FormatEntry> entries_;
};

}  // namespace sgmcmc::run::output
