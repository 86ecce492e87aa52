#pragma once
// The data files a run read, as its record keeps them (`data_files`, docs/run-format.md): so that a
// resume sees a file that changed since the draws were made, and finds a file named by a relative path
// from any working directory.
//
//   "data_files": [{"pointer": "/target/data", "bytes": 12345, "hash": "fnv1a64:…", "examples": 500}]
//
// `pointer` is the config field naming the file; `bytes` and `hash` its fingerprint when it was read
// (data/fingerprint.hpp; null for a pipe or device, which a resume cannot check); `examples` the
// target's N. A relative path in a record's config is relative to the record's own folder: a run
// writes it so (Options::output_folder), and every reader of a record resolves it so.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/options.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::detail {

/// The record's `data_files` for a parsed config (an empty array when its target read no file).
json data_files_of(const RunConfig& c);

/// The config pointers of a record's `data_files`, checked: an array of objects, each with a pointer
/// that names a string field of the record's config (errors name /data_files/i/…). None: an empty list.
std::vector<std::string> data_pointers(const json& record);

/// Rewrites the relative paths at `pointers` of `config` from relative to folder `from` to relative to
/// folder `to` (either empty: the working directory); absolute paths stay as they are. Lexical: no
/// symlink is followed (a resume's fingerprint check catches a path that now names another file).
void rebase_paths(json& config, std::span<const std::string> pointers, const std::filesystem::path& from,
                  const std::filesystem::path& to);

/// Compares the files a resumed config's target read now with the record's `data_files`: the same
/// size, hash and number of examples, else an error naming the file (/data_files/i) — or, with
/// Options::allow_changed_config, true (the resumed phase notes "data_changed"). A record without
/// `data_files` whose target reads a file is refused likewise: it cannot tell.
bool data_changed(const json& record, const RunConfig& c, const Options& opt);

/// A record's data files are inputs too, found only once its config is read: an output of `writers`
/// that is one of them is an error naming both, before any writer begins (resume, convert, thin; `run`
/// checks them with -o, cli/detail/overlap.hpp).
void refuse_outputs_over_data(const RunConfig& c, std::span<output::Writer* const> writers);

}  // namespace sgmcmc::run::detail
