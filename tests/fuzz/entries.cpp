// The fuzz targets by name (tests/fuzz/entries.hpp): their entry functions, compiled once for the
// libFuzzer program and the replay test (tests/fuzz/CMakeLists.txt).
#include "entries.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "targets.hpp"
#include "targets_cli.hpp"
#include "targets_data.hpp"

namespace sgmcmc::fuzz {

EntryFunction entry(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, EntryFunction>, 9> entries{{
      {"config", fuzz_config},
      {"record", fuzz_record},
      {"sweep", fuzz_sweep},
      {"reference", fuzz_reference},
      {"record_cli", fuzz_record_cli},
      {"labelled_csv", fuzz_labelled_csv},
      {"idx", fuzz_idx},
      {"ratings", fuzz_ratings},
      {"text_corpora", fuzz_text_corpora},
  }};
  for (const auto& [n, f] : entries)
    if (n == name) return f;
  throw std::invalid_argument("no fuzz target named '" + std::string(name) + "'");
}

}  // namespace sgmcmc::fuzz
