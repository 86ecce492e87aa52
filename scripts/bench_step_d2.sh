#!/usr/bin/env bash
# Per-step time of every sampler that runs on a 2-d Gaussian, through the CLI (issue #33: an SGLD step
# built its error message every step). Each sampler runs STEPS steps keeping one draw; the time is the
# record's timings.phases[0].sampling_seconds / STEPS, the median of REPS runs, alternating the binaries.
# Usage: scripts/bench_step_d2.sh CLI [CLI2]   Env: STEPS (default 2000000), REPS (default 5).
# Prints one line per sampler: name, ns/step for CLI (and CLI2, and CLI2/CLI).
set -euo pipefail
steps="${STEPS:-2000000}"
reps="${REPS:-5}"
clis=("$@")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
config() {  # sampler section -> config file
  cat > "$work/$1.json" <<JSON
{"manifold": {"name": "euclidean", "dim": 2}, "target": {"name": "gaussian", "cov": 1},
 "sampler": $2, "steps": $steps, "burn_in": $((steps - 1)), "thin": 1, "chains": 1, "seed": 1}
JSON
}
config sgld '{"name": "sgld", "step_size": 0.05}'
config sghmc '{"name": "sghmc", "step_size": 0.05, "friction": 1}'
config sgnht '{"name": "sgnht", "step_size": 0.05}'
config naive_sghmc '{"name": "naive_sghmc", "step_size": 0.05}'
config hmc '{"name": "hmc", "step_size": 0.2, "leapfrog_steps": 1}'
config amagold '{"name": "amagold", "step_size": 0.05, "friction": 1}'
config psgld '{"name": "psgld", "step_size": 0.05}'
config sgrhmc '{"name": "sgrhmc", "step_size": 0.05, "metric": {"name": "diagonal", "inverse": [1, 1]}}'
config recipe '{"name": "recipe", "step_size": 0.05, "D": [[0, 0], [0, 1]], "Q": [[0, -1], [1, 0]]}'
printf "%-12s" sampler; for c in "${clis[@]}"; do printf " %14s" "ns/step"; done; [ ${#clis[@]} -eq 2 ] && printf " %8s" ratio; echo
for s in sgld sghmc sgnht naive_sghmc hmc amagold psgld sgrhmc recipe; do
  declare -a med=()
  for k in "${!clis[@]}"; do : > "$work/t$k"; done
  for r in $(seq "$reps"); do
    for k in "${!clis[@]}"; do
      j=$(( (k + r) % ${#clis[@]} ))
      if "${clis[$j]}" run -q "$work/$s.json" -o "$work/out$j.json" > /dev/null 2> "$work/err"; then
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['timings']['phases'][0]['sampling_seconds'] / $steps * 1e9)" "$work/out$j.json" >> "$work/t$j"
      else
        echo "nan" >> "$work/t$j"
      fi
    done
  done
  printf "%-12s" "$s"
  for k in "${!clis[@]}"; do
    med[$k]=$(sort -g "$work/t$k" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf " %14.1f" "${med[$k]}"
  done
  [ ${#clis[@]} -eq 2 ] && awk -v a="${med[0]}" -v b="${med[1]}" 'BEGIN {printf " %8.2f", b / a}'
  echo
done
