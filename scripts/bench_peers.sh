#!/usr/bin/env bash
# Seconds per epoch of SGHMC on the library's real models against a PyTorch peer, in one run, with an
# equivalence check of the two gradients (bench/peers/README.md; issue #16):
#   BNN on Fashion-MNIST (f64, f32; 1 and 2 threads), logistic regression at d = 50 and d = 1000
#   (synthetic), BPMF on MovieLens; the library in its default (-march=native) and portable builds,
#   PyTorch in float64 and float32. Prints one markdown table; the raw JSON goes to OUT.
# Usage: scripts/bench_peers.sh [--only bnn|logistic|bpmf] [--epochs K] [--quick] [--with-peer-install] [--out DIR]
#   --epochs K           timed epochs per configuration after one warm-up epoch (default 3); the table
#                        shows the median
#   --quick              20 steps per "epoch": a smoke test of the whole flow, not a measurement
#   --with-peer-install  also install python3-torch and python3-numpy (or PEERS_INSTALL=1); otherwise the
#                        peer runs only if /usr/bin/python3 can import torch
#   --out DIR            where the JSON goes (default build-peers/results; or OUT=DIR)
# Everything runs serially: never two timed things at once. Numbers taken while other jobs run on the
# machine are not meaningful; the load is printed at the start and the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

only=all epochs=3 quick=() install_peer="${PEERS_INSTALL:-0}" out="${OUT:-$root/build-peers/results}"
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --epochs) epochs="$2"; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --with-peer-install) install_peer=1; shift ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench_peers: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$only" in all|bnn|logistic|bpmf) ;; *) echo "bench_peers: --only expects bnn, logistic or bpmf, got '$only'" >&2; exit 2 ;; esac
[[ "$epochs" =~ ^[1-9][0-9]*$ ]] || { echo "bench_peers: --epochs expects a positive integer, got '$epochs'" >&2; exit 2; }
wants() { [ "$only" = all ] || [ "$only" = "$1" ]; }

# ---- the machine
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { [[ " $flags " == *" $1 "* ]] && echo yes || echo no; }
echo "== machine: nproc $(nproc), $(lscpu | sed -n 's/^Model name: *//p'), avx2 $(has avx2), avx512f $(has avx512f)"
echo "== load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# OpenBLAS picks its kernels by CPU; in a VM its detection can fall back to a generic core, so the peer
# is told the core type this CPU's vector units support.
coretype=
if [ "$(has avx512f)" = yes ]; then coretype=SkylakeX; elif [ "$(has avx2)" = yes ]; then coretype=Haswell; fi

# ---- what the runs need: OpenBLAS as the BLAS Debian's torch links (libblas.so.3 is an
# update-alternatives link, and the reference BLAS is far slower), Google Benchmark while
# bench/CMakeLists.txt requires it for its other programs, torch itself only when asked.
pkgs=(libopenblas0-pthread)
grep -q 'find_package(benchmark REQUIRED)' bench/CMakeLists.txt && pkgs+=(libbenchmark-dev)
[ "$install_peer" = 1 ] && pkgs+=(python3-torch python3-numpy)
scripts/deps.sh "${pkgs[@]}"
echo "== libblas.so.3 -> $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo '?')"

have_torch=0
if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
  have_torch=1
else
  echo "== NOTE: /usr/bin/python3 cannot import torch and numpy: the PyTorch peer is skipped (install it with" \
       "--with-peer-install or PEERS_INSTALL=1)"
fi

fmnist= ratings=
wants bnn && fmnist=$(scripts/data.sh fashion-mnist)
wants bpmf && ratings=$(scripts/data.sh movielens)

# ---- the two builds of bench_epochs (only that target)
build() {  # build dir, portable ON/OFF
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_BENCH=ON -DSGMCMC_BUILD_TESTS=OFF \
    -DSGMCMC_BUILD_APPS=OFF -DSGMCMC_PORTABLE="$2" >"$out/cmake-$(basename "$1").log"
  cmake --build "$1" --target bench_epochs -j"$(nproc)" >>"$out/cmake-$(basename "$1").log" 2>&1 ||
    { tail -30 "$out/cmake-$(basename "$1").log" >&2; exit 1; }
}
mkdir -p "$out"
rm -f "$out"/run_*.json
echo "== building bench_epochs: build-peers (default flags) and build-peers-portable (-DSGMCMC_PORTABLE=ON)"
build build-peers OFF
build build-peers-portable ON

# ---- the runs
lib() {  # build label, model args..., precision, threads; writes run_sgmcmc-<label>_<tag>_<prec>_t<T>.json
  local label=$1 tag=$2 prec=$3 threads=$4; shift 4
  local dir=build-peers; [ "$label" = portable ] && dir=build-peers-portable
  local check=(); [ "$label" = default ] && [ "$threads" = 1 ] && check=(--check-dir "$out")
  local rc=0
  "$dir/bench/bench_epochs" "$@" --precision "$prec" --threads "$threads" --epochs "$epochs" --label "$label" \
    "${quick[@]}" "${check[@]}" --out "$out/run_sgmcmc-${label}_${tag}_${prec}_t${threads}.json" || rc=$?
  [ $rc = 0 ] || { echo "bench_peers: bench_epochs failed ($label $tag $prec $threads)" >&2; exit 1; }
}
peer() {  # tag, precision, threads, check header
  [ $have_torch = 1 ] || return 0
  local tag=$1 prec=$2 threads=$3 check=$4 rc=0
  env OPENBLAS_CORETYPE="$coretype" OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" \
    /usr/bin/python3 bench/peers/torch_epochs.py "$check" --precision "$prec" --threads "$threads" --epochs "$epochs" \
    "${quick[@]}" --out "$out/run_torch_${tag}_${prec}_t${threads}.json" || rc=$?
  [ $rc = 3 ] && { echo "bench_peers: the PyTorch $tag $prec gradient differs from the library's (see above)" >&2; exit 1; }
  [ $rc = 0 ] || { echo "bench_peers: the PyTorch peer failed ($tag $prec $threads)" >&2; exit 1; }
}
# One model: the library's builds (threads $2) and then both torch precisions. The f32 torch peer checks
# against the library's f32 gradient where there is one, else against the f64 one.
model() {  # tag, "library threads", "peer threads", "library precisions", bench_epochs args...
  local tag=$1 lib_threads=$2 peer_threads=$3 precs=$4; shift 4
  echo "== $tag"
  for t in $lib_threads; do
    for p in $precs; do lib default "$tag" "$p" "$t" "$@"; lib portable "$tag" "$p" "$t" "$@"; done
  done
  for t in $peer_threads; do
    peer "$tag" f64 "$t" "$out/check_${tag}_f64.json"
    local c32="$out/check_${tag}_f32.json"; [ -f "$c32" ] || c32="$out/check_${tag}_f64.json"
    peer "$tag" f32 "$t" "$c32"
  done
}
rm -f "$out"/check_*
# The logistic and BPMF models compute on one thread (the `threads` setting is the BNN's): the library
# runs once, torch on 1 and 2 threads (its element-wise ops and BLAS calls can use both).
wants bnn && model bnn "1 2" "1 2" "f64 f32" bnn --data "$fmnist"
wants logistic && model logistic_d50 1 "1 2" f64 logistic --dim 50
wants logistic && model logistic_d1000 1 "1 2" f64 logistic --dim 1000
wants bpmf && model bpmf 1 "1 2" f64 bpmf --data "$ratings"
echo "== load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the table
/usr/bin/python3 - "$out" "${quick[*]:-}" <<'EOF'
import glob, json, os, sys
out, quick = sys.argv[1], sys.argv[2]
runs = {}
for path in glob.glob(os.path.join(out, "run_*.json")):
    with open(path) as f:
        r = json.load(f)
    side = "torch" if r["side"] == "torch" else "sgmcmc-" + r["build"]
    runs[(side, r["model"], r["precision"], r["threads"])] = r
def sec(key):
    r = runs.get(key)
    return None if r is None else r["median"]
def fmt(v, note=""):
    return "n/a" if v is None else f"{v:.4g}{note}"
def ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.2f}"
order = ["bnn", "logistic_d50", "logistic_d1000", "bpmf"]
rows = sorted({(m, p, t) for (s, m, p, t) in runs if s.startswith("sgmcmc") or s == "torch"},
              key=lambda k: (order.index(k[0]) if k[0] in order else 9, k[1], k[2]))
lines = ["| model | precision | threads | sgmcmc (default build) | sgmcmc (portable) | torch f64 | torch f32 "
         "| torch f64 / sgmcmc | torch f32 / sgmcmc |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
seen = set()
for m, p, t in rows:
    if m != "bnn" and p == "f32":
        continue  # the library has no f32 logistic/BPMF: torch f32 shows in the f64 rows
    if (m, p, t) in seen:
        continue
    seen.add((m, p, t))
    note, lt = "", t
    if m != "bnn" and ("sgmcmc-default", m, p, t) not in runs and ("sgmcmc-default", m, p, 1) in runs:
        note, lt = " ¹", 1  # single-threaded model: the 1-thread run
    lib, port = sec(("sgmcmc-default", m, p, lt)), sec(("sgmcmc-portable", m, p, lt))
    t64, t32 = sec(("torch", m, "f64", t)), sec(("torch", m, "f32", t))
    if m == "bnn":  # ratios at the same precision
        r64, r32 = (ratio(t64, lib), "—") if p == "f64" else ("—", ratio(t32, lib))
    else:
        r64, r32 = ratio(t64, lib), ratio(t32, lib)
    lines.append(f"| {m} | {p} | {t} | {fmt(lib, note)} | {fmt(port, note)} | {fmt(t64)} | {fmt(t32)} | {r64} | {r32} |")
print()
print("Seconds per epoch (median)" + (" — QUICK: 20 steps per 'epoch', not a measurement" if quick else "") + "; "
      "ratio > 1: the library is faster.")
print()
print("\n".join(lines))
print()
print("¹ the library's logistic and BPMF models compute on one thread: the 1-thread run.")
shares = [f"{m} {p} t{t} {r['model_share'] * 100:.0f} %" for (side, m, p, t), r in sorted(runs.items())
          if side == "sgmcmc-default" and "model_share" in r]
if shares:
    print("The model's share of the library's epoch (the same number of stochastic gradients alone, default "
          "build; the rest is the sampler's update and noise): " + ", ".join(shares) + ".")
torch_runs = [r for k, r in runs.items() if k[0] == "torch"]
if torch_runs:
    g = [r["gemm_f64_gflops"] for r in torch_runs]
    def both(r):
        return ", ".join("%s %.4g s" % (k, v["median"]) for k, v in r["impls"].items())
    impls = sorted({f"{r['model']} {r['precision']} t{r['threads']}: {r['impl']} ({both(r)})"
                    for r in torch_runs if r["model"] == "bnn"})
    print(f"torch {torch_runs[0]['torch']}, BLAS {os.path.basename(torch_runs[0]['blas'][-1]) if torch_runs[0]['blas'] else '?'}, "
          f"OPENBLAS_CORETYPE={torch_runs[0]['env']['OPENBLAS_CORETYPE']}, OMP_WAIT_POLICY={torch_runs[0]['env']['OMP_WAIT_POLICY']}; "
          f"1000×1000 f64 matmul {min(g):.1f}–{max(g):.1f} GFLOP/s.")
    sources = sorted({f"{r['model']} {r['precision']}: {r['noise']}" for r in torch_runs if "noise" in r})
    if sources:
        print("Peer's normal draws (the faster source, measured at start): " + "; ".join(sources) + ".")
    if impls:
        print("BNN peer, the faster of hand-written backprop and autograd: " + "; ".join(impls) + ".")
    print("Equivalence (max|Δ|/max|g| of torch's gradient against the library's at θ₀ on one batch): " +
          ", ".join(f"{r['model']} {r['precision']} t{r['threads']} {r['residual']:.2g}" for r in
                    sorted(torch_runs, key=lambda r: (r["model"], r["precision"], r["threads"]))) + ".")
else:
    print("No PyTorch peer ran (see the note above).")
print(f"Raw JSON: {out}/run_*.json; check files: {out}/check_*.")
EOF
