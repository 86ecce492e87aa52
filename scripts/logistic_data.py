#!/usr/bin/python3
"""Synthetic Bayesian-logistic-regression data as CSV (feature columns, then the 0/1 label), for
scripts/bench_nuts.sh and scripts/bench_precondition.sh. Python's Mersenne Twister, so a seed gives
the same file on every machine: θ* is drawn first, then each row's features and label.

Usage: logistic_data.py N D OUT [--seed S] [--intercept] [--theta-sd SD] [--decades K]
  --intercept   the first of the D columns is 1 ("intercept"), the other D − 1 are features
  --theta-sd    θ*_j ~ N(0, SD²) / s_j (default: N(0, 1)/√D / s_j)
  --decades K   feature j scaled by s_j = 10^(K·j/(F − 1)) over the F features (default 0: all 1),
                so the posterior's scales span K decades
"""
import argparse
import math
import random

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("n", type=int)
p.add_argument("d", type=int)
p.add_argument("out")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--intercept", action="store_true")
p.add_argument("--theta-sd", type=float)
p.add_argument("--decades", type=float, default=0.0)
a = p.parse_args()
features = a.d - 1 if a.intercept else a.d
scale = [10 ** (a.decades * j / max(1, features - 1)) for j in range(features)]
scale = ([1.0] if a.intercept else []) + scale
rng = random.Random(a.seed)
if a.theta_sd is not None:
    theta = [rng.gauss(0, a.theta_sd) / s for s in scale]
else:
    theta = [rng.gauss(0, 1) / math.sqrt(a.d) / s for s in scale]
names = (["intercept"] + [f"x{k}" for k in range(1, a.d)]) if a.intercept else [f"x{k}" for k in range(a.d)]
with open(a.out, "w") as f:
    f.write(",".join(names + ["label"]) + "\n")
    for _ in range(a.n):
        x = ([1.0] if a.intercept else []) + [s * rng.gauss(0, 1) for s in scale[1 if a.intercept else 0:]]
        z = sum(u * v for u, v in zip(x, theta))
        y = 1 if rng.random() < 1 / (1 + math.exp(-z)) else 0
        f.write(",".join(repr(v) for v in x) + f",{y}\n")
