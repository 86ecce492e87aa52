"""The Python module's costs (docs/benchmarks.md, "Python"): what `sgmcmc.sample` adds to a Python
potential's own call, a numba cfunc against the C++ target, and the library's SGHMC against the same
update written as a plain loop in NumPy and in PyTorch. Every row is timed in this one run (medians of
`--repeats` interleaved repetitions) and given as a ratio to its baseline.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_python.py [--steps 200000] [--repeats 5]

The model: a d = 10 Gaussian with a dense precision P, ∇U(x) = P(x − m), the gradient one NumPy
matrix–vector product (about 1.3 µs a call on the machine of docs/benchmarks.md).
"""
import argparse
import statistics
import time

import numpy as np

import sgmcmc

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200_000)
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()
K, d = args.steps, 10

rng = np.random.default_rng(0)
A = rng.normal(size=(d, d))
P = A @ A.T / d + np.eye(d)
m = rng.normal(size=d)
cov = np.linalg.inv(P)
h, C = 0.01, 1.0


class NumpyGaussian:
    def gradient(self, x):
        return P @ (x - m)


def per_step(f, steps):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) / steps


def direct_calls():  # the potential's own cost: K calls in a Python loop
    g, x = NumpyGaussian(), np.zeros(d)
    for _ in range(K):
        g.gradient(x)


def sample_numpy():  # sgmcmc.sample on the NumPy potential: SGLD, one gradient a step
    sgmcmc.sample(NumpyGaussian(), sampler={"name": "sgld", "step_size": h}, init=np.zeros(d), steps=K, thin=100, seed=1)


def sample_numpy_sghmc():
    sgmcmc.sample(NumpyGaussian(), sampler={"name": "sghmc", "step_size": h, "friction": C}, init=np.zeros(d), steps=K, thin=100,
                  seed=1)


def numpy_loop_sghmc():
    # The plain loop a good engineer writes: SGHMC's step (Chen et al. 2014, Eq. 15, with the momentum
    # scaled by h: v ← (1 − Ch)v − h²∇U + √(2Ch³)ξ, x ← x + v), noise drawn in blocks, draws kept by
    # thinning into a preallocated array.
    x, v = np.zeros(d), np.zeros(d)
    out = np.empty((K // 100, d))
    block = 4096
    scale = np.sqrt(2 * C * h**3)
    for start in range(0, K, block):
        noise = rng.standard_normal((min(block, K - start), d)) * scale
        for i in range(noise.shape[0]):
            v = (1 - C * h) * v - h * h * (P @ (x - m)) + noise[i]
            x = x + v
            t = start + i + 1
            if t % 100 == 0:
                out[t // 100 - 1] = x


def torch_loop_sghmc():
    import torch

    with torch.no_grad():
        Pt, mt = torch.from_numpy(P), torch.from_numpy(m)
        x, v = torch.zeros(d, dtype=torch.float64), torch.zeros(d, dtype=torch.float64)
        out = torch.empty((K // 100, d), dtype=torch.float64)
        block = 4096
        scale = float(np.sqrt(2 * C * h**3))
        gen = torch.Generator().manual_seed(0)
        for start in range(0, K, block):
            noise = torch.randn((min(block, K - start), d), generator=gen, dtype=torch.float64) * scale
            for i in range(noise.shape[0]):
                v = (1 - C * h) * v - h * h * (Pt @ (x - mt)) + noise[i]
                x = x + v
                t = start + i + 1
                if t % 100 == 0:
                    out[t // 100 - 1] = x


def compiled_potential():
    from numba import cfunc, types

    Pc, mc = P.copy(), m.copy()

    @cfunc(types.void(types.CPointer(types.float64), types.CPointer(types.float64), types.int64))
    def grad(x, g, n):
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += Pc[i, j] * (x[j] - mc[j])
            g[i] = s

    return sgmcmc.compiled(grad)


# The compiled rows run FAST× the steps: at 0.1–0.2 µs a step the run's fixed costs (set-up, threads,
# the default checks) would otherwise be a large part of K steps.
FAST = 20


def sample_cfunc(potential):
    return lambda: sgmcmc.sample(potential, sampler={"name": "sghmc", "step_size": h, "friction": C}, init=np.zeros(d), steps=FAST * K,
                                 thin=100, seed=1)


def builtin_target():
    sgmcmc.run({"target": {"name": "gaussian", "mean": m.tolist(), "cov": cov.tolist()}, "manifold": {"name": "euclidean", "dim": d},
                "sampler": {"name": "sghmc", "step_size": h, "friction": C}, "init": [0.0] * d, "steps": FAST * K, "thin": 100, "seed": 1})


try:
    import torch  # noqa: F401
    have_torch = True
except ImportError:
    have_torch = False
cfunc_potential = compiled_potential()
cases = {"direct": direct_calls, "sample_sgld": sample_numpy, "sample_sghmc": sample_numpy_sghmc, "numpy_loop": numpy_loop_sghmc,
         "cfunc": sample_cfunc(cfunc_potential), "builtin": builtin_target}
if have_torch:
    cases["torch_loop"] = torch_loop_sghmc
times = {k: [] for k in cases}
for _ in range(args.repeats):
    for name, f in cases.items():
        times[name].append(per_step(f, FAST * K if name in ("cfunc", "builtin") else K))
med = {k: statistics.median(v) * 1e6 for k, v in times.items()}

print(f"steps {K}, repeats {args.repeats}, d = {d}; medians in µs per step (per call for 'direct')")
print("| case | µs a step | ratio |")
print("|---|---:|---:|")
print(f"| the NumPy gradient called in a Python loop (the potential's own cost) | {med['direct']:.3f} | 1 |")
added = med["sample_sgld"] - med["direct"]
print(f"| `sgmcmc.sample`, SGLD on it (one call a step) | {med['sample_sgld']:.3f} | {med['sample_sgld'] / med['direct']:.2f} |")
print(f"| what `sample` adds to the call | {added:.3f} | **{added / med['direct']:.2f}** (goal ≤ 0.5) |")
print()
print("| SGHMC, d = 10 | µs a step | ratio to the NumPy loop |")
print("|---|---:|---:|")
print(f"| a plain Python loop, NumPy (the baseline) | {med['numpy_loop']:.3f} | 1 |")
if have_torch:
    print(f"| the same loop in PyTorch (CPU tensors, no autograd) | {med['torch_loop']:.3f} | {med['torch_loop'] / med['numpy_loop']:.2f} |")
print(f"| `sgmcmc.sample` on the NumPy potential | {med['sample_sghmc']:.3f} | {med['sample_sghmc'] / med['numpy_loop']:.2f} |")
print(f"| `sgmcmc.sample` on a numba cfunc potential | {med['cfunc']:.3f} | {med['cfunc'] / med['numpy_loop']:.3f} |")
print(f"| `sgmcmc.run`, the C++ `gaussian` target | {med['builtin']:.3f} | {med['builtin'] / med['numpy_loop']:.3f} |")
print(f"\nnumba cfunc against the C++ target: {med['cfunc'] / med['builtin']:.2f}×")
