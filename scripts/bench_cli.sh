#!/usr/bin/env bash
# The CLI against the library (issue #11 item 7; docs/benchmarks.md): builds `sgmcmc` and the benchmark
# programs (Release, into build-bench-cli/), writes the logistic-regression CSVs (fixed seed, into /tmp),
# then REPS times, alternating which comes first, runs back to back
#   1. bench_sghmc_step BM_Library/100000 and BM_LibraryGradNoise/100000, and `sgmcmc run` on the same
#      SGHMC / N(0, I), d = 10^5 problem without and with "grad_noise": 1 (per coordinate-step time);
#   2. bench_logistic's library and hand loop at N = 10^5, 10^6 (d = 50, batch 100, with and without
#      replacement), and `sgmcmc run` on the same problems from the CSVs (per step time);
#   3. bench_run_layer (a concrete Chain vs the CLI's type-erased chain, d = 1, 10, 100);
# and prints the medians and the ratios CLI / library: CLI wall time from the run record's
# timings.phases[0].sampling_seconds against the benchmarks' wall (real) time, and the CLI's CPU time
# (user + sys of the process, from /usr/bin/time, minus that of the same config run for 0 steps: the
# set-up, e.g. reading the CSV, and writing the record) against the benchmarks' CPU time.
# Usage: scripts/bench_cli.sh          Env: REPS (default 5), JOBS (build parallelism, default 1),
#        BUILD (default build-bench-cli), OUT (default $BUILD/cli-results), DATA (default /tmp/sgmcmc-bench-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh libbenchmark-dev
reps="${REPS:-5}"
build="${BUILD:-build-bench-cli}"
out="${OUT:-$build/cli-results}"
data="${DATA:-/tmp/sgmcmc-bench-cli}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_BENCH=ON -DSGMCMC_BUILD_TESTS=OFF \
      -DSGMCMC_BUILD_APPS=ON > /dev/null
cmake --build "$build" -j"${JOBS:-1}" --target sgmcmc_cli bench_sghmc_step bench_logistic bench_run_layer
cli="$build/apps/sgmcmc"
bench="$build/bench"
rm -rf "$out"
mkdir -p "$out" "$data"

# Logistic-regression data: N examples, d = 50 features ~ N(0, 1), label ~ Bernoulli(σ(xᵀθ*)) with
# θ* ~ N(0, I/d); Python's Mersenne Twister with a fixed seed, so the file is the same on every run.
for n in 100000 1000000; do
  csv="$data/logistic_n${n}_d50_seed1.csv"
  [ -s "$csv" ] && continue
  echo "writing $csv"
  python3 - "$n" "$csv.tmp" <<'PY'
import math, random, sys
n, path, d = int(sys.argv[1]), sys.argv[2], 50
rng = random.Random(1)
theta = [rng.gauss(0, 1) / math.sqrt(d) for _ in range(d)]
with open(path, "w") as f:
    for _ in range(n):
        x = [rng.gauss(0, 1) for _ in range(d)]
        z = sum(a * b for a, b in zip(x, theta))
        y = 1 if rng.random() < 1 / (1 + math.exp(-z)) else 0
        f.write(",".join(f"{v:.6g}" for v in x) + f",{y}\n")
PY
  mv "$csv.tmp" "$csv"
done

# Configs. SGHMC ABOBA on N(0, I), d = 10^5: steps chosen for ~1 s; burn_in = steps − 1 keeps one draw.
gsteps=5000
for noise in 0 1; do
  cat > "$out/gauss_noise$noise.json" <<EOF
{"manifold": {"name": "euclidean", "dim": 100000},
 "target": {"name": "gaussian", "cov": 1, "grad_noise": $noise},
 "sampler": {"name": "sghmc", "step_size": 0.1, "friction": 1, "scheme": "aboba"},
 "steps": $gsteps, "burn_in": $((gsteps - 1)), "thin": 1, "chains": 1, "seed": 1}
EOF
done
# Logistic regression: the parameters of bench/bench_logistic.cpp (h = 1e-3, C = 10, prior_sd 1,
# batch 100); 10^5 steps (its repetitions are 5 iterations of 10^4 steps).
lsteps=100000
for n in 100000 1000000; do
  for rep in false true; do
    cat > "$out/logistic_n${n}_replace_$rep.json" <<EOF
{"target": {"name": "logistic", "data": "$data/logistic_n${n}_d50_seed1.csv", "prior_sd": 1, "batch_size": 100,
            "with_replacement": $rep},
 "sampler": {"name": "sghmc", "step_size": 0.001, "friction": 10, "scheme": "aboba"},
 "steps": $lsteps, "burn_in": $((lsteps - 1)), "thin": 1, "chains": 1, "seed": 1}
EOF
  done
done

# The same configs run for 0 steps: their CPU time is the set-up and the record, subtracted.
for f in "$out"/gauss_noise*.json "$out"/logistic_n*.json; do
  sed -e 's/"steps": [0-9]*/"steps": 0/' "$f" > "${f%.json}_0steps.json"
done

machine="$(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name: *//')"
echo "machine: $machine" | tee "$out/machine.txt"
load() { echo "$(date +%T) $1: load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"; }

run_cli() {  # config name, rep: the run, then the same config for 0 steps, each timed (wall, user, sys)
  for c in "$1" "$1_0steps"; do
    /usr/bin/time -f "%e %U %S" -o "$out/cli_${c}_$2.time" "$cli" run -q --threads 1 "$out/$c.json" -o "$out/cli_${c}_$2.json"
  done
}
gauss_bench() {
  "$bench/bench_sghmc_step" --benchmark_filter='^BM_Library(GradNoise)?/100000$' --benchmark_min_time=1 \
    --benchmark_format=json --benchmark_out="$out/sghmc_$1.json" --benchmark_out_format=json > /dev/null
}
gauss_cli() { run_cli gauss_noise0 "$1"; run_cli gauss_noise1 "$1"; }
logistic_bench() {
  "$bench/bench_logistic" --benchmark_filter='^BM_Logistic(Library|Hand)/' --benchmark_enable_random_interleaving=true \
    --benchmark_format=json --benchmark_out="$out/logistic_$1.json" --benchmark_out_format=json > /dev/null
}
logistic_cli() {
  for n in 100000 1000000; do for rep in false true; do run_cli "logistic_n${n}_replace_$rep" "$1"; done; done
}
for r in $(seq 1 "$reps"); do
  load "rep $r"
  # Alternate the order, so neither side always runs first after a pause.
  if (( r % 2 )); then gauss_cli "$r"; gauss_bench "$r"; logistic_bench "$r"; logistic_cli "$r"
  else gauss_bench "$r"; gauss_cli "$r"; logistic_cli "$r"; logistic_bench "$r"; fi
  "$bench/bench_run_layer" --benchmark_enable_random_interleaving=true --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=json --benchmark_out="$out/run_layer_$r.json" \
    --benchmark_out_format=json > /dev/null
done
load "end"

python3 - "$out" "$reps" "$gsteps" "$lsteps" <<'PY'
import json, statistics, sys
out, reps, gsteps, lsteps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
med = statistics.median
def bench(path):
    rows = json.load(open(path))["benchmarks"]
    return {r["run_name"]: r for r in rows if r.get("run_type") == "iteration" or r.get("aggregate_name") == "median"}
def unit(r):  # seconds per time unit
    return {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time_unit"]]
def cli(name, r):
    rec = json.load(open(f"{out}/cli_{name}_{r}.json"))
    assert rec["status"] == "ok", name
    return rec["timings"]["phases"][0]["sampling_seconds"]
def cpu(name, r):  # the process's user + sys seconds
    _, user, sys_ = map(float, open(f"{out}/cli_{name}_{r}.time").read().split()[-3:])
    return user + sys_
def cli_cpu(name, r):
    return cpu(name, r) - cpu(f"{name}_0steps", r)
def row(label, c, cc, w, p, scale):
    # c: CLI wall, cc: CLI CPU, w: library wall, p: library CPU (lists over repetitions, seconds per unit)
    rw, rc = [a / b for a, b in zip(c, w)], [a / b for a, b in zip(cc, p)]
    print(f"  {label:40s} {med(c) * scale:9.3f} {med(w) * scale:9.3f} {med(c) / med(w):6.3f} {min(rw):5.2f}-{max(rw):4.2f}"
          f" {med(cc) * scale:9.3f} {med(p) * scale:9.3f} {med(cc) / med(p):6.3f} {min(rc):5.2f}-{max(rc):4.2f}")
header = f"{'wall':>9s} {'wall':>9s} {'ratio':>6s} {'per rep':>10s} {'CPU':>9s} {'CPU':>9s} {'ratio':>6s} {'per rep':>10s}"
R = range(1, reps + 1)
d = 100000
print(f"\n1. SGHMC ABOBA on N(0, I), d = 10^5 (ns per coordinate-step; medians of {reps}; CLI / library, wall and CPU):")
print(f"  {'':40s} {'CLI':>9s} {'library':>9s} {'':17s} {'CLI':>9s} {'library':>9s}\n  {'':40s} {header}")
for noise, bm in ((0, "BM_Library/100000"), (1, "BM_LibraryGradNoise/100000")):
    c = [cli(f"gauss_noise{noise}", r) / (gsteps * d) for r in R]
    cc = [cli_cpu(f"gauss_noise{noise}", r) / (gsteps * d) for r in R]
    b = [bench(f"{out}/sghmc_{r}.json")[bm] for r in R]
    row(f"grad_noise {noise} vs {bm.split('/')[0][3:]}", c, cc, [x["real_time"] * unit(x) / d for x in b], [x["cpu_time"] * unit(x) / d for x in b], 1e9)
print(f"\n2. Logistic regression, d = 50, batch 100, SGHMC (us per step; medians of {reps}; CLI / hand loop and"
      " CLI / library, wall and CPU):")
print(f"  {'':40s} {'CLI':>9s} {'baseline':>9s} {'':17s} {'CLI':>9s} {'baseline':>9s}\n  {'':40s} {header}")
for n in (100000, 1000000):
    for rep, flag in ((0, "false"), (1, "true")):
        c = [cli(f"logistic_n{n}_replace_{flag}", r) / lsteps for r in R]
        cc = [cli_cpu(f"logistic_n{n}_replace_{flag}", r) / lsteps for r in R]
        for impl in ("Hand", "Library"):
            b = [bench(f"{out}/logistic_{r}.json")[f"BM_Logistic{impl}/N:{n}/replace:{rep}/iterations:5"] for r in R]
            row(f"N {n:7d} {'with' if rep else 'without':7s} vs {impl}", c, cc, [x["real_time"] * unit(x) / 1e4 for x in b],
                [x["cpu_time"] * unit(x) / 1e4 for x in b], 1e6)
print(f"\n3. The run layer per step, SGHMC ABOBA on N(0, I_d) (ns per step, CPU; medians over {reps} runs of the median of 3):")
print(f"  {'d':>5s} {'Concrete':>9s} {'Erased':>9s} {'Cli':>9s} {'Cli-Conc':>9s} {'Cli/Conc':>9s} {'Erased-Conc':>11s}")
for dd in (1, 10, 100):
    v = {k: med(bench(f"{out}/run_layer_{r}.json")[f"BM_{k}/{dd}"]["per_step"] for r in R) * 1e9 for k in ("Concrete", "Erased", "Cli")}
    print(f"  {dd:5d} {v['Concrete']:9.1f} {v['Erased']:9.1f} {v['Cli']:9.1f} {v['Cli'] - v['Concrete']:9.1f}"
          f" {v['Cli'] / v['Concrete']:9.3f} {v['Erased'] - v['Concrete']:11.1f}")
PY
echo "load during the runs:"; cat "$out/load.txt"
