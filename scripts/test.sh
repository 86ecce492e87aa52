#!/usr/bin/env bash
# Installs what is missing, builds optimised (the statistical tests need speed), runs the whole suite
# with ctest, then rebuilds the unit tests and the CLI under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs those too; last, builds the two libFuzzer programs with clang++-14 and
# runs each for 60 s (tests/fuzz/run.sh; docs/reliability.md), failing on any finding.
# Every option the suite needs is given explicitly, so a cache left by scripts/demo.sh (which configures
# build/ without tests) cannot switch tests off; ctest fails if it finds no test to run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh python3-xarray python3-netcdf4 clang-14 libclang-rt-14-dev  # clang/libFuzzer: tests/fuzz/run.sh
jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=ON -DSGMCMC_BUILD_APPS=ON -DSGMCMC_UNIT_ONLY=OFF \
      -DSGMCMC_SANITIZE= -DSGMCMC_BUILD_BENCH=OFF -DSGMCMC_BUILD_EXPERIMENTS=OFF > /dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure --no-tests=error -j"$jobs")
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSGMCMC_BUILD_TESTS=ON -DSGMCMC_BUILD_APPS=ON -DSGMCMC_UNIT_ONLY=ON \
      -DSGMCMC_SANITIZE=address,undefined -DCMAKE_CXX_FLAGS="-O1" > /dev/null
cmake --build build-sanitize -j"$jobs"
(cd build-sanitize && ctest --output-on-failure --no-tests=error -j"$jobs")
tests/fuzz/run.sh 60 "$jobs"
