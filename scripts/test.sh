#!/usr/bin/env bash
# Installs what is missing; builds the optimised half of the suite (the statistical tests, which need
# speed, and the unit tests a sanitizer build cannot run or finds nothing in; the tool built for MPI runs)
# and runs it with ctest; then builds the other half — the unit tests, the CLI and the libFuzzer program
# with clang++-14 under AddressSanitizer and UndefinedBehaviorSanitizer — and runs it (the two builds'
# options and how they share the tests out: scripts/configure.sh, tests/CMakeLists.txt); last, runs the
# fuzzers, two at a time, sharing 60 s (tests/fuzz/run.sh; docs/reliability.md), failing on any finding.
# Every option the suite needs is given explicitly, so a cache left by scripts/demo.sh (which configures
# build/ without tests) cannot switch tests off; ctest fails if it finds no test to run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
scripts/deps.sh "${python_packages[@]}" r-base-core r-cran-loo r-cran-rstan r-cran-posterior clang-14 libclang-rt-14-dev libopenmpi-dev openmpi-bin
jobs="$(nproc)"
done_at() { echo "sgmcmc test.sh: $1 at $((SECONDS / 60)) min $((SECONDS % 60)) s" >&2; }
configure build "${optimised_options[@]}"
cmake --build build -j"$jobs"
done_at "optimised build"
(cd build && ctest --output-on-failure --no-tests=error -j"$jobs")
done_at "optimised suite"
configure build-sanitize "${sanitize_options[@]}"
cmake --build build-sanitize -j"$jobs"
done_at "sanitizer build"
(cd build-sanitize && ctest --output-on-failure --no-tests=error -j"$jobs")
done_at "sanitizer suite"
tests/fuzz/run.sh 60 "$jobs"
done_at "fuzzers"
