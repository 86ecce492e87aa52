# Errors are Python exceptions with the CLI's messages (a bad config names its JSON path); a potential
# that raises, returns the wrong shape or a non-finite number stops its chain with that message and the
# fit keeps what the chains drew; Ctrl-C stops a run cleanly, returning the draws (status
# "interrupted"), which resume continues.
import _thread
import threading
import time

import numpy as np
import pytest

import sgmcmc

BASE = {"manifold": {"name": "euclidean", "dim": 2}, "target": {"name": "gaussian", "mean": [0, 0], "cov": [[1, 0], [0, 1]]},
        "sampler": {"name": "sgld", "step_size": 0.1}, "steps": 100}


def test_a_bad_config_names_its_json_path():
    with pytest.raises(sgmcmc.Error, match="/sampler/step_size"):
        sgmcmc.run(dict(BASE, sampler={"name": "sgld", "step_size": -1}))
    with pytest.raises(sgmcmc.Error, match="/sampler/frction"):
        sgmcmc.run(dict(BASE, sampler={"name": "sghmc", "step_size": 0.1, "frction": 1}))
    with pytest.raises(ValueError):  # sgmcmc.Error is a ValueError
        sgmcmc.run(dict(BASE, target={"name": "no_such_target"}))
    with pytest.raises(sgmcmc.Error, match="file"):
        sgmcmc.run("/nonexistent/config.json")


class Faulty:
    """∇U = x until call `after`, then `fault(x)`."""

    def __init__(self, fault, after=50):
        self.calls, self.fault, self.after = 0, fault, after

    def gradient(self, x):
        self.calls += 1
        return self.fault(x) if self.calls > self.after else x


@pytest.mark.parametrize("fault, message", [
    (lambda x: (_ for _ in ()).throw(ValueError("the model broke")), "Faulty.gradient raised ValueError: the model broke"),
    (lambda x: np.zeros(3), r"returned an array of shape \(3,\), expected \(2,\)"),
    (lambda x: np.array([np.nan, 0.0]), r"returned a non-finite value \(nan\) at index 0"),
    (lambda x: "two numbers", "returned a str, not an array of numbers"),
])
def test_a_failing_potential_stops_its_chain_with_its_message(fault, message):
    with pytest.warns(sgmcmc.SamplingWarning, match="stopped early"):
        fit = sgmcmc.sample(Faulty(fault), sampler={"name": "sgld", "step_size": 0.1}, init=np.zeros(2), steps=200, seed=1)
    assert fit.status == "error"
    assert list(fit.chain_errors) == [0]
    assert __import__("re").search(message, fit.chain_errors[0]), fit.chain_errors[0]
    kept = np.sum(~np.isnan(fit.draws[0, :, 0]))
    assert 0 < kept < 200  # the draws before the fault are kept


def test_a_model_without_gradient_is_refused():
    class Nothing:
        pass

    with pytest.raises(sgmcmc.Error, match="no gradient method"):
        sgmcmc.sample(Nothing(), sampler={"name": "sgld", "step_size": 0.1}, init=np.zeros(2))
    with pytest.raises(sgmcmc.Error, match="prior_gradient"):
        class Half:
            n_data = 10

            def gradient(self, x, batch):
                return x
        sgmcmc.sample(Half(), sampler={"name": "sgld", "step_size": 0.1}, init=np.zeros(2))


def interrupt_after(seconds):
    t = threading.Timer(seconds, _thread.interrupt_main)
    t.start()
    return t


@pytest.mark.parametrize("python_model", [False, True])
def test_ctrl_c_returns_the_draws_and_resume_continues(python_model):
    # A built-in chain makes millions of steps a second: thinned so that what it keeps stays small. Long
    # enough either way (a Python model's 10⁷ steps take about 20 s a chain) for the interrupt to land.
    long, thin = (10**7, 1) if python_model else (10**9, 1000)
    t = interrupt_after(0.5)
    start = time.monotonic()
    with pytest.warns(sgmcmc.SamplingWarning, match="interrupted"):
        if python_model:
            class Quadratic:
                def gradient(self, x):
                    return x
            fit = sgmcmc.sample(Quadratic(), sampler={"name": "sgld", "step_size": 0.1}, init=np.zeros(2), steps=long, chains=2,
                                thin=thin)
        else:
            fit = sgmcmc.run(dict(BASE, steps=long, chains=2, thin=thin))
    t.join()
    assert time.monotonic() - start < 30
    assert fit.status == "interrupted"
    kept = np.sum(~np.isnan(fit.draws[:, :, 0]), axis=1)
    assert np.all(kept > 0)
    more = fit.resume(100 * thin)
    assert np.all(np.sum(~np.isnan(more.draws[:, :, 0]), axis=1) == kept + 100)


def test_a_fit_too_large_for_memory_is_refused_before_it_runs():
    # 10¹² steps kept one by one: refused at once, naming the field to change, before any step.
    start = time.monotonic()
    with pytest.raises(sgmcmc.Error, match="/thin: the fit would hold 1e\\+12 draws"):
        sgmcmc.run(dict(BASE, steps=10**12))
    assert time.monotonic() - start < 5


def test_another_signal_handlers_exception_stops_the_run_and_is_raised():
    # A SIGALRM handler raising TimeoutError (a user's time limit): the run stops and the exception is
    # the user's, not swallowed as Ctrl-C's KeyboardInterrupt is.
    import signal

    class TimeUp(Exception):
        pass

    def handler(signum, frame):
        raise TimeUp()

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.monotonic()
        with pytest.raises(TimeUp):
            sgmcmc.run(dict(BASE, steps=10**9, thin=1000, chains=2))
        assert time.monotonic() - start < 30
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
