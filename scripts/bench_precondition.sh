#!/usr/bin/env bash
# Preconditioning on an ill-conditioned posterior (issue #14; docs/benchmarks.md, "Ill-conditioned
# posterior"): how many gradient evaluations each sampler needs to reach the NUTS reference's
# posterior — every mean within 0.1 reference sd and every sd within 5 % — with and without a
# diagonal preconditioner.
#   1. writes a Bayesian logistic regression whose predictors are badly scaled: N examples (default
#      10000), d features (default 10) x_j = s_j z_j with z_j ~ N(0, 1) and s_j = 10^(2j/(d−1)) (1 to
#      100), θ*_j ~ N(0, 0.3²)/s_j, labels ~ Bernoulli(σ(xᵀθ*)) (Python's Mersenne Twister, seed 2):
#      the posterior sds differ 100-fold and its curvatures 10⁴-fold;
#   2. fits it with Stan's NUTS through Debian's r-cran-rstan (4 chains × 1000 + 1000; NUTS adapts a
#      diagonal metric, so the scales cost it little): the reference;
#   3. runs `sgmcmc sweep` (scripts/sweeps/precondition_logistic.json: SGLD and SGHMC with and without
#      `preconditioner: "diagonal"`, and pSGLD with its RMSprop preconditioner frozen after the
#      burn-in, at the default damping λ = 1e-5 and at Li et al.'s (1e-5 on the per-example mean: N·1e-5
#      on the summed gradient); every sampler on the control-variate gradient) at each run length of STEPS;
#   4. prints, per sampler, the fewest gradient evaluations (all chains) at which some step size met
#      both goals, and the best it reached at the longest run otherwise.
#   Every chain starts at the control variate's centre (`"init": "centre"`: the mode L-BFGS found).
# Usage: scripts/bench_precondition.sh   Env: N, D, STEPS (run lengths per chain, default
#   "3000 10000 30000 100000 300000 1000000"), ONLY (a Python regex: run only the samplers whose
#   label it matches in full, e.g. ONLY=sgld), JOBS, BUILD (default build-bench-nuts), OUT (default
#   $BUILD/precondition-results), REUSE=1 (keep the data, the NUTS reference and the scores already
#   in OUT: the summary reads every scores_<steps>.json there, so a longer run of one sampler adds to it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh r-cran-rstan python3
n="${N:-10000}"
d="${D:-10}"
steps_list="${STEPS:-3000 10000 30000 100000 300000 1000000}"
build="${BUILD:-build-bench-nuts}"
out="${OUT:-$build/precondition-results}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=OFF -DSGMCMC_BUILD_APPS=ON > /dev/null
cmake --build "$build" -j"${JOBS:-1}" --target sgmcmc_cli
mkdir -p "$out"
csv="$out/scaled_logistic_n${n}_d${d}.csv"

if [ "${REUSE:-0}" = 1 ] && [ -f "$csv" ] && [ -f "$out/nuts_reference.csv" ] && [ -f "$out/nuts_seconds.txt" ]; then
  echo "== REUSE=1: the data, the NUTS reference and the scores in $out are kept"
else
rm -f "$out"/scores_*.json "$out"/sweep_*.json
python3 scripts/logistic_data.py "$n" "$d" "$csv" --seed 2 --theta-sd 0.3 --decades 2

Rscript scripts/nuts_reference.R "$csv" "$out"
fi

for steps in $steps_list; do
  python3 - "$csv" "$out/sweep_$steps.json" "$steps" "${ONLY:-.*}" "$n" <<'PY'
import json, re, sys
csv, path, steps, only, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
config = json.load(open("scripts/sweeps/precondition_logistic.json"))
config["target"]["data"] = csv
config["steps"] = steps
config["burn_in"] = steps // 10
config["thin"] = max(1, (steps - steps // 10) // 2000)  # about 2000 draws a chain
config["sweep"]["samplers"] = [s for s in config["sweep"]["samplers"] if re.fullmatch(only, s["label"])]
if not config["sweep"]["samplers"]:
    sys.exit(f"ONLY={only!r} matches no sampler label in scripts/sweeps/precondition_logistic.json")
for s in config["sweep"]["samplers"]:  # pSGLD freezes its preconditioner at the end of the burn-in
    if s["sampler"]["name"] == "psgld":
        s["sampler"]["adapt_steps"] = steps // 10
        if "lambda = N 1e-5" in s["label"]:  # Li et al.'s damping 1e-5 on the per-example mean gradient
            s["sampler"]["lambda"] = n * 1e-5
json.dump(config, open(path, "w"), indent=1)
PY
  echo "== $steps steps per chain"
  # A run of some samplers (ONLY) keeps the other samplers' scores at this length.
  "$build/apps/sgmcmc" sweep "$out/sweep_$steps.json" --reference "$out/nuts_reference.csv" -o "$out/new_scores_$steps.json" --threads 2 > /dev/null
  python3 - "$out/new_scores_$steps.json" "$out/scores_$steps.json" <<'PY'
import json, os, sys
new, old = json.load(open(sys.argv[1])), sys.argv[2]
if os.path.exists(old):
    ran = {p["sampler"] for p in new["points"]}
    new["points"] = [p for p in json.load(open(old))["points"] if p["sampler"] not in ran] + new["points"]
json.dump(new, open(old, "w"), indent=1)
os.remove(sys.argv[1])
PY
done

python3 - "$out" <<'PY'
import json, os, re, sys
out = sys.argv[1]
steps_list = sorted(int(m.group(1)) for f in os.listdir(out) if (m := re.fullmatch(r"scores_(\d+)\.json", f)))
best, closest, longest = {}, {}, {}
for steps in steps_list:
    for p in json.load(open(os.path.join(out, f"scores_{steps}.json")))["points"]:
        name = p["sampler"]
        if p.get("status") != "ok":
            continue
        ok = p["max_z"] <= 0.1 and p["max_sd_error"] <= 0.05
        if ok and (name not in best or p["gradient_evals"] < best[name]["gradient_evals"]):
            best[name] = dict(p, steps=steps)
        score = max(p["max_z"] / 0.1, p["max_sd_error"] / 0.05)
        if longest.get(name, 0) < steps:  # the best point at each sampler's longest run
            longest[name], closest[name] = steps, (score, p)
        elif steps == longest[name] and score < closest[name][0]:
            closest[name] = (score, p)
print(f"goal: every mean within 0.1 NUTS sd and every sd within 5 %; run lengths {steps_list} steps per chain")
print(f"{'sampler':<36} {'gradient evals':>14} {'steps':>8} {'h':>9} {'max z':>6} {'max|sd-1|':>9}")
for name in sorted(set(best) | set(closest)):
    if name in best:
        b = best[name]
        print(f"{name:<36} {b['gradient_evals']:>14} {b['steps']:>8} {b['step_size']:>9.3g} {b['max_z']:>6.3f} {b['max_sd_error']:>9.3f}")
    else:
        p = closest[name][1]
        print(f"{name:<36} {'not reached':>14} {longest[name]:>8} {p['step_size']:>9.3g} {p['max_z']:>6.3f} {p['max_sd_error']:>9.3f}  "
              f"(best at its longest run, {p['gradient_evals']} evaluations)")
PY
