#pragma once
// The fuzz targets by name (config, record, sweep, …: tests/fuzz/run.sh's list) and their contract. Their
// entry functions (tests/fuzz/targets.hpp, targets_cli.hpp, targets_data.hpp) are compiled once, in
// tests/fuzz/entries.cpp, for both the libFuzzer program (tests/fuzz/libfuzzer/) and the replay test
// (tests/fuzz/test_fuzz_replay*.cpp); this header is all either includes of them.
#include <string_view>

namespace sgmcmc::fuzz {

/// An entry function: returns, or throws sgmcmc::Error whose message passes `names_a_place`; anything
/// else (another exception type, a crash, a sanitizer report, a hang) is a finding.
using EntryFunction = void (*)(std::string_view bytes);

/// The entry function of the target `name` (fuzz_<name> in tests/fuzz/targets*.hpp); throws
/// std::invalid_argument if there is none.
EntryFunction entry(std::string_view name);

/// The message of an Error from these paths must start with the JSON path of the offending field or
/// the file's name; here both begin with '/' (the bytes are handed over as /proc/self/fd/N of an
/// in-memory file).
inline bool names_a_place(std::string_view message) { return !message.empty() && message.front() == '/'; }

}  // namespace sgmcmc::fuzz
