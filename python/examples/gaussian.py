"""A potential written in NumPy: a correlated Gaussian, sampled with SGHMC (docs/python.md).

    python3 python/examples/gaussian.py
"""
import numpy as np

import sgmcmc

mean = np.array([1.0, -2.0])
cov = np.array([[1.0, 0.9], [0.9, 1.0]])
precision = np.linalg.inv(cov)


class Gaussian:
    names = ["mu_1", "mu_2"]

    def gradient(self, x):  # ∇U for U = ½(x − μ)ᵀΣ⁻¹(x − μ)
        return precision @ (x - mean)

    def value(self, x):  # optional: for Metropolis–Hastings samplers and the run's checks
        r = x - mean
        return 0.5 * r @ precision @ r


fit = sgmcmc.sample(Gaussian(), sampler={"name": "sghmc", "step_size": 0.05}, init=np.zeros(2),
                    steps=100_000, burn_in=1000, thin=10, chains=4, seed=1)
print(fit)
print(fit.summary()[["mean", "sd", "ess_bulk", "rhat"]])
print("sample covariance:\n", np.cov(fit.draws.reshape(-1, 2).T))
