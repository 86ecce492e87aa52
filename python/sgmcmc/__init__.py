"""sgmcmc: stochastic-gradient MCMC from Python (docs/python.md).

    fit = sgmcmc.run(config)                     # a config in the CLI's JSON vocabulary (a dict or a path)
    fit = sgmcmc.sample(model, sampler={...}, init=..., steps=..., ...)   # a potential written in Python
    fit = sgmcmc.resume(fit, steps=...)          # or a record (dict) or a record file's path

A fit holds the run's draws as NumPy arrays, its record (the document `sgmcmc run -o` writes), its
summary as a pandas DataFrame, and writes the command line's output formats (NetCDF, Stan CSV).
The engine is the command line's: the same config gives the same draws, bit for bit.
"""
import json
import os
import warnings

import numpy as np

from . import _sgmcmc

__all__ = ["Error", "SamplingWarning", "Fit", "run", "sample", "resume", "compiled"]

Error = _sgmcmc.Error
Error.__doc__ = "A bad config, record, model or output: the message names the JSON path or file (a ValueError)."


class SamplingWarning(UserWarning):
    """A run that ended with something to look at: a chain stopped by an error, an interrupt, a check."""


class Fit:
    """A run's result. ``draws`` (chains, draws, dim), ``names``, ``stats`` (name -> (chains, draws)),
    ``record`` (dict), ``summary()``, ``to_netcdf(path)``, ``to_xarray()``, ``write(path, format)``.
    A chain that stopped early has NaN rows after its last draw."""

    def __init__(self, capture, model=None):
        self._capture = capture
        self._model = model
        self._record = None
        self._head = json.loads(capture.record_without_draws())
        self.draws = capture.draws()
        self.names = capture.names()
        self.stats = capture.stats()
        self.warmup_draws = capture.warmup_draws()
        self.log_likelihood = capture.log_likelihood()

    @property
    def status(self):
        """"ok", "interrupted" (resume continues it) or "error" (a chain stopped: see ``chain_errors``)."""
        return self._head.get("status")

    @property
    def chain_errors(self):
        """Chain index -> the message of the error that stopped it."""
        return {i: ch.get("error", "") for i, ch in enumerate(self._head.get("chains", [])) if ch.get("status") != "ok"}

    @property
    def config(self):
        """The config as run, every default filled in (and a tuned step size's choice)."""
        return self._head.get("config")

    @property
    def record(self):
        """The JSON run record as a dict, draws included: the document ``sgmcmc run -o`` writes."""
        if self._record is None:
            self._record = json.loads(self._capture.record())
        return self._record

    def summary(self):
        """The CLI summary's table (``sgmcmc summary --json``): a pandas DataFrame indexed by parameter name."""
        import pandas as pd

        doc = json.loads(self._capture.summary())
        frame = pd.DataFrame(doc["summary"]).set_index("parameter")
        frame.attrs["warnings"] = doc.get("warnings", [])
        return frame.drop(columns=["coordinate"])

    def write(self, path, format="json"):
        """Writes the fit as ``sgmcmc run -o PATH --format FORMAT`` would (json, csv, netcdf, draws_csv);
        returns the files written."""
        return self._capture.write(os.fspath(path), format)

    def to_netcdf(self, path):
        """ArviZ's InferenceData as NetCDF-4 (groups posterior, sample_stats, ...): ``arviz.from_netcdf`` reads it."""
        files = self.write(path, "netcdf")
        return files[0] if len(files) == 1 else files

    def to_xarray(self):
        """The InferenceData groups as xarray Datasets: {"posterior": Dataset, "sample_stats": Dataset, ...}."""
        import tempfile

        import netCDF4
        import xarray as xr

        with tempfile.TemporaryDirectory() as folder:
            path = self.to_netcdf(os.path.join(folder, "fit.nc"))
            with netCDF4.Dataset(path) as nc:
                groups = list(nc.groups)
            out = {}
            for g in groups:
                with xr.open_dataset(path, group=g) as ds:
                    out[g] = ds.load()
            return out

    def resume(self, steps=None, *, threads=None):
        """Continues this fit for ``steps`` more steps per chain (none: to the config's steps)."""
        return resume(self, steps, threads=threads)

    def __repr__(self):
        c, n, d = self.draws.shape
        return f"<sgmcmc.Fit {self.config['sampler'].get('name')}: {c} chains × {n} draws × {d} coordinates, status {self.status}>"


def _finish(capture, model):
    fit = Fit(capture, model)
    for i, message in fit.chain_errors.items():
        warnings.warn(f"chain {i} stopped early with an error: {message}", SamplingWarning, stacklevel=3)
    if fit.status == "interrupted":
        kept = int(np.sum(~np.isnan(fit.draws[..., 0]))) if fit.draws.size else 0
        warnings.warn(f"interrupted: the fit holds the {kept} draws made so far; sgmcmc.resume(fit) continues it",
                      SamplingWarning, stacklevel=3)
    for i, ch in enumerate(fit._head.get("chains", [])):
        for w in ch.get("warnings", []):
            warnings.warn(f"chain {i}: {w.get('message', w)}", SamplingWarning, stacklevel=3)
    return fit


def _is_path(x):
    return isinstance(x, (str, os.PathLike))


def _threads(threads, model):
    # A Python potential's calls take the GIL one at a time: one thread, the chains in turn, unless asked.
    if threads is not None:
        return int(threads)
    return 1 if model is not None and not isinstance(model, _sgmcmc.CompiledAddresses) else 0


def run(config, *, threads=None, model=None):
    """Runs a config (a dict in the CLI's JSON vocabulary, docs/config.md, or a JSON file's path), as
    ``sgmcmc run`` does: the same draws, bit for bit. ``model``: the Python model of a config whose target
    is ``{"name": "python"}``. ``threads``: 0 for one per core (the default for built-in targets)."""
    if _is_path(config):
        capture = _sgmcmc.run_file(os.fspath(config), _threads(threads, model), model)
    else:
        capture = _sgmcmc.run(json.dumps(config, allow_nan=False), _threads(threads, model), model)
    return _finish(capture, model)


def sample(model, *, sampler, init=None, steps=1000, burn_in=0, thin=1, chains=1, seed=0, manifold=None,
           target=None, names=None, threads=None, **config):
    """Samples the potential of a model written in Python (or ``compiled(...)``) with a sampler section
    of the CLI's vocabulary, e.g. ``{"name": "sghmc", "step_size": 0.05}`` (no step size: tuned).

    A model gives ``gradient(x)`` (∇U) and optionally ``value(x)`` (U); a minibatch model gives
    ``n_data``, ``gradient(x, batch)`` (the sum of the batch's per-example gradients of −log p(y_i | x)),
    ``prior_gradient(x)`` and optionally ``value(x, batch)`` with ``prior_value(x)``; ``target`` then
    takes the data target's fields (``batch_size``, ``with_replacement``, ``estimator``, ``centre``, ...).
    ``init``: a point, one point per chain (chains, dim), "mode" or "centre"; none: random starts.
    ``manifold``: a manifold section (default euclidean of init's dimension, or the model's ``dim``).
    Further keywords are top-level config fields (``log_density=True``, ``save_warmup=True``, ...)."""
    section = {"name": "python"}
    section.update(target or {})
    if names is None:
        names = getattr(model, "names", None)
    if names is not None:
        section["names"] = list(names)
    cfg = {"sampler": dict(sampler), "target": section, "steps": int(steps), "burn_in": int(burn_in),
           "thin": int(thin), "chains": int(chains), "seed": int(seed)}
    if init is not None:
        if isinstance(init, str):
            cfg["init"] = init
        else:
            point = np.asarray(init, dtype=float)
            cfg["init"] = point.tolist()
    dim = None
    if init is not None and not isinstance(init, str):
        dim = np.shape(init)[-1]
    elif getattr(model, "dim", None) is not None:
        dim = int(model.dim)
    if manifold is None:
        manifold = {"name": "euclidean"}
    manifold = dict(manifold)
    # A euclidean space takes its dimension from init (or the model's dim) when the section leaves it out.
    if manifold.get("name") == "euclidean" and "dim" not in manifold:
        if dim is None:
            raise Error("/manifold/dim: give init (a point), manifold={'name': 'euclidean', 'dim': d}, or a model with a dim attribute")
        manifold["dim"] = int(dim)
    cfg["manifold"] = manifold
    cfg.update(config)
    return run(cfg, threads=threads, model=model)


def resume(record, steps=None, *, threads=None, model=None):
    """Continues a run for ``steps`` more steps per chain (none: to its config's steps, which completes an
    interrupted run): ``record`` a Fit, a record dict (``fit.record``) or a record file's path. A run of a
    Python model needs the model again (``model=``; a Fit brings its own)."""
    if isinstance(record, Fit):
        model = record._model if model is None else model
        text = record._capture.record()
        capture = _sgmcmc.resume_record(text, steps, _threads(threads, model), model)
    elif _is_path(record):
        capture = _sgmcmc.resume_path(os.fspath(record), steps, _threads(threads, model), model)
    else:
        target = record.get("config", {}).get("target", {}) if isinstance(record, dict) else {}
        if target.get("name") == "python" and model is None:
            raise Error("/config/target/name: this run sampled a Python model: pass it again, sgmcmc.resume(record, model=...)")
        capture = _sgmcmc.resume_record(json.dumps(record, allow_nan=False), steps, _threads(threads, model), model)
    return _finish(capture, model)


def compiled(gradient, value=None):
    """A potential given as compiled functions, called without the GIL: ``gradient`` with the C signature
    ``void (const double* x, double* g, int64 d)`` and optionally ``value`` ``double (const double* x,
    int64 d)`` — each a numba ``cfunc``, a ctypes function or an address."""

    def address(f):
        if f is None:
            return 0
        if hasattr(f, "address"):  # numba.cfunc
            return int(f.address)
        if isinstance(f, int):
            return f
        import ctypes

        return ctypes.cast(f, ctypes.c_void_p).value

    return _sgmcmc.CompiledAddresses(address(gradient), address(value))
