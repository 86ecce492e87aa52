#!/usr/bin/env bash
# Topic-model reproductions (issue #6; docs/reproductions.md "Online LDA", "Spherical admixture model"): installs the SpamAssassin
# corpus (scripts/text_data.sh), builds experiments/topics, runs it, plots with Debian's matplotlib.
# Usage: scripts/reproduce_topics.sh [--quick] [--large] [OUTDIR]
#   --large (or SAM_LARGE=1) adds the large sets for LDA and SAM: all SpamAssassin mails, and the pooled
#   corpora (all mails + Brown paragraphs + KJV chapters; installs Brown and the Bible too).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quick=()
out="$root/reproductions"
large="${SAM_LARGE:-0}"
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    --large) large=1 ;;
    *) out="$a" ;;
  esac
done
"$root/scripts/deps.sh" python3-matplotlib
spam="$("$root/scripts/text_data.sh" spam-assassin)"
pooled=()
if [ "$large" = 1 ]; then
  pooled=(--brown "$("$root/scripts/text_data.sh" brown)" --kjv "$("$root/scripts/text_data.sh" kjv)")
fi
build="${SGMCMC_REPRO_BUILD:-$root/build-reproduce}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON >/dev/null
cmake --build "$build" --target lda_experiment -j2
mkdir -p "$out"
"$build/experiments/topics/lda_experiment" "$spam" "$out" --set three-groups "${quick[@]}"
if [ "$large" = 1 ]; then
  "$build/experiments/topics/lda_experiment" "$spam" "$out" --set all-spam "${quick[@]}"
  "$build/experiments/topics/lda_experiment" "$spam" "$out" --set pooled "${pooled[@]}" "${quick[@]}"
fi
# SAM (docs/reproductions.md "Spherical admixture model"): SGGMC/gSGNHT vs GMC-bGibbs/GMC-apprMH on the
# three-groups set; --large adds the two large sets (each validated on its own), SAM_THREADS (default 1)
# the theta threads, SAM_TOPICS (default 20) K (K != 20 writes sam_<set>_K<K>.json).
cmake --build "$build" --target sam_experiment -j2
topics="${SAM_TOPICS:-20}"
sam_args=(--threads "${SAM_THREADS:-1}" --topics "$topics")
[ "$topics" = 20 ] || sam_args+=(--tag "K$topics")
"$build/experiments/topics/sam_experiment" "$spam" "$out" --set three-groups "${sam_args[@]}" "${quick[@]}"
if [ "$large" = 1 ]; then
  "$build/experiments/topics/sam_experiment" "$spam" "$out" --set all-spam "${sam_args[@]}" "${quick[@]}"
  "$build/experiments/topics/sam_experiment" "$spam" "$out" --set pooled "${pooled[@]}" "${sam_args[@]}" "${quick[@]}"
fi
/usr/bin/python3 "$root/experiments/topics/plot.py" "$out"
