# sgmcmc.sample on potentials written in Python: a NumPy Gaussian's moments against the closed form
# (tolerances from each run's own Monte Carlo standard errors, ESS-based), a minibatch logistic
# regression in NumPy with control variates against the built-in target's posterior, the compiled
# (numba cfunc) potential against the Python one, and the chains' independence of the thread count.
import ctypes

import numpy as np
import pytest

import sgmcmc

MEAN = np.array([1.0, -1.0, 0.5])
COV = np.array([[1.0, 0.6, 0.0], [0.6, 2.0, -0.3], [0.0, -0.3, 0.5]])
PREC = np.linalg.inv(COV)


class Gaussian:
    """U(x) = ½(x − μ)ᵀΣ⁻¹(x − μ)."""

    def gradient(self, x):
        return PREC @ (x - MEAN)

    def value(self, x):
        r = x - MEAN
        return 0.5 * r @ PREC @ r


def batch_estimates(draws, batches=20):
    """Each coordinate's mean and sd with their standard errors by batch means: every chain cut into
    `batches` consecutive batches, the statistic's spread over all batches / √(their number). Valid when
    a batch is much longer than the chain's autocorrelation time (here 100s of draws against a few), for
    the sd as for the mean (an ESS of the mean would not do: HMC's antithetic draws have an ESS for x
    above their number and far below it for x²)."""
    chains, n, d = draws.shape
    cut = draws[:, : n - n % batches].reshape(chains * batches, -1, d)
    means, sds = cut.mean(axis=1), cut.std(axis=1, ddof=1)
    k = chains * batches
    flat = draws.reshape(-1, d)
    return flat.mean(axis=0), means.std(axis=0, ddof=1) / np.sqrt(k), flat.std(axis=0, ddof=1), sds.std(axis=0, ddof=1) / np.sqrt(k)


def within_mcse(fit, truth_mean, truth_sd, z=4.0):
    """Every coordinate's mean and sd within z standard errors of the truth: z = 4 over 6 checks fails by
    chance about 4e-4 (normal errors; 40 batches give the error's own estimate to about 11 %)."""
    mean, se_mean, sd, se_sd = batch_estimates(fit.draws)
    for k in range(len(truth_mean)):
        assert abs(mean[k] - truth_mean[k]) < z * se_mean[k], (k, mean[k], truth_mean[k], se_mean[k])
        assert abs(sd[k] - truth_sd[k]) < z * se_sd[k], (k, sd[k], truth_sd[k], se_sd[k])


def test_hmc_on_a_numpy_gaussian_matches_its_moments():
    # Catches: a gradient or value read back wrongly (sign, order, a stale x), the MH test on a Python value.
    fit = sgmcmc.sample(Gaussian(), sampler={"name": "hmc", "step_size": 0.3, "leapfrog_steps": 8}, init=np.zeros(3),
                        steps=6000, burn_in=500, chains=2, seed=5)
    assert fit.status == "ok" and fit.draws.shape == (2, 5500, 3)
    within_mcse(fit, MEAN, np.sqrt(np.diag(COV)))


def test_sghmc_with_a_gradient_only_model():
    # No value(): a gradient sampler needs none. A small step keeps the discretisation bias (O(h²))
    # far below the tolerance: at h = 0.05 the sds are off by about 0.1 %.
    class GradientOnly:
        dim = 3

        def gradient(self, x):
            return PREC @ (x - MEAN)

    fit = sgmcmc.sample(GradientOnly(), sampler={"name": "sghmc", "step_size": 0.05, "friction": 1.0},
                        steps=60000, burn_in=2000, thin=5, chains=2, seed=9)
    within_mcse(fit, MEAN, np.sqrt(np.diag(COV)))


def make_logistic(tmp_path, n=2000, d=3, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = np.array([1.0, -0.5, 0.25])[:d]
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ beta))).astype(float)
    csv = tmp_path / "logistic.csv"
    np.savetxt(csv, np.column_stack([X, y]), delimiter=",")
    return X, y, csv


class Logistic:
    """Bayesian logistic regression, prior N(0, I): the built-in `logistic` target's model, in NumPy."""

    def __init__(self, X, y):
        self.X, self.y, self.n_data = X, y, len(y)

    def gradient(self, beta, batch):
        X, y = self.X[batch], self.y[batch]
        p = 1 / (1 + np.exp(-X @ beta))
        return X.T @ (p - y)

    def prior_gradient(self, beta):
        return beta

    def value(self, beta, batch):
        eta = self.X[batch] @ beta
        return np.sum(np.logaddexp(0, eta) - self.y[batch] * eta)

    def prior_value(self, beta):
        return 0.5 * beta @ beta


def test_numpy_minibatch_logistic_with_control_variates_matches_the_builtin_target(tmp_path):
    # Catches: the batch indices or the N/n scale wrong in the Python model's path, the control variate
    # not centred on the Python model's mode. Two independent chains of the same law: their means
    # differ by less than 4 combined MCSE, their sds by less than 4 combined standard errors.
    X, y, csv = make_logistic(tmp_path)
    common = dict(steps=40000, burn_in=2000, thin=2, chains=2)
    target = {"batch_size": 50, "estimator": "control_variate"}
    sampler = {"name": "sgld", "step_size": 2e-4}
    mine = sgmcmc.sample(Logistic(X, y), sampler=sampler, init="centre", seed=1, target=target, manifold={"name": "euclidean", "dim": 3},
                         **common)
    builtin = sgmcmc.run({"target": dict(target, name="logistic", data=str(csv)), "sampler": sampler, "init": "centre", "seed": 2, **common})
    assert mine.config["target"]["estimator"] == "control_variate"
    # The same mode, found by L-BFGS on each model's U.
    np.testing.assert_allclose(mine.config["target"]["centre"], builtin.config["target"]["centre"], rtol=1e-6, atol=1e-8)
    ma, sa_m, sa, sa_s = batch_estimates(mine.draws)
    mb, sb_m, sb, sb_s = batch_estimates(builtin.draws)
    for k in range(3):
        assert abs(ma[k] - mb[k]) < 4 * np.hypot(sa_m[k], sb_m[k]), (k, ma[k], mb[k])
        assert abs(sa[k] - sb[k]) < 4 * np.hypot(sa_s[k], sb_s[k]), (k, sa[k], sb[k])


def test_svrg_and_saga_run_on_a_python_model(tmp_path):
    X, y, _ = make_logistic(tmp_path, n=300)
    for estimator in ("svrg", "saga"):
        fit = sgmcmc.sample(Logistic(X, y), sampler={"name": "sgld", "step_size": 1e-3}, init=np.zeros(3), steps=400,
                            target={"batch_size": 30, "estimator": estimator}, seed=3)
        assert fit.status == "ok" and np.all(np.isfinite(fit.draws)), estimator
        assert fit.config["target"]["estimator"] == estimator


def test_a_compiled_potential_gives_the_python_potentials_draws():
    # A numba cfunc computing the same floating-point operations as the NumPy gradient (diagonal
    # precision, so NumPy's matrix product order cannot differ): the same draws, bit for bit.
    numba = pytest.importorskip("numba")
    from numba import types

    prec = np.array([1.0, 0.5, 4.0])

    @numba.cfunc(types.void(types.CPointer(types.float64), types.CPointer(types.float64), types.int64))
    def grad(x, g, d):
        for i in range(d):
            g[i] = prec[i] * (x[i] - 1.0)

    class Python:
        def gradient(self, x):
            return prec * (x - 1.0)

    kw = dict(sampler={"name": "sghmc", "step_size": 0.1}, init=np.zeros(3), steps=2000, chains=2, seed=4)
    a = sgmcmc.sample(sgmcmc.compiled(grad), **kw)
    b = sgmcmc.sample(Python(), **kw)
    np.testing.assert_array_equal(a.draws, b.draws)


def test_a_ctypes_function_is_a_compiled_potential():
    # The gradient of U = ½‖x‖² through a ctypes callback (it takes the GIL itself): N(0, I).
    proto = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.c_int64)

    @proto
    def grad(x, g, d):
        for i in range(d):
            g[i] = x[i]

    fit = sgmcmc.sample(sgmcmc.compiled(grad), sampler={"name": "sghmc", "step_size": 0.1}, init=np.zeros(2), steps=200, seed=1)
    assert fit.status == "ok" and np.all(np.isfinite(fit.draws))
    # Without a value function, a sampler that needs U is refused when the config is read, not at its
    # first step.
    with pytest.raises(sgmcmc.Error, match="/sampler/name: hmc needs the target's exact value"):
        sgmcmc.sample(sgmcmc.compiled(grad), sampler={"name": "hmc", "step_size": 0.1}, init=np.zeros(2), steps=10)


def test_python_chains_do_not_depend_on_the_thread_count():
    kw = dict(sampler={"name": "sgld", "step_size": 0.05}, init=np.zeros(3), steps=500, chains=3, seed=8)
    one = sgmcmc.sample(Gaussian(), threads=1, **kw)
    three = sgmcmc.sample(Gaussian(), threads=3, **kw)
    np.testing.assert_array_equal(one.draws, three.draws)


def test_a_python_run_resumes_with_its_model():
    kw = dict(sampler={"name": "sgld", "step_size": 0.05}, init=np.zeros(3), chains=2, seed=8)
    whole = sgmcmc.sample(Gaussian(), steps=1000, **kw)
    half = sgmcmc.sample(Gaussian(), steps=500, **kw)
    np.testing.assert_array_equal(sgmcmc.resume(half, steps=500).draws, whole.draws)
    np.testing.assert_array_equal(sgmcmc.resume(half.record, steps=500, model=Gaussian()).draws, whole.draws)
    with pytest.raises(sgmcmc.Error, match="pass it again"):
        sgmcmc.resume(half.record, steps=10)


def test_the_issues_call_runs_as_written():
    # sgmcmc.sample exactly as issue #37 writes it: a euclidean manifold without dim takes init's.
    class Model:
        def gradient(self, x):
            return x

    fit = sgmcmc.sample(Model(), sampler={"name": "sghmc", "step_size": 0.05}, init=np.zeros(2),
                        steps=100_000, burn_in=1000, thin=10, chains=4, seed=1, manifold={"name": "euclidean"})
    assert fit.draws.shape == (4, 9900, 2) and fit.status == "ok"
    assert fit.config["manifold"] == {"name": "euclidean", "dim": 2}
    within_mcse(fit, np.zeros(2), np.ones(2))


def test_a_python_potential_on_the_sphere():
    # U = −κ μᵀx on S² (vMF): the manifold takes a Python potential as any target (SGGMC projects the
    # ambient gradient). E[μᵀx] = coth κ − 1/κ exactly; catches a gradient not projected or a flow
    # that leaves the sphere.
    kappa, mu = 4.0, np.array([0.0, 0.6, 0.8])

    class VonMisesFisher:
        def gradient(self, x):
            return -kappa * mu

    fit = sgmcmc.sample(VonMisesFisher(), sampler={"name": "sghmc", "step_size": 0.05, "friction": 1.0}, init=np.array([1.0, 0, 0]),
                        manifold={"name": "sphere", "n": 3}, steps=40000, burn_in=1000, thin=2, chains=2, seed=6)
    assert np.allclose(np.linalg.norm(fit.draws, axis=2), 1.0, atol=1e-9)
    cos = fit.draws @ mu
    mean, se, _, _ = batch_estimates(cos[..., None])
    assert abs(mean[0] - (1 / np.tanh(kappa) - 1 / kappa)) < 4 * se[0], (mean[0], se[0])
