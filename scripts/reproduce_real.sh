#!/usr/bin/env bash
# The real-data experiments of issue #4 (docs/reproductions.md): installs the data (scripts/data.sh),
# builds the experiment programs in Release, runs them and plots.
# Usage: scripts/reproduce_real.sh [--quick] [--only bpmf|logistic|bnn] [OUTDIR]
#   bpmf ≈ 10 min, logistic ≈ 2.5 min, bnn ≈ 25 min on this 2-core machine (--quick: about a minute in all).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quick=()
only=""
out="$root/reproductions-real"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --only) only="${2:?--only needs bpmf, logistic or bnn}"; shift ;;
    *) out="$1" ;;
  esac
  shift
done
case "$only" in ""|bpmf|logistic|bnn) ;; *) echo "reproduce_real.sh: --only $only: expected bpmf, logistic or bnn" >&2; exit 2 ;; esac
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
"$root/scripts/deps.sh" python3-matplotlib zlib1g-dev
build="${SGMCMC_REPRO_BUILD:-$root/build-reproduce}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON >/dev/null
cmake --build "$build" --target bpmf_experiment bnn_experiment logistic_experiment -j2
mkdir -p "$out"
if want bpmf; then
  ratings="$("$root/scripts/data.sh" movielens)"
  "$build/experiments/real/bpmf_experiment" "$ratings" "$out/bpmf.json" "${quick[@]}"
fi
if want logistic || want bnn; then fashion="$("$root/scripts/data.sh" fashion-mnist)"; fi
if want logistic; then
  # Logistic regression, Fashion-MNIST T-shirt vs Shirt: SGHMC and SGLD against exact HMC.
  "$build/experiments/real/logistic_experiment" "$fashion" "$out/logistic.json" "${quick[@]}"
fi
if want bnn; then
  # BNN: 100 passes (--quick: 2), the optimisers' learning rates tuned first; then seconds per epoch
  # on 1 vs 2 threads.
  "$build/experiments/real/bnn_experiment" "$fashion" "$out/bnn.json" --epochs 100 --threads 2 "${quick[@]}"
  "$build/experiments/real/bnn_experiment" "$fashion" "$out/bnn_threads.json" --time-epoch
fi
/usr/bin/python3 "$root/experiments/real/plot.py" "$out"
