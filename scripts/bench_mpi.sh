#!/usr/bin/env bash
# The MPI benchmarks of docs/benchmarks.md ("MPI: data-parallel logistic regression"):
#   1. Bayesian logistic regression on N generated examples (default 10⁷, d = 50; nothing stored on
#      disk) sharded over R = 1, 2, 4 ranks (4 oversubscribed on a 2-core machine, reported as such):
#      sampling seconds per 10⁴ SGLD steps for batch sizes 100, 1000, 10000, the setup (data
#      generation) seconds, and each rank's peak memory (GNU time's maximum resident set);
#   2. bench_mpi_comm (bench/mpi/comm_cost.cpp): ping-pong, the group's reduction against
#      MPI_Allreduce, one shard's gradient part;
#   3. the scaling model fitted from 2 and checked against 1, with its predictions at 8 and 64
#      machines for N = 10⁷–10⁹.
# Usage: scripts/bench_mpi.sh   Env: N (examples, default 10000000), STEPS (default 10000),
#        OUT (default build-mpi/results), REUSE=1 (only the analysis of the results in OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
scripts/deps.sh libopenmpi-dev openmpi-bin libbenchmark-dev time
N="${N:-10000000}"
STEPS="${STEPS:-10000}"
out="${OUT:-build-mpi/results}"
if [ -z "${REUSE:-}" ]; then  # REUSE=1: only the analysis, of the results in $out
configure build-mpi -DCMAKE_BUILD_TYPE=Release -DSGMCMC_MPI=ON -DSGMCMC_BUILD_BENCH=ON -DSGMCMC_BUILD_TESTS=OFF \
          -DSGMCMC_BUILD_APPS=ON -DSGMCMC_BUILD_EXPERIMENTS=OFF -DSGMCMC_BUILD_FUZZ=OFF -DSGMCMC_SANITIZE=
cmake --build build-mpi -j"$(nproc)" --target sgmcmc_cli bench_mpi_comm
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.jsonl "$out"/mem.*
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name: *//'); $(mpirun --version | head -1)"

"${mpirun[@]}" -np 2 build-mpi/bench/bench_mpi_comm > "$out/comm2.jsonl"
"${mpirun[@]}" -np 4 build-mpi/bench/bench_mpi_comm | grep '"reduce"' > "$out/comm4.jsonl"

for ranks in 1 2 4; do
  for batch in 100 1000 10000; do
    name="r${ranks}_b${batch}"
    python3 - "$out/$name.config.json" "$N" "$STEPS" "$batch" "$ranks" <<'PY'
import json, sys
path, n, steps, batch, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
steps = max(steps, steps * 1000 // batch)  # small batches run longer: a second or more of sampling
c = {"sampler": {"name": "sgld", "step_size": 1e-7},
     "target": {"name": "logistic", "data": {"examples": n, "features": 50, "seed": 1}, "batch_size": batch},
     "steps": steps, "thin": steps, "chains": 1, "seed": 1}
if ranks > 1:
    c["distributed"] = {"shards": ranks}
json.dump(c, open(path, "w"))
PY
    # Each rank's peak resident memory, from GNU time around the rank.
    "${mpirun[@]}" -np "$ranks" sh -c '/usr/bin/time -f "%M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$out/mem.$name" \
      build-mpi/apps/sgmcmc run "$out/$name.config.json" -o "$out/$name.json" -q
  done
done

fi

python3 - "$out" "$N" "$STEPS" <<'PY'
import json, math, sys, glob
out, N, STEPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [json.loads(l) for f in ("comm2.jsonl", "comm4.jsonl") for l in open(f"{out}/{f}")]
pp = [r for r in rows if r["kind"] == "pingpong"]
# t = α + β s by least squares on the relative error (weights 1/t²): plain least squares on the times
# is the largest messages' alone, and gives a meaningless (even negative) α.
w = [1 / r["one_way_seconds"] ** 2 for r in pp]
x = [r["bytes"] for r in pp]; y = [r["one_way_seconds"] for r in pp]
sw = sum(w); swx = sum(a * b for a, b in zip(w, x)); swy = sum(a * b for a, b in zip(w, y))
swxx = sum(a * b * b for a, b in zip(w, x)); swxy = sum(a * b * c for a, b, c in zip(w, x, y))
beta = (sw * swxy - swx * swy) / (sw * swxx - swx * swx); alpha = (swy - beta * swx) / sw
small = min(r["one_way_seconds"] for r in pp)
print("\nPing-pong (one way):")
for r in pp:
    print(f"  {r['bytes']:>9d} B  {r['one_way_seconds'] * 1e6:10.2f} us")
print(f"  fit: alpha = {alpha * 1e6:.2f} us (smallest message {small * 1e6:.2f} us), beta = {beta * 1e9:.3f} ns/B ({1 / beta / 1e9:.2f} GB/s)")
print("\nReduction of a d-vector (us):")
for r in rows:
    if r["kind"] == "reduce":
        print(f"  R = {r['ranks']}{' (oversubscribed)' if r['ranks'] > 2 else ''}, d = {r['d']:5d}: group_sum {r['group_sum_seconds'] * 1e6:8.2f}, MPI_Allreduce {r['allreduce_seconds'] * 1e6:8.2f}")
grad = {(r["shard_rows"], r["batch"]): r["seconds"] for r in rows if r["kind"] == "gradient"}
print("\nOne shard's gradient part, d = 50 (us):")
for (shard, m), t in sorted(grad.items()):
    print(f"  shard of {shard:>8d} rows, {m:>6d} examples: {t * 1e6:10.2f}")
big = max(s for s, _ in grad)
t_row = (grad[(big, 10000)] - grad[(big, 100)]) / 9900
t_g0 = grad[(big, 100)] - 100 * t_row
print(f"  out of cache: {t_row * 1e9:.1f} ns per example + {t_g0 * 1e6:.2f} us per call")

print(f"\nCLI, SGLD on N = {N:.0e} generated examples, d = 50, max({STEPS}, {STEPS}·1000/batch) steps:")
print(f"  {'R':>3s} {'batch':>6s} {'s/1e4 steps':>12s} {'setup s':>8s} {'MB per rank (max)':>18s}")
cli = {}
for f in sorted(glob.glob(f"{out}/r*_b*.json")):
    if f.endswith(".config.json"):
        continue
    name = f.split("/")[-1][:-5]
    R, b = int(name[1:name.index("_")]), int(name[name.index("_b") + 2:])
    rec = json.load(open(f))
    ph = rec["timings"]["phases"][0]
    mem = [int(open(m).read().split()[-1]) / 1024 for m in glob.glob(f"{out}/mem.{name}.*")]
    steps = rec["config"]["steps"]
    cli[(R, b)] = ph["sampling_seconds"] / steps
    print(f"  {R:>3d} {b:>6d} {ph['sampling_seconds'] * 1e4 / steps:12.3f} {ph['setup_seconds']:8.1f} {max(mem):18.0f}"
          f"{'  (oversubscribed: 4 ranks on 2 cores)' if R > 2 else ''}")

# The model, from this machine's measurements: t₁(n), one rank's step at batch n, measured by the
# one-rank CLI runs (n = 100, 1000, 10000; 10⁵ extrapolated ×10 from 10⁴). Of it, the batch's indices
# c·n (measured) are computed by every rank of a group; the rest — the gather and the products over the
# batch's rows — R ranks share. A step over R ranks: t_R(n) = c·n + (t₁(n) − c·n)/R + comm(R), comm(R)
# the group's reduction of a d-vector: (R − 1)(α + 8dβ) for group_sum's allgather (a ring), or
# 2⌈log2 R⌉(α + 8dβ) for a fixed-order tree (the exact-bits alternative at scale). t₁ is measured
# with a 4 GB shard, every row a cache and TLB miss: as at N = 10⁷–10⁹ over 8 or 64 machines
# (shards of 1.2·10⁵ rows and up, 50 MB and up).
d = 50
t1 = {b: t for (R, b), t in cli.items() if R == 1}
t1[100000] = 10 * t1[10000]
idx = {r["with_replacement"]: r["seconds"] / r["batch"] for r in rows if r["kind"] == "indices"}
c_idx = idx[False]
print(f"\nBatch indices at N = 1e7: {idx[False] * 1e9:.1f} ns each without replacement (the default), {idx[True] * 1e9:.1f} ns with")
def comm(R, a, b, tree=False):
    return (2 * math.ceil(math.log2(R)) if tree else R - 1) * (a + 8 * d * b) if R > 1 else 0.0
def step(R, batch, a, b, tree=False):
    return c_idx * batch + (t1[batch] - c_idx * batch) / R + comm(R, a, b, tree)
print("\nModel check against the CLI (predicted / measured seconds per 1e4 steps):")
for (R, b), t in sorted(cli.items()):
    if R > 1:
        print(f"    R = {R}, batch {b:>6d}: {step(R, b, alpha, beta) * 1e4:8.3f} / {t * 1e4:8.3f}{'  (oversubscribed: 4 ranks on 2 cores)' if R > 2 else ''}")
nets = {"this machine (shared memory)": (alpha, beta),
        "InfiniBand-class (assumed: alpha 2 us, 10 GB/s)": (2e-6, 1e-10),
        "10 GbE TCP (assumed: alpha 30 us, 1.1 GB/s)": (30e-6, 1 / 1.1e9)}
print("\nPredicted steps per second (ring allgather | fixed-order tree), N = 1e7..1e9 (N changes only the memory per rank:")
print("every shard of 1e7/R rows and up is out of cache, so the per-example cost is the one measured at 4 GB):")
for net, (a, b) in nets.items():
    print(f"  {net}:")
    for R in (1, 8, 64):
        cells = []
        for batch in (100, 1000, 10000, 100000):
            cells.append(f"n={batch:>6d}: {1 / step(R, batch, a, b):9.0f} | {1 / step(R, batch, a, b, True):9.0f}")
        print(f"    R = {R:>2d}  " + "  ".join(cells))
    for R in (8, 64):
        for tree in (False, True):
            per_example = (t1[10000] - c_idx * 10000) / 10000
            nstar = R * comm(R, a, b, tree) / per_example
            print(f"    R = {R}: communication dominates below a batch of {nstar:,.0f} examples ({'tree' if tree else 'ring'})")
print("\nMemory per rank, N (d + 1) 8 B / R: " + ", ".join(
    f"N = {n:.0e}: R = 8 {n * 51 * 8 / 8 / 2**30:.1f} GiB, R = 64 {n * 51 * 8 / 64 / 2**30:.2f} GiB" for n in (1e7, 1e8, 1e9)))
PY
