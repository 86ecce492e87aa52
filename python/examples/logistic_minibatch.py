"""A minibatch model in NumPy: Bayesian logistic regression with control variates (docs/python.md).

The library chooses each batch (`batch` is an array of example indices) and applies its estimators
(control variates at the mode found by L-BFGS here, or SVRG, SAGA) to the model unchanged.

    python3 python/examples/logistic_minibatch.py
"""
import numpy as np

import sgmcmc

rng = np.random.default_rng(0)
N, d = 20_000, 5
X = rng.normal(size=(N, d))
beta_true = rng.normal(size=d)
y = (rng.random(N) < 1 / (1 + np.exp(-X @ beta_true))).astype(float)


class Logistic:
    n_data = N
    names = [f"beta_{k}" for k in range(d)]

    def gradient(self, beta, batch):  # Σ_{i ∈ batch} ∇(−log p(y_i | β))
        Xb = X[batch]
        return Xb.T @ (1 / (1 + np.exp(-Xb @ beta)) - y[batch])

    def prior_gradient(self, beta):  # ∇(−log p(β)), N(0, I)
        return beta

    def value(self, beta, batch):  # optional: the mode search for the control variate needs U
        eta = X[batch] @ beta
        return np.sum(np.logaddexp(0, eta) - y[batch] * eta)

    def prior_value(self, beta):
        return 0.5 * beta @ beta


fit = sgmcmc.sample(Logistic(), sampler={"name": "sgld", "step_size": 2e-5}, init="centre",
                    target={"batch_size": 100, "estimator": "control_variate"},
                    manifold={"name": "euclidean", "dim": d}, steps=20_000, burn_in=1000, thin=5, chains=2, seed=3)
print(fit.summary()[["mean", "sd", "ess_bulk", "rhat"]])
print("true coefficients:", np.round(beta_true, 3))
