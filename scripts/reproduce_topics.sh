#!/usr/bin/env bash
# Topic-model reproductions (issue #6; docs/reproductions.md "Online LDA"): installs the SpamAssassin
# corpus (scripts/text_data.sh), builds experiments/topics, runs it, plots with Debian's matplotlib.
# Usage: scripts/reproduce_topics.sh [--quick] [OUTDIR]
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
spam="$("$root/scripts/text_data.sh" spam-assassin)"
build="${SGMCMC_REPRO_BUILD:-$root/build-reproduce}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON >/dev/null
cmake --build "$build" --target lda_experiment -j2
mkdir -p "$out"
"$build/experiments/topics/lda_experiment" "$spam" "$out" "${quick[@]}"
/usr/bin/python3 "$root/experiments/topics/plot.py" "$out"
