#!/usr/bin/env bash
# Tuned by default against NUTS (issue #36, its "Show", first row; docs/benchmarks.md, "Tuned by default:
# logistic regression against NUTS"): Bayesian logistic regression at N = 10^5, d = 50 (the data of
# "Against NUTS", "At the issue's size"), sgmcmc configs with no step_size, no batch_size and no
# SGHMC friction, so the run tunes them first (docs/tuning.md), scored against a pooled NUTS reference.
#   1. writes the data (scripts/logistic_data.py 100000 50 --intercept --theta-sd 0.3, seed 1);
#   2. runs Stan's NUTS (scripts/nuts_reference.R: 4 x (1000 warm-up + 1000), cores = 2) once per Stan
#      seed of NUTS_SEEDS (default 1 2 3 4), one after the other; seed 1's sampling wall time is the
#      baseline (one standard run), the reference is all of them pooled (4 chains each: 16 chains,
#      16,000 draws by default; two runs left the max over 50 coordinates of the reference's own sd
#      error at 3.5-4 %, too near the 5 % it judges); its own Monte Carlo error per coordinate
#      (posterior's ess_bulk, mcse_mean, mcse_sd over the pooled chains) goes to ref_stats.csv;
#   3. runs five untuned configs, 4 chains on --threads 2, the same steps/burn_in/thin and seed:
#      sgld + control_variate, sghmc + control_variate, sgld + saga, sgld + svrg, sgld plain
#      minibatch; each timed by /usr/bin/time (the process's elapsed seconds), `uptime` logged first;
#   4. scores each against the pooled reference (python3): max over coordinates of
#      |mean - ref mean| / ref sd, max |sd / ref sd - 1|, the mean sd ratio, min bulk ESS, wall seconds
#      and the record's setup/tuning/sampling split, the fraction of NUTS's seconds, tuning's share,
#      and the tuner's choice (config.tune.chosen); a Markdown table on stdout, scores.json in OUT.
# Usage: scripts/bench_tuning_nuts.sh
# Env: SGMCMC (the CLI binary; default: $BUILD/apps/sgmcmc, built Release like scripts/bench_nuts.sh),
#      BUILD (default build-bench-nuts), OUT (default $BUILD/nuts-results/n100000_d50: bench_nuts.sh's
#      folder at this size, so its data and NUTS draws can be kept), REUSE=1 (keep the data and the
#      NUTS draws already in OUT), STEPS, BURN_IN, THIN (default 100000, 10000, 45: the "At the
#      issue's size" sweep's), SEED (default 11), INIT (default "mode"; "" for a random start),
#      ROWS (default "cv sghmc_cv saga svrg minibatch"), NICE (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
scripts/deps.sh r-cran-rstan r-cran-posterior python3 time
n=100000
d=50
build="${BUILD:-build-bench-nuts}"
out="${OUT:-$build/nuts-results/n${n}_d${d}}"
steps="${STEPS:-100000}"
burn_in="${BURN_IN:-10000}"
thin="${THIN:-45}"
seed="${SEED:-11}"
init="${INIT-mode}"
rows="${ROWS:-cv sghmc_cv saga svrg minibatch}"
if [ -z "${SGMCMC:-}" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=OFF -DSGMCMC_BUILD_APPS=ON > /dev/null
  cmake --build "$build" -j"${JOBS:-1}" --target sgmcmc_cli
  SGMCMC="$repo/$build/apps/sgmcmc"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
csv="$out/logistic_n${n}_d${d}.csv"
loads="$out/tuning_loads.txt"  # `uptime` before each timed run: other load on the machine

# 1. The data.
if [ "${REUSE:-0}" = 1 ] && [ -f "$csv" ]; then
  echo "== REUSE=1: keeping $csv"
else
  python3 scripts/logistic_data.py "$n" "$d" "$csv" --intercept --theta-sd 0.3
fi

# 2. NUTS, one run per seed, one after the other (each uses both cores).
nuts_seeds="${NUTS_SEEDS:-1 2 3 4}"
case " $nuts_seeds " in *" 1 "*) ;; *) echo "NUTS_SEEDS must include 1 (its run is the time baseline)" >&2; exit 2 ;; esac
reference_files=()
for s in $nuts_seeds; do
  reference_files+=("$out/nuts_reference$([ "$s" = 1 ] && echo "" || echo "_seed$s").csv")
done
for s in $nuts_seeds; do
  suffix=$([ $s = 1 ] && echo "" || echo "_seed$s")
  if [ "${REUSE:-0}" = 1 ] && [ -f "$out/nuts_reference$suffix.csv" ] && [ -f "$out/nuts_seconds$suffix.txt" ]; then
    echo "== REUSE=1: keeping NUTS seed $s ($(cat "$out/nuts_seconds$suffix.txt") s)"
    continue
  fi
  echo "nuts seed $s: $(uptime)" >> "$loads"
  Rscript scripts/nuts_reference.R "$csv" "$out" "$s"
done

# The pooled reference (4 chains of 1000 per run: nuts_reference.R writes as.matrix(fit), each chain's
# draws contiguous) and its own error, per coordinate.
Rscript - "$out/ref_stats.csv" "${reference_files[@]}" <<'R'
suppressPackageStartupMessages(library(posterior))
a <- commandArgs(trailingOnly = TRUE)
m <- do.call(rbind, lapply(a[-1], function(f) as.matrix(read.csv(f))))
chains <- 4 * (length(a) - 1); per <- nrow(m) / chains
arr <- array(NA_real_, c(per, chains, ncol(m)), dimnames = list(NULL, NULL, colnames(m)))
for (c in 1:chains) arr[, c, ] <- m[((c - 1) * per + 1):(c * per), ]
s <- summarise_draws(as_draws_array(arr), mean, sd, ess_bulk, ess_tail, mcse_mean, mcse_sd, rhat)
s <- data.frame(lapply(s, function(x) if (is.numeric(x)) as.numeric(unclass(x)) else as.character(x)))
write.csv(s, a[1], row.names = FALSE)
cat(sprintf(paste0("pooled NUTS reference: %d draws (%d chains); min bulk ESS %.0f, max R-hat %.4f; ",
                   "MCSE of a mean: max %.4f sd (median %.4f); MCSE of an sd: max %.2f%% (median %.2f%%)\n"),
            nrow(m), chains, min(s$ess_bulk), max(s$rhat), max(s$mcse_mean / s$sd), median(s$mcse_mean / s$sd),
            100 * max(s$mcse_sd / s$sd), 100 * median(s$mcse_sd / s$sd)))
R

# 3. The untuned configs: no step_size, batch_size or friction.
config() {  # $1 row, $2 file
  python3 - "$1" "$2" "$csv" "$steps" "$burn_in" "$thin" "$seed" "$init" <<'PY'
import json, sys
row, path, csv, steps, burn_in, thin, seed, init = sys.argv[1:]
sampler, estimator = {"cv": ("sgld", "control_variate"), "sghmc_cv": ("sghmc", "control_variate"),
                      "saga": ("sgld", "saga"), "svrg": ("sgld", "svrg"), "minibatch": ("sgld", None)}[row]
target = {"name": "logistic", "data": csv}
if estimator:
    target["estimator"] = estimator
c = {"sampler": {"name": sampler}, "target": target, "steps": int(steps), "burn_in": int(burn_in),
     "thin": int(thin), "chains": 4, "seed": int(seed)}
if init:
    c["init"] = init
json.dump(c, open(path, "w"), indent=1)
PY
}
for row in $rows; do
  config "$row" "$out/tuning_$row.json"
  echo "$row: $(uptime)" >> "$loads"
  echo "== $row: $(uptime)"
  /usr/bin/time -f "%e" -o "$out/tuning_$row.seconds" \
    nice -n "${NICE:-5}" "$SGMCMC" run "$out/tuning_$row.json" -o "$out/tuning_$row.rec.json" -q --threads 2
  "$SGMCMC" summary "$out/tuning_$row.rec.json" --json > "$out/tuning_$row.summary.json"
done

# 4. The scores.
python3 - "$out" "$rows" "$(( 4000 * ${#reference_files[@]} ))" <<'PY'
import csv, json, math, sys
out, rows, reference_draws = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
ref = list(csv.DictReader(open(f"{out}/ref_stats.csv")))
rmean = [float(r["mean"]) for r in ref]
rsd = [float(r["sd"]) for r in ref]
nuts = float(open(f"{out}/nuts_seconds.txt").read())
label = {"cv": "SGLD, control variates", "sghmc_cv": "SGHMC, control variates", "saga": "SGLD, SAGA",
         "svrg": "SGLD, SVRG", "minibatch": "SGLD, plain minibatch"}
scores = {"nuts_seconds": nuts, "reference_draws": reference_draws, "rows": []}
print(f"NUTS (seed 1): {nuts:.1f} s; goal: max z <= 0.1, max |sd ratio - 1| <= 0.05, wall <= 2 % of NUTS ({0.02 * nuts:.2f} s)\n")
print("| sampler, gradient | chosen h | batch | friction | max z | max \\|sd ratio − 1\\| | mean sd ratio | min bulk ESS "
      "| wall s | set-up s (tuning s) | sampling s | of NUTS | tuning's share | goal |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for row in rows:
    rec = json.load(open(f"{out}/tuning_{row}.rec.json"))
    summ = json.load(open(f"{out}/tuning_{row}.summary.json"))["summary"]
    mean = [c["mean"] for c in summ]
    sd = [c["sd"] for c in summ]
    z = [abs(m - rm) / rs for m, rm, rs in zip(mean, rmean, rsd)]
    ratio = [s / rs for s, rs in zip(sd, rsd)]
    sderr = [abs(r - 1) for r in ratio]
    ess = min(c["ess_bulk"] for c in summ)
    phase = rec["timings"]["phases"][0]
    wall = float(open(f"{out}/tuning_{row}.seconds").read().split()[-1])
    tune = rec["config"].get("tune", {})
    chosen = tune.get("chosen", {})
    friction = rec["config"]["sampler"].get("friction")
    ok = max(z) <= 0.1 and max(sderr) <= 0.05 and wall <= 0.02 * nuts
    r = {"row": row, "sampler": label[row], "chosen": chosen, "friction": friction,
         "arms": len(tune.get("arms", [])), "gradient_evaluations": tune.get("gradient_evaluations"),
         "curvature": tune.get("curvature"), "max_z": max(z), "max_z_coordinate": z.index(max(z)),
         "max_sd_error": max(sderr), "max_sd_error_coordinate": sderr.index(max(sderr)),
         "mean_sd_ratio": sum(ratio) / len(ratio), "min_ess_bulk": ess, "wall_seconds": wall,
         "setup_seconds": phase["setup_seconds"], "tuning_seconds": phase.get("tuning_seconds", 0.0),
         "sampling_seconds": phase["sampling_seconds"], "of_nuts": wall / nuts,
         "tuning_share": phase.get("tuning_seconds", 0.0) / wall, "meets_goal": ok}
    scores["rows"].append(r)
    fr = f"{friction:.3g}" if isinstance(friction, (int, float)) else "—"
    print(f"| {label[row]} | {chosen.get('step_size', float('nan')):.2g} | {chosen.get('batch_size', '—')} | {fr} "
          f"| {r['max_z']:.3f} | {r['max_sd_error']:.3f} | {r['mean_sd_ratio']:.3f} | {ess:.0f} | {wall:.2f} "
          f"| {r['setup_seconds']:.2f} ({r['tuning_seconds']:.2f}) | {r['sampling_seconds']:.2f} | {wall / nuts:.2%} "
          f"| {r['tuning_share']:.0%} | {'met' if ok else 'missed'} |")
json.dump(scores, open(f"{out}/tuning_scores.json", "w"), indent=1)
print(f"\nscores: {out}/tuning_scores.json; loads before each timed run: {out}/tuning_loads.txt")
PY
