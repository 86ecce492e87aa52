#!/usr/bin/env bash
# Regenerates every reproduction (docs/reproductions.md): builds the experiment programs, runs them,
# writes JSON + PNG into OUTDIR (default: reproductions/). Usage: scripts/reproduce.sh [--quick] [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quick=()
out="$root/reproductions"
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    *) out="$a" ;;
  esac
done
"$root/scripts/deps.sh" python3-matplotlib
build="${SGMCMC_REPRO_BUILD:-$root/build-reproduce}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON >/dev/null
cmake --build "$build" --target reproduce_recipe -j"$(nproc)"
mkdir -p "$out"
"$build/experiments/reproduce_recipe" "$out" "${quick[@]}"
/usr/bin/python3 "$root/experiments/recipe/plot.py" "$out"
