// Replays the data readers' committed fuzz corpora (tests/fuzz/corpus/labelled_csv/, idx/, ratings/,
// text_corpora/) through their entry functions (tests/fuzz/targets_data.hpp, by name: entries.hpp), deterministically, in every
// build: under the sanitizer build this is the fuzzers' check without libFuzzer. Each input either
// passes or throws sgmcmc::Error whose message names the file; any other exception (fuzz_labelled_csv
// throws std::logic_error when its three readings disagree) fails the test, a crash or sanitizer report
// fails the program. The findings' reproducers (docs/reliability.md, D1, D2, ...) are among the files.
#include <doctest/doctest.h>

#include "entries.hpp"
#include "replay.hpp"

namespace test_fuzz_replay_data {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

TEST_CASE("fuzz corpus: labelled CSV (chunked, small chunks and the general parser agree)") {
  sgmcmc::fuzz::replay("labelled_csv", sgmcmc::fuzz::entry("labelled_csv"));
}

TEST_CASE("fuzz corpus: IDX images and labels") { sgmcmc::fuzz::replay("idx", sgmcmc::fuzz::entry("idx")); }

TEST_CASE("fuzz corpus: ratings CSV") { sgmcmc::fuzz::replay("ratings", sgmcmc::fuzz::entry("ratings")); }

TEST_CASE("fuzz corpus: text corpora (mail, Brown, King James Bible)") {
  sgmcmc::fuzz::replay("text_corpora", sgmcmc::fuzz::entry("text_corpora"));
}

}  // namespace test_fuzz_replay_data
