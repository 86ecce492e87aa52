#!/usr/bin/env bash
# The main job: install what is missing, build optimised, run the CLI's embedded default demo
# (SGHMC on the SGHMC paper's ρ = 0.9 Gaussian with noisy gradients), write and summarise its record.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
scripts/deps.sh
configure build -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)" --target sgmcmc_cli
mkdir -p runs
./build/apps/sgmcmc run -o runs/demo.json "$@"
