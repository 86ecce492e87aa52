#!/usr/bin/env bash
# Peak memory and wall time of `sgmcmc run` and `sgmcmc summary` for 10^4 and 10^6 kept draws
# (issue #12; docs/benchmarks.md "Records"). SGLD on N(0, I), d = 10, 2 chains, thin 1.
# Usage: scripts/bench_records.sh [SGMCMC_BINARY]   (default build/apps/sgmcmc; build it first)
# Prints one line per measurement: what, kept draws, seconds, peak RSS in MB, output size in MB.
set -euo pipefail
cli="${1:-build/apps/sgmcmc}"
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
measure() {  # label kept size-file command...
  local label="$1" kept="$2" file="$3"
  shift 3
  /usr/bin/time -f "%e %M" -o t.txt "$@" > /dev/null
  read -r secs kb < t.txt
  local size="-"
  [ -n "$file" ] && size="$(du -m --apparent-size "$file" | cut -f1)"
  printf '%-34s %9s draws %8.2f s %8.1f MB peak  %6s MB out\n' "$label" "$kept" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$size"
}
for kept in 10000 1000000; do
  per_chain=$((kept / 2))
  cat > cfg.json <<JSON
{"sampler": {"name": "sgld", "step_size": 0.01}, "manifold": {"name": "euclidean", "dim": 10},
 "target": {"name": "gaussian", "mean": [0,0,0,0,0,0,0,0,0,0],
            "cov": [[1,0,0,0,0,0,0,0,0,0],[0,1,0,0,0,0,0,0,0,0],[0,0,1,0,0,0,0,0,0,0],[0,0,0,1,0,0,0,0,0,0],[0,0,0,0,1,0,0,0,0,0],
                    [0,0,0,0,0,1,0,0,0,0],[0,0,0,0,0,0,1,0,0,0],[0,0,0,0,0,0,0,1,0,0],[0,0,0,0,0,0,0,0,1,0],[0,0,0,0,0,0,0,0,0,1]]},
 "steps": $((per_chain + 1000)), "burn_in": 1000, "thin": 1, "chains": 2, "seed": 3}
JSON
  measure "run -q (JSON record)" "$kept" run.json "$cli" run -q cfg.json -o run.json
  if "$cli" run --help 2>/dev/null | grep -q -- --format; then
    measure "run -q --format json,csv,netcdf" "$kept" run.nc "$cli" run -q cfg.json -o run.json --format json,csv,netcdf
  fi
  measure "run (prints the summary)" "$kept" run.json "$cli" run cfg.json -o run.json
  measure "summary" "$kept" "" "$cli" summary run.json
done
