"""A compiled potential: a numba cfunc called without the GIL, at the speed of a C++ target (docs/python.md).

    python3 python/examples/numba_cfunc.py
"""
import numpy as np
from numba import cfunc, types

import sgmcmc

scales = np.linspace(0.5, 2.0, 10)  # a Gaussian with independent coordinates of these sds
precisions = 1 / scales**2


@cfunc(types.void(types.CPointer(types.float64), types.CPointer(types.float64), types.int64))
def gradient(x, g, d):
    for i in range(d):
        g[i] = precisions[i] * x[i]


@cfunc(types.float64(types.CPointer(types.float64), types.int64))
def value(x, d):
    u = 0.0
    for i in range(d):
        u += 0.5 * precisions[i] * x[i] * x[i]
    return u


fit = sgmcmc.sample(sgmcmc.compiled(gradient, value), sampler={"name": "sghmc", "step_size": 0.05},
                    init=np.zeros(10), steps=200_000, burn_in=1000, thin=10, chains=4, seed=2)
print(fit.summary()[["mean", "sd", "ess_bulk", "rhat"]])
print("true sds:", np.round(scales, 3))
