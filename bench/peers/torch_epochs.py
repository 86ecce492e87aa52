#!/usr/bin/python3
"""The PyTorch peer of bench/peers/epochs.cpp: seconds per epoch of SGHMC (ABOBA, scalar friction C,
no noise correction, step h) on the same model, data and settings, written as a PyTorch user would
write it well: hand-written forward/backward with torch matrix ops under torch.no_grad(), preallocated
buffers (index_select with out=, in-place updates), normals drawn into a preallocated noise buffer (by
torch.randn or NumPy's generator into the same memory, whichever is faster; see normal_source). For
the BNN an autograd version is timed too, and the faster one is the headline number.

The configuration (h, C, batch, data, model sizes) comes from the check header the C++ program wrote
(check_<model>_<precision>.json), so both sides run one configuration. Before timing, the peer
recomputes the library's stochastic gradient at the header's θ₀ on its batch with the very gradient
function it times and reports max|Δ|/max|g|; it exits with status 3 when that exceeds 1e-12 (float64)
or 1e-4 (float32).

Usage: torch_epochs.py CHECK_JSON --out OUT_JSON [--precision f64|f32] [--threads T] [--epochs K]
       [--quick] [--bnn-impl best|hand|autograd]
Run with /usr/bin/python3 (Debian's python3-torch); scripts/bench_peers.sh sets OPENBLAS_CORETYPE and
OMP_WAIT_POLICY=PASSIVE.
"""
import argparse
import ctypes
import gzip
import json
import math
import os
import statistics
import sys
import time

QUICK_STEPS = 20  # --quick: an "epoch" of 20 steps, as bench_epochs --quick
TOLERANCE = {"f64": 1e-12, "f32": 1e-4}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("check", help="check_<model>_<precision>.json written by bench_epochs --check-dir")
    p.add_argument("--out", required=True)
    p.add_argument("--precision", choices=["f64", "f32"], default="f64")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--epochs", type=int, default=3, help="timed epochs after one warm-up epoch")
    p.add_argument("--quick", action="store_true", help="20 steps per epoch: a smoke test")
    p.add_argument("--bnn-impl", choices=["best", "hand", "autograd"], default="best",
                   help="bnn: time both and report the faster (best), or only one")
    return p.parse_args()


args = parse_args()
# The thread counts must be in the environment before libgomp and OpenBLAS load (at `import torch`).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(var, str(args.threads))

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(args.threads)
DTYPE = torch.float64 if args.precision == "f64" else torch.float32
NP_DTYPE = np.float64 if args.precision == "f64" else np.float32


def loaded_blas():
    """The BLAS library this process has mapped (libblas.so.3 is an update-alternatives link)."""
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "blas" in path.lower():
                libs.add(os.path.realpath(path))
    return sorted(libs)


def openblas_threads(libs):
    """openblas_get_num_threads() of the loaded OpenBLAS (None without one)."""
    for path in libs:
        if "openblas" in os.path.basename(path):
            try:
                return ctypes.CDLL(path).openblas_get_num_threads()
            except (OSError, AttributeError):
                return None
    return None


def gemm_gflops(n=1000, reps=5):
    """GFLOP/s of an n×n float64 matmul (best of reps): shows whether the BLAS is a tuned one."""
    a = torch.randn(n, n, dtype=torch.float64)
    b = torch.randn(n, n, dtype=torch.float64)
    c = torch.empty(n, n, dtype=torch.float64)
    torch.mm(a, b, out=c)
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        torch.mm(a, b, out=c)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n ** 3 / best / 1e9


def normal_source(buf):
    """A function filling `buf` with standard normals: torch.randn(out=) or NumPy's ziggurat (PCG64)
    writing into the same memory, whichever is faster here for this size and dtype (measured once).
    torch 1.13's float64 normal sampler is scalar (about 20 ns a draw against 5 for float32), and
    NumPy's float64 ziggurat beats it; for float32 torch's vectorised Box–Muller wins."""
    arr = buf.numpy()  # shares buf's storage: no copy per step
    rng = np.random.default_rng(int(torch.randint(0, 2 ** 62, (1,))))

    def by_torch():
        torch.randn(buf.shape, out=buf)

    def by_numpy():
        rng.standard_normal(out=arr, dtype=arr.dtype)

    candidates = [(by_torch, "torch.randn"), (by_numpy, "numpy.random.Generator.standard_normal")]
    best = [math.inf] * len(candidates)
    for _ in range(5):  # alternating rounds, each candidate's fastest: robust to a busy neighbour
        for k, (f, _name) in enumerate(candidates):
            t0 = time.perf_counter()
            for _ in range(3):
                f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return candidates[best.index(min(best))]


class Sghmc:
    """SGHMC with the ABOBA splitting, as sghmc::Sampler's fused path:
    x += h/2·v;  g = ∇Ũ(x);  v = e·(e·v + sd·ζ − h·g);  x += h/2·v,  e = exp(−C·h/2), sd = √(2Ch).
    The velocity update is written as two in-place axpys on e²·v (the same arithmetic up to rounding)."""

    def __init__(self, x0, h, friction, grad, n, batch):
        self.x = x0
        self.v = torch.randn(x0.shape, dtype=x0.dtype)
        self.g = torch.zeros_like(x0)
        self.noise = torch.empty_like(x0)
        self.h = h
        e = math.exp(-friction * h / 2)
        self.keep, self.sd, self.kick = e * e, e * math.sqrt(2 * friction * h), -e * h
        self.grad, self.n, self.batch = grad, n, batch
        self.normals, self.noise_source = normal_source(self.noise)
        self.perm = torch.randperm(n)
        self.pos = n  # batches are consecutive slices of a fresh permutation per pass (without replacement)

    def step(self):
        if self.pos + self.batch > self.n:
            torch.randperm(self.n, out=self.perm)
            self.pos = 0
        idx = self.perm[self.pos:self.pos + self.batch]
        self.pos += self.batch
        x, v = self.x, self.v
        x.add_(v, alpha=self.h / 2)
        self.grad(x, idx, self.g)
        self.normals()
        v.mul_(self.keep).add_(self.noise, alpha=self.sd).add_(self.g, alpha=self.kick)
        x.add_(v, alpha=self.h / 2)


# ---- models: each builds (dim, N, batch, x0, grad(x, idx, g)) with grad writing the full potential's
# minibatch gradient, prior + (N/n)·Σ_batch, into g.

def read_idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


class BnnHand:
    """784–100–10 sigmoid/softmax net, backprop by hand. θ is the library's layout
    [vec(W1) (d×H, column-major), b1, vec(W2) (H×K), b2]: as row-major tensors W1 is W1ᵀ (H×d)."""

    def __init__(self, cfg, X, Y1h, y):
        self.d, self.H, self.K = cfg["in"], cfg["hidden"], cfg["classes"]
        self.l1, self.l2 = cfg["prior_precisions"]
        self.scale = cfg["N"] / cfg["batch"]
        self.X, self.Y1h, self.y = X, Y1h, y
        n, dt = cfg["batch"], X.dtype
        self.Xb = torch.empty(n, self.d, dtype=dt)
        self.Yb = torch.empty(n, self.K, dtype=dt)
        self.A = torch.empty(n, self.H, dtype=dt)
        self.O = torch.empty(n, self.K, dtype=dt)
        self.dZ = torch.empty(n, self.H, dtype=dt)

    def views(self, t):
        d, H, K = self.d, self.H, self.K
        L1 = d * H + H
        return (t[:d * H].view(H, d), t[d * H:L1], t[L1:L1 + H * K].view(K, H), t[L1 + H * K:])

    @torch.no_grad()
    def __call__(self, x, idx, g):
        W1, b1, W2, b2 = self.views(x)
        gW1, gb1, gW2, gb2 = self.views(g)
        Xb, A = self.Xb, self.A
        torch.index_select(self.X, 0, idx, out=Xb)
        torch.index_select(self.Y1h, 0, idx, out=self.Yb)
        torch.addmm(b1, Xb, W1.t(), out=A)
        torch.sigmoid(A, out=A)  # Z, in place
        torch.addmm(b2, A, W2.t(), out=self.O)
        dO = torch.softmax(self.O, dim=1)
        dO.sub_(self.Yb).mul_(self.scale)  # (N/n)(P − Y)
        torch.addmm(W2, dO.t(), A, beta=self.l2, out=gW2)  # λ2 W2 + δOᵀZ
        torch.sum(dO, 0, out=gb2)
        gb2.add_(b2, alpha=self.l2)
        torch.mm(dO, W2, out=self.dZ)
        dA = torch.ops.aten.sigmoid_backward(self.dZ, A)  # δZ ⊙ Z ⊙ (1 − Z), one fused kernel
        torch.addmm(W1, dA.t(), Xb, beta=self.l1, out=gW1)  # λ1 W1 + δAᵀX
        torch.sum(dA, 0, out=gb1)
        gb1.add_(b1, alpha=self.l1)


class BnnAutograd(BnnHand):
    """The same net through autograd: loss = (N/n)·CE_sum + ½λ‖θ‖² per layer, loss.backward()."""

    def __call__(self, x, idx, g):
        with torch.no_grad():
            torch.index_select(self.X, 0, idx, out=self.Xb)
            yb = self.y.index_select(0, idx)
        t = x.detach().requires_grad_(True)  # shares x's storage: no copy
        W1, b1, W2, b2 = self.views(t)
        L1 = self.d * self.H + self.H
        o = torch.addmm(b2, torch.sigmoid(torch.addmm(b1, self.Xb, W1.t())), W2.t())
        loss = (self.scale * torch.nn.functional.cross_entropy(o, yb, reduction="sum")
                + 0.5 * self.l1 * t[:L1].square().sum() + 0.5 * self.l2 * t[L1:].square().sum())
        (grad,) = torch.autograd.grad(loss, t)
        g.copy_(grad)


def build_bnn(cfg, impl):
    d = cfg["data"]
    img = read_idx(os.path.join(d, "train-images-idx3-ubyte.gz"), 16).reshape(-1, cfg["in"])
    lab = read_idx(os.path.join(d, "train-labels-idx1-ubyte.gz"), 8).astype(np.int64)
    # Pixels scaled as the library's loader does: float32(p) · (1.0f/255.0f), then widened for f64.
    x32 = img.astype(np.float32) * (np.float32(1) / np.float32(255))
    X = torch.from_numpy(x32).to(DTYPE).contiguous()
    y = torch.from_numpy(lab)
    Y1h = torch.nn.functional.one_hot(y, cfg["classes"]).to(DTYPE)
    model = (BnnHand if impl == "hand" else BnnAutograd)(cfg, X, Y1h, y)
    # The chain's start as the library's initial_point: weights N(0, 0.01²), biases 0.
    x0 = torch.randn(cfg["dim"], dtype=DTYPE) * 0.01
    W1, b1, W2, b2 = model.views(x0)
    b1.zero_(), b2.zero_()
    return model, x0


class Logistic:
    """g = θ/σ² + (N/n)·X_bᵀ(σ(X_bθ) − y_b)."""

    def __init__(self, cfg):
        N, d = cfg["N"], cfg["d"]
        raw = np.fromfile(cfg["data"], dtype=np.float64)
        assert raw.size == N * d + N, f"{cfg['data']}: expected {N * d + N} float64 values, got {raw.size}"
        self.X = torch.from_numpy(raw[:N * d].reshape(N, d)).to(DTYPE).contiguous()
        self.y = torch.from_numpy(raw[N * d:].copy()).to(DTYPE)
        n = cfg["batch"]
        self.Xb = torch.empty(n, d, dtype=DTYPE)
        self.yb = torch.empty(n, dtype=DTYPE)
        self.z = torch.empty(n, dtype=DTYPE)
        self.scale, self.prec = cfg["N"] / n, 1.0 / cfg["prior_sd"] ** 2

    @torch.no_grad()
    def __call__(self, x, idx, g):
        torch.index_select(self.X, 0, idx, out=self.Xb)
        torch.index_select(self.y, 0, idx, out=self.yb)
        torch.mv(self.Xb, x, out=self.z)
        torch.sigmoid(self.z, out=self.z)
        self.z.sub_(self.yb)
        torch.addmv(x, self.Xb.t(), self.z, beta=self.prec, alpha=self.scale, out=g)


def read_ratings(path):
    """userId,movieId,rating[,timestamp] with ids mapped to 0.. in order of first appearance (the
    library's loader)."""
    t = np.loadtxt(path, delimiter=",", skiprows=1, usecols=(0, 1, 2), dtype=np.float64)

    def dense(ids):
        uniq, first, inv = np.unique(ids, return_index=True, return_inverse=True)
        rank = np.empty(len(uniq), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(uniq))
        return rank[inv]

    return dense(t[:, 0]), dense(t[:, 1]), t[:, 2]


class Bpmf:
    """r ~ N(μ + U_uᵀV_j + a_u + b_j, 1/τ), Gaussian priors. θ = [U (users×D), V (items×D), a, b] (the
    library's column-per-user layout is row-major users×D). The prior term is dense, the likelihood
    term a scatter-add of the batch's rows."""

    def __init__(self, cfg):
        u, j, r = read_ratings(cfg["data"])
        assert len(r) == cfg["N"], f"{cfg['data']}: {len(r)} ratings, the library read {cfg['N']}"
        self.u, self.j = torch.from_numpy(u), torch.from_numpy(j)
        self.r = torch.from_numpy(r).to(DTYPE)
        self.users, self.items, self.D = cfg["users"], cfg["items"], cfg["latent"]
        self.mean, self.coef = cfg["mean"], cfg["N"] / cfg["batch"] * cfg["tau"]
        self.lam = cfg["prior_precisions"]
        n, D = cfg["batch"], self.D
        self.ub = torch.empty(n, dtype=torch.int64)
        self.jb = torch.empty(n, dtype=torch.int64)
        self.e = torch.empty(n, dtype=DTYPE)
        self.tmp = torch.empty(n, dtype=DTYPE)
        self.Ub = torch.empty(n, D, dtype=DTYPE)
        self.Vb = torch.empty(n, D, dtype=DTYPE)
        self.prod = torch.empty(n, D, dtype=DTYPE)

    def views(self, t):
        U, I, D = self.users, self.items, self.D
        return (t[:D * U].view(U, D), t[D * U:D * (U + I)].view(I, D), t[D * (U + I):D * (U + I) + U], t[D * (U + I) + U:])

    @torch.no_grad()
    def __call__(self, x, idx, g):
        U, V, a, b = self.views(x)
        gU, gV, ga, gb = self.views(g)
        ub, jb, e, tmp = self.ub, self.jb, self.e, self.tmp
        torch.index_select(self.u, 0, idx, out=ub)
        torch.index_select(self.j, 0, idx, out=jb)
        torch.index_select(U, 0, ub, out=self.Ub)
        torch.index_select(V, 0, jb, out=self.Vb)
        torch.mul(self.Ub, self.Vb, out=self.prod)
        torch.sum(self.prod, 1, out=e)  # U_uᵀV_j
        e.add_(torch.index_select(a, 0, ub, out=tmp)).add_(torch.index_select(b, 0, jb, out=tmp))
        e.add_(self.mean).sub_(torch.index_select(self.r, 0, idx, out=tmp)).mul_(self.coef)  # (N/n)τ(pred − r)
        for gp, p, lam in zip((gU, gV, ga, gb), (U, V, a, b), self.lam):
            torch.mul(p, lam, out=gp)
        ec = e.unsqueeze(1)
        gU.index_add_(0, ub, torch.mul(self.Vb, ec, out=self.prod))
        gV.index_add_(0, jb, torch.mul(self.Ub, ec, out=self.prod))
        ga.index_add_(0, ub, e)
        gb.index_add_(0, jb, e)


def build(cfg, impl):
    if cfg["model"] == "bnn":
        return build_bnn(cfg, impl)
    if cfg["model"] == "logistic":
        return Logistic(cfg), torch.zeros(cfg["dim"], dtype=DTYPE)
    m = Bpmf(cfg)
    x0 = torch.zeros(cfg["dim"], dtype=DTYPE)  # factors N(0, 0.1²), biases 0 (the library's start)
    D, U, I = m.D, m.users, m.items
    x0[:D * (U + I)] = torch.randn(D * (U + I), dtype=DTYPE) * 0.1
    return m, x0


def check(cfg, grad):
    """max|Δ|/max|g| between this gradient and the library's at θ₀ on the header's batch."""
    theta = torch.from_numpy(np.fromfile(cfg["theta"], dtype=np.float64)).to(DTYPE)
    idx = torch.from_numpy(np.fromfile(cfg["indices"], dtype=np.int64))
    ref = np.fromfile(cfg["gradient"], dtype=np.float64)
    g = torch.zeros_like(theta)
    grad(theta, idx, g)
    diff = np.abs(g.double().numpy() - ref).max()
    return float(diff / np.abs(ref).max())


def time_epochs(cfg, grad, x0):
    steps = QUICK_STEPS if args.quick else cfg["N"] // cfg["batch"]
    chain = Sghmc(x0, cfg["h"], cfg["friction"], grad, cfg["N"], cfg["batch"])
    seconds = []
    for e in range(args.epochs + 1):
        t0 = time.perf_counter()
        for _ in range(steps):
            chain.step()
        s = time.perf_counter() - t0
        if not bool(torch.isfinite(chain.x).all()):
            sys.exit(f"torch_epochs: {cfg['model']} diverged in epoch {e}")
        if e > 0:
            seconds.append(s)  # epoch 0 is the warm-up
        print(f"  torch {cfg['tag']} {args.precision} threads {args.threads}: epoch {e}{' (warm-up)' if e == 0 else ''} "
              f"{s:.3f} s", file=sys.stderr)
    return {"seconds_per_epoch": seconds, "median": statistics.median(seconds), "steps_per_epoch": steps,
            "noise": chain.noise_source}


def main():
    with open(args.check) as f:
        cfg = json.load(f)
    torch.manual_seed(0)
    gflops = gemm_gflops()
    blas = loaded_blas()
    blas_threads = openblas_threads(blas)
    print(f"  torch {torch.__version__}, threads {torch.get_num_threads()} (OpenBLAS {blas_threads}), "
          f"BLAS {' '.join(blas) or '?'}: "
          f"1000×1000 f64 matmul {gflops:.1f} GFLOP/s", file=sys.stderr)
    impls = ["hand", "autograd"] if cfg["model"] == "bnn" and args.bnn_impl == "best" else [args.bnn_impl]
    if cfg["model"] != "bnn":
        impls = ["hand"]
    runs, failed = {}, False
    for impl in impls:
        grad, x0 = build(cfg, impl)
        residual = check(cfg, grad)
        ok = residual <= TOLERANCE[args.precision]
        failed |= not ok
        print(f"  torch {cfg['tag']} {args.precision} ({impl}): equivalence max|Δ|/max|g| = {residual:.3g} "
              f"({'ok' if ok else 'FAILED'}: tolerance {TOLERANCE[args.precision]:g} against {os.path.basename(args.check)})",
              file=sys.stderr)
        r = time_epochs(cfg, grad, x0)
        r["residual"] = residual
        runs[impl] = r
        del grad, x0
    best = min(runs, key=lambda k: runs[k]["median"])
    out = dict(runs[best])
    out.update({
        "side": "torch", "model": cfg["tag"], "precision": args.precision, "threads": args.threads, "impl": best,
        "impls": runs, "N": cfg["N"], "batch": cfg["batch"], "d": cfg["dim"], "quick": args.quick,
        "check": args.check, "tolerance": TOLERANCE[args.precision],
        "torch": torch.__version__, "blas": blas, "openblas_threads": blas_threads, "gemm_f64_gflops": gflops,
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OMP_WAIT_POLICY", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
    })
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"  median {out['median']:.4f} s per epoch ({best}) -> {args.out}", file=sys.stderr)
    if failed:
        sys.exit(3)


main()
