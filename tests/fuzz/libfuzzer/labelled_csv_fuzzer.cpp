// libFuzzer program: bytes as a labelled CSV file, read three ways that must agree, through sgmcmc::fuzz::fuzz_labelled_csv
// (tests/fuzz/targets_data.hpp). An sgmcmc::Error whose message names the file is a clean outcome; any
// other exception, or an Error with an unclear message, aborts, and libFuzzer reports the input. Built
// and run by tests/fuzz/run.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../targets_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    sgmcmc::fuzz::fuzz_labelled_csv(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const sgmcmc::Error& e) {
    if (!sgmcmc::fuzz::names_a_place(e.what())) {
      std::fprintf(stderr, "fuzz_labelled_csv: sgmcmc::Error whose message names no file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
