"""A PyTorch module's log density as a potential, its gradient by autograd (docs/python.md).

Any torch.nn.Module that returns log p(θ) (up to a constant) for a parameter vector θ serves: U = −log p,
∇U by backward(). Needs python3-torch (scripts/python.sh --torch).

    python3 python/examples/torch_potential.py
"""
import numpy as np
import torch

import sgmcmc

torch.set_default_dtype(torch.float64)


class Banana(torch.nn.Module):
    """log p(θ) of the banana (twisted Gaussian): θ₁ ~ N(0, 1), θ₂ | θ₁ ~ N(b(θ₁² − 1), 1)."""

    def __init__(self, b=0.5):
        super().__init__()
        self.b = b

    def forward(self, theta):
        t1, t2 = theta[0], theta[1]
        return -0.5 * t1**2 - 0.5 * (t2 - self.b * (t1**2 - 1)) ** 2


class TorchPotential:
    """U = −log p of a torch module, with value and gradient for every sampler."""

    def __init__(self, module):
        self.module = module

    def value(self, x):
        with torch.no_grad():
            return -self.module(torch.from_numpy(x)).item()

    def gradient(self, x):
        theta = torch.tensor(x, requires_grad=True)
        (-self.module(theta)).backward()
        return theta.grad.numpy()


fit = sgmcmc.sample(TorchPotential(Banana()), sampler={"name": "hmc", "step_size": 0.2, "leapfrog_steps": 10},
                    init=np.zeros(2), steps=5000, burn_in=500, chains=2, seed=1)
print(fit.summary()[["mean", "sd", "ess_bulk", "rhat"]])
print("exact: mean (0, 0), sd θ₁ 1, sd θ₂ √(1 + 2b²) =", np.sqrt(1 + 2 * 0.25))
