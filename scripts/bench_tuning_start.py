#!/usr/bin/env python3
"""Where the SG tuner's arms start (docs/tuning.md, "Where the arms start"; docs/benchmarks.md): a
gaussian glm y = 1 + 2x + 0.5ε (x, ε standard normal, numpy seed 3) of N rows, SGHMC without step size,
friction or batch size, 4000 steps (burn-in 1000), 2 chains, seed 2, no init: each row is the run's sds
over those of HMC (tuned by dual averaging, 4 chains × 5000 steps) on the same data, and where the
tuner's arms started (the control variate's centre, or an L-BFGS mode). Run at 8386f24 (this file
copied there), before the arms started in the bulk, it gives the "before" column of docs/tuning.md.

    PYTHONPATH=build/python /usr/bin/python3 scripts/bench_tuning_start.py
"""
import json
import os
import tempfile
import warnings

import numpy as np

import sgmcmc

warnings.simplefilter("ignore", sgmcmc.SamplingWarning)
folder = tempfile.mkdtemp()
print("| N, estimator | sds / HMC's | the arms' start |")
print("|---|---|---|")
for estimator, sizes in (("control_variate", (200, 2000, 20000)), ("minibatch", (1000, 2000, 5000, 20000))):
    for n in sizes:
        rng = np.random.default_rng(3)
        x = rng.normal(size=n)
        y = 1.0 + 2.0 * x + rng.normal(scale=0.5, size=n)
        path = os.path.join(folder, f"d{n}.csv")
        np.savetxt(path, np.column_stack([x, y]), delimiter=",", header="x,y", comments="")
        target = {"name": "glm", "data": path, "response": "y", "family": "gaussian", "estimator": estimator,
                  "prior": {"b": "normal(0, 10)", "sigma": "cauchy(0, 2.5)"}}
        ref = sgmcmc.run({"seed": 2, "chains": 4, "steps": 5000, "burn_in": 1000, "sampler": {"name": "hmc"},
                          "target": dict(target, estimator="minibatch")}).summary()["sd"]
        base = {"seed": 2, "chains": 2, "steps": 4000, "burn_in": 1000, "sampler": {"name": "sghmc"}, "target": target}
        fit = sgmcmc.run(base)
        ratio = ", ".join(f"{r:.2f}" for r in fit.summary()["sd"] / ref)
        print(f"| {n}, {estimator.replace('_', ' ')} | {ratio} | {fit.config['tune'].get('start', 'random')} |")
