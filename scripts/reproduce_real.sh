#!/usr/bin/env bash
# The real-data experiments of issue #4 (docs/reproductions.md): installs the data (scripts/data.sh),
# builds the experiment programs in Release, runs them and plots. Usage: scripts/reproduce_real.sh [--quick] [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quick=()
out="$root/reproductions-real"
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    *) out="$a" ;;
  esac
done
"$root/scripts/deps.sh" python3-matplotlib zlib1g-dev
ratings="$("$root/scripts/data.sh" movielens)"
fashion="$("$root/scripts/data.sh" fashion-mnist)"
build="${SGMCMC_REPRO_BUILD:-$root/build-reproduce}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON >/dev/null
cmake --build "$build" --target bpmf_experiment bnn_experiment logistic_experiment -j2
mkdir -p "$out"
"$build/experiments/real/bpmf_experiment" "$ratings" "$out/bpmf.json" "${quick[@]}"
# Logistic regression, Fashion-MNIST T-shirt vs Shirt: SGHMC and SGLD against exact HMC (≈ 2.5 min).
"$build/experiments/real/logistic_experiment" "$fashion" "$out/logistic.json" "${quick[@]}"
# BNN: 100 passes (≈ 20 min on 2 shared cores; --quick: 2 passes), then seconds per epoch on 1 vs 2 threads.
"$build/experiments/real/bnn_experiment" "$fashion" "$out/bnn.json" --epochs 100 --threads 2 "${quick[@]}"
"$build/experiments/real/bnn_experiment" "$fashion" "$out/bnn_threads.json" --time-epoch
/usr/bin/python3 "$root/experiments/real/plot.py" "$out"
