#!/usr/bin/env bash
# Installs what is missing, builds optimised (the statistical tests need speed), runs the whole suite
# with ctest, then rebuilds the unit tests and the CLI under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs those too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSGMCMC_UNIT_ONLY=ON -DSGMCMC_SANITIZE=address,undefined \
      -DCMAKE_CXX_FLAGS="-O1" > /dev/null
cmake --build build-sanitize -j"$jobs"
(cd build-sanitize && ctest --output-on-failure -j"$jobs")
