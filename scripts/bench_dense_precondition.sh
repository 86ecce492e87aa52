#!/usr/bin/env bash
# A dense preconditioner on an ill-conditioned regression posterior (issue #35 item 2; docs/benchmarks.md,
# "Dense preconditioning"): SGHMC with no preconditioner, the diagonal one and the dense one, at equal
# gradient counts, against an exact reference.
#   1. writes the posterior of a linear regression y = Xβ + ε, ε ~ N(0, 1), flat prior, on N examples
#      (default 1000) of d = 26 features (posteriordb's diamonds has 26 coefficients) that share one
#      latent factor (x_ij = s_j(√ρ f_i + √(1 − ρ) e_ij), ρ = 0.98) and have scales s_j = 10^(j/(d−1)),
#      1 to 10 (Python's Mersenne Twister, seed 3): the posterior is N(μ, (XᵀX)⁻¹), strongly correlated
#      and badly scaled — a `gaussian` target with that mean and dense covariance, exact gradients;
#   2. draws 40000 independent exact draws of it (the reference: its means and sds are the exact ones
#      to within 0.005 sd); the target is written in units of the posterior's geometric-mean scale
#      (det Σ = 1: a change of units, the same geometry);
#   3. runs `sgmcmc sweep` (SGHMC, friction 1, ABOBA; none / "diagonal" / "dense", estimated over the
#      burn-in, the low-rank-plus-diagonal one with k = 1, and the exact Σ given as `cov`: the ideal
#      dense factor) over one grid of step sizes,
#      every run the same length: 4 chains × STEPS steps (default 100000, burn-in a fifth), so every
#      point spends the same gradients; chains start at the mode;
#   4. runs the dense preconditioner (and the low-rank one with k = 1) in two phases, as a user can: its warm-up alone (burn_in steps)
#      at h = 0.03, the largest step at which the unpreconditioned warm-up (S = I) stays finite in the
#      sweep, then `sgmcmc resume --allow-changed` at each larger h of the grid with the factor fixed
#      (the same total steps, so the same gradients), scored as the sweep scores (the reference's
#      means and sds; `sgmcmc summary --json` for the bulk ESS);
#   5. prints per sampler and step size the smallest bulk ESS over the 26 coordinates per gradient
#      evaluation (all chains, burn-in included), the largest |mean error| in reference sds (max z) and
#      the largest |sd ratio − 1|, and per sampler the best ESS per gradient among the points with
#      max z ≤ 0.1 and every sd within 10 %.
# Usage: scripts/bench_dense_precondition.sh   Env: N, STEPS, JOBS, BUILD (default build-bench-dense),
#   OUT (default $BUILD/dense-precondition-results), REBUILD=0 (use $BUILD/apps/sgmcmc as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-1000}"
steps="${STEPS:-100000}"
build="${BUILD:-build-bench-dense}"
out="${OUT:-$build/dense-precondition-results}"
if [ ! -x "$build/apps/sgmcmc" ] || [ "${REBUILD:-1}" = 1 ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_TESTS=OFF -DSGMCMC_BUILD_APPS=ON > /dev/null
  cmake --build "$build" -j"${JOBS:-1}" --target sgmcmc_cli
fi
mkdir -p "$out"

python3 - "$n" "$steps" "$out" <<'PY'
import json, math, random, sys
n, steps, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
d, rho = 26, 0.98
rng = random.Random(3)
scales = [10 ** (j / (d - 1)) for j in range(d)]
beta = [rng.gauss(0, 0.3) / scales[j] for j in range(d)]
X, y = [], []
for i in range(n):
    f = rng.gauss(0, 1)
    row = [scales[j] * (math.sqrt(rho) * f + math.sqrt(1 - rho) * rng.gauss(0, 1)) for j in range(d)]
    X.append(row)
    y.append(sum(a * b for a, b in zip(row, beta)) + rng.gauss(0, 1))
P = [[sum(X[i][a] * X[i][b] for i in range(n)) for b in range(d)] for a in range(d)]
Xty = [sum(X[i][a] * y[i] for i in range(n)) for a in range(d)]

def cholesky(A):
    L = [[0.0] * len(A) for _ in A]
    for i in range(len(A)):
        for j in range(i + 1):
            s = A[i][j] - sum(L[i][k] * L[j][k] for k in range(j))
            L[i][j] = math.sqrt(s) if i == j else s / L[j][j]
    return L

def solve_lower(L, b):
    x = []
    for i in range(len(b)):
        x.append((b[i] - sum(L[i][k] * x[k] for k in range(i))) / L[i][i])
    return x

def solve_upper_t(L, b):  # Lᵀx = b
    m = len(b); x = [0.0] * m
    for i in reversed(range(m)):
        x[i] = (b[i] - sum(L[k][i] * x[k] for k in range(i + 1, m))) / L[i][i]
    return x

Lp = cholesky(P)
mean = solve_upper_t(Lp, solve_lower(Lp, Xty))
cov = []
for j in range(d):
    e = [1.0 if k == j else 0.0 for k in range(d)]
    cov.append(solve_upper_t(Lp, solve_lower(Lp, e)))
cov = [[(cov[a][b] + cov[b][a]) / 2 for b in range(d)] for a in range(d)]
# In units of the posterior's geometric-mean scale: θ' = θ/det(Σ)^(1/2d), so det Σ' = 1 (the scale a
# dense preconditioner normalised to det L = 1 leaves, where SGHMC's default friction 1 and steps of
# O(0.1) fit). A change of units: every sampler sees the same geometry, the condition number unchanged.
log_det = 2 * sum(math.log(r[i]) for i, r in enumerate(cholesky(cov)))
unit = math.exp(log_det / (2 * d))
mean = [m / unit for m in mean]
cov = [[c / unit ** 2 for c in row] for row in cov]
P = [[c * unit ** 2 for c in row] for row in P]
sds = [math.sqrt(cov[j][j]) for j in range(d)]
# Condition number of Σ by power iteration on Σ and on P = Σ⁻¹.
def top(A):
    v = [1.0] * d
    for _ in range(2000):
        w = [sum(A[i][k] * v[k] for k in range(d)) for i in range(d)]
        norm = math.sqrt(sum(x * x for x in w)); v = [x / norm for x in w]
    return norm
print(f"posterior sds {min(sds):.3g} … {max(sds):.3g}; condition number of the covariance {top(cov) * top(P):.3g}")
# Σ normalised to det 1 is Σ itself here (the units above): the exact inverse metric a dense factor
# estimates.
cov_normalised = cov
L = cholesky(cov)
with open(f"{out}/reference.csv", "w") as ref:
    ref.write(",".join(f"x.{j + 1}" for j in range(d)) + "\n")
    for _ in range(40000):
        z = [rng.gauss(0, 1) for _ in range(d)]
        ref.write(",".join(repr(mean[i] + sum(L[i][k] * z[k] for k in range(i + 1))) for i in range(d)) + "\n")
grid = [0.01, 0.03, 0.1, 0.15, 0.3, 1.0]
sampler = lambda pre: {"name": "sghmc", "friction": 1.0, **({"preconditioner": pre} if pre else {})}
config = {
    "target": {"name": "gaussian", "mean": mean, "cov": cov},
    "steps": steps, "burn_in": steps // 5, "thin": max(1, steps // 20000), "chains": 4, "seed": 21, "init": "mode",
    "sweep": {"step_sizes": grid, "samplers": [
        {"label": "sghmc", "sampler": sampler(None)},
        {"label": "sghmc, diagonal", "sampler": sampler("diagonal")},
        {"label": "sghmc, dense", "sampler": sampler("dense")},
        {"label": "sghmc, low_rank (k = 1)", "sampler": sampler({"kind": "low_rank", "rank": 1})},
        # The ideal dense factor, given (no warm-up): how far the estimated one is from it.
        {"label": "sghmc, dense given", "sampler": sampler({"cov": cov_normalised})}]}}
json.dump(config, open(f"{out}/sweep.json", "w"), indent=1)
PY

"$build/apps/sgmcmc" sweep "$out/sweep.json" --reference "$out/reference.csv" -o "$out/scores.json" --threads "${JOBS:-2}" > /dev/null

python3 - "$out" "$build/apps/sgmcmc" <<'PY'
import csv, json, math, subprocess, sys
out, tool = sys.argv[1], sys.argv[2]
sweep = json.load(open(f"{out}/sweep.json"))
rows = [[float(v) for v in r] for r in list(csv.reader(open(f"{out}/reference.csv")))[1:]]
ref_mean = [sum(c) / len(c) for c in zip(*rows)]
ref_sd = [math.sqrt(sum((v - m) ** 2 for v in c) / (len(c) - 1)) for c, m in zip(zip(*rows), ref_mean)]
points = []
warm_h = 0.03
for name, pre in [("dense", "dense"), ("low_rank (k = 1)", {"kind": "low_rank", "rank": 1})]:
  tag = name.split()[0]
  config = {k: v for k, v in sweep.items() if k != "sweep"}
  config["sampler"] = {"name": "sghmc", "friction": 1.0, "step_size": warm_h, "preconditioner": pre}
  config["steps"] = config["burn_in"]
  json.dump(config, open(f"{out}/warm_{tag}.json", "w"))
  subprocess.run([tool, "run", f"{out}/warm_{tag}.json", "-q", "-o", f"{out}/warm_{tag}.run.json"], check=True)
  for h in sweep["sweep"]["step_sizes"]:
    if h <= warm_h:
        continue
    record = json.load(open(f"{out}/warm_{tag}.run.json"))
    record["config"]["sampler"]["step_size"] = h
    json.dump(record, open(f"{out}/warm_{tag}_{h}.json", "w"))
    done = subprocess.run([tool, "resume", f"{out}/warm_{tag}_{h}.json", "--steps", str(sweep["steps"] - sweep["burn_in"]),
                           "--allow-changed", "-q", "-o", f"{out}/two_phase_{tag}_{h}.json"])
    label = f"sghmc, {name} (warm-up at h = {warm_h})"
    if done.returncode != 0:
        points.append({"sampler": label, "step_size": h, "status": f"exit {done.returncode}"})
        continue
    record = json.load(open(f"{out}/two_phase_{tag}_{h}.json"))
    summary = json.loads(subprocess.run([tool, "summary", f"{out}/two_phase_{tag}_{h}.json", "--json"], check=True,
                                        capture_output=True, text=True).stdout)["summary"]
    points.append({"sampler": label, "step_size": h, "status": record["status"],
                   "gradient_evals": sum(c["diagnostics"]["gradient_evals"] for c in record["chains"]),
                   "min_ess_bulk": min(s["ess_bulk"] for s in summary),
                   "max_z": max(abs(s["mean"] - m) / sd for s, m, sd in zip(summary, ref_mean, ref_sd)),
                   "max_sd_error": max(abs(s["sd"] / sd - 1) for s, sd in zip(summary, ref_sd))})
points = json.load(open(f"{out}/scores.json"))["points"] + points
print(f"{'sampler':<46} {'h':>8} {'gradients':>10} {'min ESS':>8} {'ESS/grad':>9} {'max z':>7} {'max|sd-1|':>9}")
best = {}
for p in points:
    if p.get("status") != "ok":
        print(f"{p['sampler']:<46} {p['step_size']:>8.3g}  {p.get('status')}")
        continue
    per = p["min_ess_bulk"] / p["gradient_evals"]
    print(f"{p['sampler']:<46} {p['step_size']:>8.3g} {p['gradient_evals']:>10} {p['min_ess_bulk']:>8.1f} {per:>9.2e} "
          f"{p['max_z']:>7.3f} {p['max_sd_error']:>9.3f}")
    if p["max_z"] <= 0.1 and p["max_sd_error"] <= 0.1 and per > best.get(p["sampler"], (0, None))[0]:
        best[p["sampler"]] = (per, p["step_size"])
for name in sorted({p["sampler"] for p in points}):
    b = best.get(name)
    print(f"best {name:<46}: " + (f"{b[0]:.2e} ESS per gradient at h = {b[1]:g}" if b else "no point with max z <= 0.1 and sds within 10 %"))
PY
