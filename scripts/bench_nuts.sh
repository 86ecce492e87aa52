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
#   4. prints a table: per point, max z, max |sd ratio − 1| and seconds as a fraction of NUTS's.
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

[ $reuse = 1 ] || python3 - "$n" "$d" "$csv" "$theta_sd" <<'PY'
import math, random, sys
n, d, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(1)
if sys.argv[4]:
    theta = [rng.gauss(0, float(sys.argv[4])) for _ in range(d)]
else:
    theta = [rng.gauss(0, 1) / math.sqrt(d) for _ in range(d)]
with open(path, "w") as f:
    f.write(",".join(["intercept"] + [f"x{k}" for k in range(1, d)] + ["label"]) + "\n")
    for _ in range(n):
        x = [1.0] + [rng.gauss(0, 1) for _ in range(d - 1)]
        z = sum(a * b for a, b in zip(x, theta))
        y = 1 if rng.random() < 1 / (1 + math.exp(-z)) else 0
        f.write(",".join(repr(v) for v in x) + f",{y}\n")
PY

[ $reuse = 1 ] || Rscript - "$csv" "$out" <<'R'
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(rstan))
# Debian's r-cran-bh keeps Boost in /usr/include (libboost-dev) rather than in the BH package.
if (!file.exists(rstan_options("boost_lib"))) rstan_options(boost_lib = "/usr/include")
d <- read.csv(args[1]); X <- as.matrix(d[, -ncol(d)]); y <- d[, ncol(d)]
code <- "data { int N; int D; matrix[N, D] X; int<lower=0, upper=1> y[N]; real<lower=0> s; }
         parameters { vector[D] theta; }
         model { theta ~ normal(0, s); y ~ bernoulli_logit(X * theta); }"
model <- stan_model(model_code = code)
data <- list(N = nrow(X), D = ncol(X), X = X, y = y, s = 1)
seconds <- system.time(fit <- sampling(model, data = data, chains = 4, iter = 2000, seed = 1, cores = 2, refresh = 0))[["elapsed"]]
draws <- as.matrix(fit, pars = "theta")
write.csv(draws, file.path(args[2], "nuts_reference.csv"), row.names = FALSE)
s <- summary(fit, pars = "theta")$summary
cat(sprintf("%.3f\n", seconds), file = file.path(args[2], "nuts_seconds.txt"))
cat(sprintf("NUTS: %.1f s wall (4 chains, 2 cores), min bulk n_eff %.0f, max Rhat %.4f\n", seconds, min(s[, "n_eff"]), max(s[, "Rhat"])))
R

python3 - "$csv" "$out/sweep.json" "$sweep" <<'PY'
import json, sys
csv, path, sweep = sys.argv[1], sys.argv[2], sys.argv[3]
config = json.load(open(sweep))
config["target"]["data"] = csv
json.dump(config, open(path, "w"), indent=1)
PY
"$build/apps/sgmcmc" sweep "$out/sweep.json" --reference "$out/nuts_reference.csv" -o "$out/scores.json" --svg "$out/scores.svg" --threads 2

python3 - "$out/scores.json" "$out/nuts_seconds.txt" <<'PY'
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
