// Replays the committed fuzz corpus (tests/fuzz/corpus/config/, tests/fuzz/corpus/record/) through the
// fuzz targets' entry functions (tests/fuzz/targets.hpp, by name: entries.hpp), deterministically, in every build: under the
// sanitizer build this is the fuzzers' check without libFuzzer (tests/fuzz/replay.hpp says what passes).
//
// tests/fuzz/corpus/open/<target>/ holds reproducers of findings not fixed yet (docs/reliability.md):
// they are not replayed by default (a crash would end the program); once one is fixed, move it into
// tests/fuzz/corpus/<target>/. `test_fuzz --no-skip` replays them too, except those named hang_*;
// SGMCMC_FUZZ_VERBOSE=1 prints each file's outcome.
#include <doctest/doctest.h>

#include "entries.hpp"
#include "replay.hpp"
#include "targets.hpp"

TEST_CASE("fuzz corpus: configs") { sgmcmc::fuzz::replay("config", sgmcmc::fuzz::entry("config")); }

TEST_CASE("fuzz corpus: run records") { sgmcmc::fuzz::replay("record", sgmcmc::fuzz::entry("record")); }

TEST_CASE("fuzz corpus: open findings" * doctest::skip()) {
  sgmcmc::fuzz::replay("open/config", sgmcmc::fuzz::entry("config"), sgmcmc::fuzz::Corpus::open);
  sgmcmc::fuzz::replay("open/record", sgmcmc::fuzz::entry("record"), sgmcmc::fuzz::Corpus::open);
}

TEST_CASE("fuzz targets: a data file outside the working directory is skipped, not read") {
  CHECK(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"({"target": {"name": "logistic", "data": "/dev/zero"}})")));
  CHECK(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"([{"x": {"data": "../a.csv"}}])")));
  CHECK_FALSE(sgmcmc::fuzz::names_outside_file(nlohmann::json::parse(R"({"target": {"name": "logistic", "data": "a.csv"}})")));
  CHECK_NOTHROW(sgmcmc::fuzz::entry("config")(R"({"sampler": {"name": "sgld", "step_size": 0.1},
                                              "target": {"name": "logistic", "data": "/dev/zero"}})"));
}
