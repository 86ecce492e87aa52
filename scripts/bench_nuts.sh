#!/usr/bin/env bash
# SG-MCMC against NUTS on Bayesian logistic regression (issue #14; docs/benchmarks.md, "Against NUTS"):
#   1. writes N examples (default 50000), d features (default 20: an intercept and d − 1 ~ N(0, 1)),
#      labels ~ Bernoulli(σ(xᵀθ*)), θ* ~ N(0, s²I) with s = THETA_SD (default 1/√d; the issue's data:
#      0.3), with Python's Mersenne Twister (seed 1);
#   2. fits the same model (θ ~ N(0, I)) with Stan's NUTS through Debian's r-cran-rstan: 4 chains of
#      1000 warm-up + 1000 kept iterations on 2 cores; the model's compile time is left out, the
#      sampling wall time (warm-up included) is measured; its draws are the reference;
#   3. runs `sgmcmc sweep` on the same data (SWEEP, default sweeps/nuts_logistic.json: SGHMC with the plain
#      minibatch, control-variate and SVRG gradients, SGLD with control variates and SAGA, AMAGOLD),
#      each point scored against the NUTS draws: max z of the means in NUTS sds, sd ratios, and the
#      wall time (the control variate's mode search included);
#   4. prints a table: per point, max z, max |sd ratio − 1| and seconds as a fraction of NUTS's; the
#      scores and the plot are $OUT/scores_<sweep config's name>.json and .svg (max z against wall
#      seconds, NUTS's time marked), so several sweeps can share one NUTS reference (REUSE=1).
# Usage: scripts/bench_nuts.sh      Env: N, D, THETA_SD, SWEEP (a sweep config; its target.data is
#        replaced by the generated CSV), JOBS (build parallelism, default 1), BUILD (default
#        build-bench-nuts), OUT (default $BUILD/nuts-results/n<N>_d<D>), REUSE=1 (keep the data and the
#        NUTS reference already in OUT: only the sweep runs again).
# The issue's sizes: N=100000 D=50 THETA_SD=0.3 SWEEP=scripts/sweeps/nuts_logistic_d50.json (NUTS alone
# takes about ten minutes there on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh r-cran-rstan python3
n="${N:-50000}"
d="${D:-20}"
theta_sd="${THETA_SD:-}"
sweep="${SWEEP:-scripts/sweeps/nuts_logistic.json}"
[ -f "$sweep" ] || { echo "bench_nuts: SWEEP=$sweep: no such file" >&2; exit 2; }
build="${BUILD:-build-bench-nuts}"
out="${OUT:-$build/nuts-results/n${n}_d${d}}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=OFF -DSGMCMC_BUILD_APPS=ON > /dev/null
cmake --build "$build" -j"${JOBS:-1}" --target sgmcmc_cli
mkdir -p "$out"
csv="$out/logistic_n${n}_d${d}.csv"
reuse=0
if [ "${REUSE:-0}" = 1 ] && [ -f "$csv" ] && [ -f "$out/nuts_reference.csv" ] && [ -f "$out/nuts_seconds.txt" ]; then
  reuse=1
  echo "== REUSE=1: the data and the NUTS reference in $out are kept"
fi

[ $reuse = 1 ] || python3 scripts/logistic_data.py "$n" "$d" "$csv" --intercept ${theta_sd:+--theta-sd "$theta_sd"}

[ $reuse = 1 ] || Rscript scripts/nuts_reference.R "$csv" "$out"

scores="scores_$(basename "$sweep" .json)"  # one scores file per sweep config: several share the data and NUTS
python3 - "$csv" "$out/sweep.json" "$sweep" <<'PY'
import json, sys
csv, path, sweep = sys.argv[1], sys.argv[2], sys.argv[3]
config = json.load(open(sweep))
config["target"]["data"] = csv
json.dump(config, open(path, "w"), indent=1)
PY
# The plot: max z of the means against wall seconds, NUTS's own time marked.
"$build/apps/sgmcmc" sweep "$out/sweep.json" --reference "$out/nuts_reference.csv" --reference-seconds "$(cat "$out/nuts_seconds.txt")" \
  -o "$out/$scores.json" --svg "$out/$scores.svg" --plot-x seconds --threads 2

python3 - "$out/$scores.json" "$out/nuts_seconds.txt" <<'PY'
import json, sys
scores, nuts = json.load(open(sys.argv[1])), float(open(sys.argv[2]).read())
print(f"NUTS reference: {scores['reference']['draws']} draws, {nuts:.1f} s")
print(f"{'sampler':<32} {'h':>8} {'max z':>7} {'max|sd-1|':>9} {'seconds':>8} {'of NUTS':>8} {'min ESS':>8}")
for p in scores["points"]:
    if p.get("status") != "ok":
        print(f"{p['sampler']:<32} {p['step_size']:>8g}  error: {p.get('error', '')[:80]}")
        continue
    secs = p["sampling_seconds"] + p["setup_seconds"]
    print(f"{p['sampler']:<32} {p['step_size']:>8g} {p['max_z']:>7.3f} {p['max_sd_error']:>9.3f} {secs:>8.2f} {secs / nuts:>8.1%} {p['min_ess_bulk']:>8.0f}")
PY
