#pragma once
// The fuzz targets' entry functions (docs/reliability.md), compiled once (tests/fuzz/entries.cpp) for the
// libFuzzer program (tests/fuzz/libfuzzer/) and the replay test that feeds the committed corpus through
// them under the sanitizers (tests/fuzz/test_fuzz_replay.cpp), which look them up by name (entries.hpp).
//
//   fuzz_config(bytes): bytes as a config file, read as the CLI reads one (run::read_json_file, with its
//     depth limit), then run::parse_config against the shipped registry. No chain is built or run.
//   fuzz_record(bytes): bytes as a run record file, read as `sgmcmc resume` reads one (run::resume_file):
//     output::read_record, validate_record, the config digest, config_of, restore_chains,
//     check_restored, resume_ends, header_of, and the second pass over the draws with check_width —
//     everything but continue_run: chains are rebuilt at their saved states, never stepped.
//
// Either returns, or throws sgmcmc::Error; anything else (another exception type, a crash, a sanitizer
// report, a hang) is a finding. `names_a_place` (entries.hpp) is the test an Error's message must pass: it starts
// with a JSON path or the file's name (both begin with '/' here: the bytes are handed over as
// /proc/self/fd/N of an in-memory file).
//
// Files: the bytes live in a memfd (nothing is written to disk). A config may name data files
// (`target.data`, read by logistic, bnn and bpmf): an input naming one with a '/' in its path is skipped,
// so the fuzzer reads no file outside its working directory (tests/fuzz/run.sh runs it in an empty one).
// Nothing on these paths writes files.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/config.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/runner.hpp>

#include "entries.hpp"

namespace sgmcmc::fuzz {

/// The bytes as an in-memory file, named /proc/self/fd/N for the readers that take a path.
class MemFile {
 public:
  explicit MemFile(std::string_view bytes) {
    fd_ = ::memfd_create("sgmcmc-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error(std::string("memfd write: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() { ::close(fd_); }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

/// Whether a config names a data file outside the working directory (a "data" string with a '/'), or
/// generated data of more than 2²⁰ numbers: such inputs are skipped, so the fuzzer cannot read
/// /dev/zero, /dev/stdin or a large file, nor make gigabytes (the library allows 16 GiB per rank). A
/// vmf_mixture_posterior's `n_data` is skipped only between 2¹⁹ points and the library's cap of 2³⁰, so
/// the refusal above the cap is still fuzzed.
inline bool names_outside_file(const nlohmann::json& j) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key == "data" && value.is_string() && value.get<std::string>().find('/') != std::string::npos) return true;
      if (key == "n_data" && value.is_number() && value.get<double>() > 524288.0 && value.get<double>() <= 1073741824.0) return true;
      if (key == "data" && value.is_object()) {
        const nlohmann::json& data = value;  // a structured binding cannot be captured (Clang 14)
        const auto size = [&data](const char* k) {
          return data.contains(k) && data[k].is_number() ? std::abs(data[k].get<double>()) : 0.0;
        };
        if (size("examples") * (size("features") + 1) > 1048576.0) return true;
      }
      if (names_outside_file(value)) return true;
    }
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (names_outside_file(v)) return true;
  }
  return false;
}

inline void fuzz_config(std::string_view bytes) {
  const MemFile file(bytes);
  const nlohmann::json config = run::read_json_file(file.path());
  if (names_outside_file(config)) return;
  (void)run::parse_config(config, run::shipped_registry());
}

inline void fuzz_record(std::string_view bytes) {
  const MemFile file(bytes);
  const std::string& path = file.path();
  std::vector<std::uint64_t> held;
  const auto count = [&](const run::output::RecordDraw& d) {
    if (d.chain >= held.size()) held.resize(d.chain + 1, 0);
    ++held[d.chain];
  };
  // As run::resume_file, up to its continue_run.
  const nlohmann::json record = run::output::read_record(path, count);
  if (record.is_object() && record.contains("config") && names_outside_file(record["config"])) return;
  run::RunConfig c;
  std::vector<std::unique_ptr<run::AnyChain>> chains;
  bool changed = false;
  try {
    run::validate_record(record);
    changed = run::detail::config_changed(record, run::Options{});
    c = run::detail::config_of(record, run::shipped_registry());
    chains = run::detail::restore_chains(record, c);
    held.resize(chains.size(), 0);
    run::detail::check_restored(record, c, chains, held, changed);
  } catch (const Error& e) {
    throw Error(std::string(path) + ": " + e.what());
  }
  const std::vector<std::uint64_t> end = run::detail::resume_ends(chains, c, std::nullopt);
  const run::output::RunHeader header = run::detail::header_of(c, *chains.front(), run::detail::most(end));
  std::vector<std::uint64_t> kept(c.chains, 0);
  (void)run::output::read_record(path, [&](const run::output::RecordDraw& d) {
    if (d.chain >= c.chains) return;
    run::detail::check_width(d, header, kept[d.chain]++);
  });
}

}  // namespace sgmcmc::fuzz
