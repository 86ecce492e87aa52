// The libFuzzer program of every fuzz target (tests/fuzz/entries.hpp), run under a link named fuzz_<target>
// (tests/fuzz/libfuzzer/CMakeLists.txt makes one per target): it fuzzes the target its name names. An
// sgmcmc::Error whose message names a JSON path or the file is a clean outcome; any other exception, or
// an Error with an unclear message, aborts, and libFuzzer reports the input. Built and run by
// tests/fuzz/run.sh.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sgmcmc/modules/error.hpp>

#include "../entries.hpp"

namespace {

std::string program;                               // fuzz_<target>
sgmcmc::fuzz::EntryFunction fuzz_entry = nullptr;  // the target's entry function

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** argv) {
  program = std::filesystem::path((*argv)[0]).filename().string();
  try {
    if (!program.starts_with("fuzz_")) throw std::invalid_argument("not named fuzz_<target>");
    fuzz_entry = sgmcmc::fuzz::entry(std::string_view(program).substr(5));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s; run it as one of the links fuzz_<target> beside it\n", program.c_str(), e.what());
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    fuzz_entry(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const sgmcmc::Error& e) {
    if (!sgmcmc::fuzz::names_a_place(e.what())) {
      std::fprintf(stderr, "%s: sgmcmc::Error whose message names no JSON path or file: %s\n", program.c_str(), e.what());
      std::abort();
    }
  }
  return 0;
}
