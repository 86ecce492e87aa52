#!/usr/bin/env bash
# Builds the Google Benchmark programs (Release, into build-bench/) and runs them with repetitions,
# then prints the medians and the ratios docs/benchmarks.md reports.
# Usage: scripts/bench.sh [extra Google Benchmark flags, e.g. --benchmark_filter=Library]
# Env: REPS (default 5) repetitions per benchmark; OUT (default build-bench/results) for the JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh libbenchmark-dev
reps="${REPS:-5}"
out="${OUT:-build-bench/results}"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_BENCH=ON -DSGMCMC_BUILD_TESTS=OFF \
      -DSGMCMC_BUILD_APPS=OFF > /dev/null
cmake --build build-bench -j"$(nproc)" --target bench_sghmc_step bench_normals bench_geodesic bench_logistic bench_sam bench_run_layer bench_dense bench_batch_indices bench_glm bench_autodiff
mkdir -p "$out"
echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name: *//'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
# bench_dense's OpenBLAS baseline: the kernel this CPU should get (0.3.21 does not recognise newer CPUs),
# one thread like the library's product.
coretype=Haswell; grep -q avx512f /proc/cpuinfo && coretype=SkylakeX
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$coretype}" OPENBLAS_NUM_THREADS=1
for b in bench_normals bench_sghmc_step bench_geodesic bench_logistic bench_sam bench_run_layer bench_dense bench_batch_indices bench_glm bench_autodiff; do
  # Random interleaving runs the repetitions of all benchmarks in shuffled order, so a busy neighbour
  # slows the library, the hand loop and the floor alike instead of whichever ran at the wrong moment.
  ./build-bench/bench/"$b" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
    --benchmark_enable_random_interleaving=true --benchmark_out="$out/$b.json" --benchmark_out_format=json "$@"
done
command -v python3 >/dev/null || { echo "python3 not found: raw results are in $out/" >&2; exit 0; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def stat(name, counter, which):
    rows = json.load(open(f"{out}/{name}.json"))["benchmarks"]
    return {r["run_name"]: r[counter] * 1e9 for r in rows
            if r.get("aggregate_name") == which and counter in r}
n = stat("bench_normals", "per_normal", "median")
print("\nNormals (median ns per normal; million draws per second):")
for k, v in n.items():
    print(f"  {k:34s} {v:8.3f} ns  {1e3 / v:8.1f} M/s")
for which in ("median", "min"):
    s = stat("bench_sghmc_step", "per_coord", which)
    if not s:
        continue
    print(f"\nSGHMC ABOBA step ({which} over repetitions, ns per coordinate):")
    print(f"  {'d':>8s} {'library':>9s} {'hand':>9s} {'floor':>9s} {'lib/hand':>9s} {'lib/floor':>10s}"
          f" {'hand/floor':>10s} {'lib-hand':>9s} {'flow+grad':>10s}")
    for d in (10, 1000, 100000, 1000000):
        lib, hand, floor, flow, grad = (s.get(f"BM_{k}/{d}") for k in ("Library", "Hand", "Floor", "FlowPass", "GradientPass"))
        if None in (lib, hand, floor):
            continue
        extra = f"{flow + grad:10.3f}" if None not in (flow, grad) else f"{'':10s}"
        print(f"  {d:8d} {lib:9.3f} {hand:9.3f} {floor:9.3f} {lib / hand:9.3f} {lib / floor:10.2f}"
              f" {hand / floor:10.2f} {lib - hand:9.3f} {extra}")
g = stat("bench_geodesic", "per_coord", "median")
gs = stat("bench_geodesic", "per_step", "median")
if g:
    print("\nGeodesic (median ns per coordinate; issue #5 goal: sphere / euclidean <= 1.5 for n >= 1e3):")
    print(f"  {'n':>8s} {'sphere':>8s} {'eucl.gauss':>10s} {'eucl.lin':>9s} {'sph/gauss':>9s} {'sph/lin':>8s} {'flow':>7s} {'project':>8s}")
    for d in (10, 1000, 100000, 1000000):
        sp, ga, li, fl, pr = (g.get(f"BM_{k}/{d}") for k in ("Sphere", "EuclideanGauss", "EuclideanLinear", "SphereFlow", "SphereProject"))
        if None in (sp, ga, li):
            continue
        print(f"  {d:8d} {sp:8.3f} {ga:10.3f} {li:9.3f} {sp / ga:9.2f} {sp / li:8.2f} {fl or 0:7.3f} {pr or 0:8.3f}")
    print(f"  {'Stiefel (n,p)':>14s} {'ns/step':>10s} {'ns/coord':>9s} {'flow ns/step':>13s}")
    for n, p in ((10, 3), (100, 3), (1000, 3), (100, 10), (1000, 10), (100, 50)):
        k = f"BM_Stiefel/{n}/{p}"
        if k in g:
            print(f"  {f'({n},{p})':>14s} {gs[k]:10.0f} {g[k]:9.2f} {gs.get(f'BM_StiefelFlow/{n}/{p}', 0):13.0f}")
rows = json.load(open(f"{out}/bench_logistic.json"))["benchmarks"]
lr = {r["run_name"]: (r["cpu_time"], r.get("max_rel_diff")) for r in rows if r.get("aggregate_name") == "median"}
if lr:
    print("\nLogistic regression, d = 50, batch 100 (median CPU ms per 10^4 SGHMC steps; issue #11 goal: library / hand <= 1.1;"
          "\n  per-example: the library's previous path; max rel diff: library vs hand after 1,000 steps):")
    print(f"  {'N':>8s} {'sampling':>13s} {'library':>8s} {'hand':>8s} {'lib/hand':>8s} {'per-example':>11s} {'old/lib':>8s} {'max rel diff':>12s}")
    for n in (100000, 1000000):
        for rep, sampling in ((0, "without repl."), (1, "with repl.")):
            lib, hand, old = (lr.get(f"BM_Logistic{k}/N:{n}/replace:{rep}/iterations:5") for k in ("Library", "Hand", "PerExample"))
            if lib and hand:
                before = f"{old[0]:11.1f} {old[0] / lib[0]:8.2f}" if old else f"{'':11s} {'':8s}"
                print(f"  {n:8d} {sampling:>13s} {lib[0]:8.1f} {hand[0]:8.1f} {lib[0] / hand[0]:8.2f} {before} {lib[1] or 0:12.1e}")
sam = {r["run_name"]: r["real_time"] for r in json.load(open(f"{out}/bench_sam.json"))["benchmarks"]
       if r.get("aggregate_name") == "median"}
if sam:
    print("\nSAM, V = 5000 (median ms per SGGMC iteration, real time; issue #6):")
    print(f"  {'K':>3s} {'batch':>5s} {'1 thread':>9s} {'2 threads':>9s} {'speed-up':>8s}")
    for K in (20, 50):
        for b in (50, 100):
            one = sam.get(f"BM_SamSggmcStep/K:{K}/batch:{b}/threads:1/iterations:20/real_time")
            two = sam.get(f"BM_SamSggmcStep/K:{K}/batch:{b}/threads:2/iterations:20/real_time")
            if one and two:
                print(f"  {K:3d} {b:5d} {one:9.2f} {two:9.2f} {one / two:8.2f}")
dn = {r["run_name"]: r.get("gflops") for r in json.load(open(f"{out}/bench_dense.json"))["benchmarks"]
      if r.get("aggregate_name") == "median"}
if dn:
    print("\nDense products, the BNN's shapes (median GFLOP/s; issue #16: the fixed-order kernel against Eigen and OpenBLAS):")
    print(f"  {'product':>9s} {'type':>7s} {'Eigen':>7s} {'kernel':>7s} {'OpenBLAS':>8s} {'kernel/Eigen':>12s} {'kernel/OpenBLAS':>15s}")
    for p in ("Forward", "Backward"):
        for t in ("float", "double"):
            e, k, o = (dn.get(f"{p}/{t}/{w}") for w in ("eigen", "kernel", "openblas"))
            if e and k:
                o_s, r_s = (f"{o:8.1f}", f"{k / o:15.2f}") if o else (f"{'-':>8s}", f"{'-':>15s}")
                print(f"  {p:>9s} {t:>7s} {e:7.1f} {k:7.1f} {o_s} {k / e:12.2f} {r_s}")
bi = stat("bench_batch_indices", "per_batch", "median")
if bi:
    print("\nMinibatch indices without replacement, n = 100 (median ns per batch; the keyed permutation walked per batch,"
          "\n  its previous per-index walk, and a shuffled index array of N entries):")
    print(f"  {'N':>8s} {'library':>8s} {'per-index':>9s} {'shuffle':>8s} {'per-index/lib':>13s} {'lib/shuffle':>11s}")
    for n in (10000, 100000, 1000000):
        lib, old, shuf = (bi.get(f"BM_Indices{k}/N:{n}") for k in ("Library", "PerIndex", "Shuffle"))
        if None not in (lib, old, shuf):
            print(f"  {n:8d} {lib:8.0f} {old:9.0f} {shuf:8.0f} {old / lib:13.2f} {lib / shuf:11.2f}")
rl = stat("bench_run_layer", "per_step", "median")
if rl:
    print("\nRun layer, SGHMC ABOBA on N(0, I_d) (median ns per step; issue #11 item 7; scripts/bench_cli.sh for the CLI):")
    print(f"  {'d':>5s} {'concrete':>9s} {'erased':>9s} {'CLI chain':>9s} {'CLI-conc.':>9s}")
    for d in (1, 10, 100):
        c, e, a = (rl.get(f"BM_{k}/{d}") for k in ("Concrete", "Erased", "Cli"))
        if None not in (c, e, a):
            print(f"  {d:5d} {c:9.1f} {e:9.1f} {a:9.1f} {a - c:9.1f}")
gl = {r["run_name"]: r["cpu_time"] for r in json.load(open(f"{out}/bench_glm.json"))["benchmarks"] if r.get("aggregate_name") == "median"}
if gl:
    print("\nGLM target's minibatch gradient, logistic model, N = 1e5, d = 50, batch 100 (median CPU ns per gradient; issue #35:"
          "\n  the same cost as the logistic target's):")
    h, l, g = (gl.get(f"{k}_gradient") for k in ("Hand", "Logistic", "Glm"))
    if None not in (h, l, g):
        print(f"  hand {h:8.0f}  logistic {l:8.0f}  glm {g:8.0f}  glm/logistic {g / l:5.2f}  glm/hand {g / h:5.2f}")
ad = {r["run_name"]: r["cpu_time"] for r in json.load(open(f"{out}/bench_autodiff.json"))["benchmarks"]
      if r.get("aggregate_name") == "median"}
if ad:
    print("\nAutomatic differentiation (median CPU us per minibatch gradient, ratio to the hand-written one; issue #35:"
          "\n  GLM <= 1.5, net <= 3):")
    for name, t in ad.items():
        n = name.split("/")[1] if "/" in name else ""
        hand = ad.get(f"BM_GlmHand/{n}") if name.startswith("BM_Glm") else ad.get("BM_NetHand")
        unit = 1e-3 if name.startswith("BM_Glm") else 1.0  # ns for the GLM cases, us for the net's
        if hand:
            print(f"  {name:34s} {t * unit:10.2f} {t / hand:8.2f}")
PY
