# sgmcmc.run is the command line's run: the same config gives the same record, draw for draw; the fit's
# arrays, names, summary, NetCDF and record are the CLI's; resume continues a fit with the bits of an
# uninterrupted run. Each test would catch a Python path that departs from the CLI's (another seed
# stream, a reordered or dropped row, a statistic under another name, a summary computed elsewhere).
import json

import numpy as np
import pytest
import xarray as xr

import sgmcmc
from conftest import write_json

GAUSSIAN = {
    "seed": 11, "chains": 2, "steps": 3000, "burn_in": 500, "thin": 5,
    "manifold": {"name": "euclidean", "dim": 2},
    "target": {"name": "gaussian", "mean": [1.0, -2.0], "cov": [[1.0, 0.5], [0.5, 2.0]], "names": ["a", "b"]},
    "sampler": {"name": "sghmc", "step_size": 0.1, "friction": 1.0},
    "log_density": True,
}


def cli_record(cli, tmp_path, config):
    cfg = write_json(tmp_path / "config.json", config)
    out = tmp_path / "cli.json"
    cli("run", cfg, "-o", out, "-q")
    with open(out) as f:
        return json.load(f)


def test_run_equals_the_cli_draw_for_draw(cli, tmp_path):
    fit = sgmcmc.run(GAUSSIAN)
    rec = cli_record(cli, tmp_path, GAUSSIAN)
    assert fit.draws.shape == (2, 500, 2)
    assert fit.names == ["a", "b"]
    for c, chain in enumerate(rec["chains"]):
        np.testing.assert_array_equal(fit.draws[c], np.array(chain["samples"]))
        for name, column in chain["sample_stats"].items():
            np.testing.assert_array_equal(fit.stats[name][c], np.array(column, dtype=float), err_msg=name)
    assert set(fit.stats) == set(rec["chains"][0]["sample_stats"])
    assert "lp" in fit.stats
    # The fit's record is the CLI's document (timings aside).
    mine = fit.record
    assert mine["config"] == rec["config"]
    for a, b in zip(mine["chains"], rec["chains"]):
        assert a["samples"] == b["samples"] and a["state"] == b["state"]


def test_a_config_file_runs_as_the_cli_reads_it(tmp_path):
    path = write_json(tmp_path / "c.json", GAUSSIAN)
    np.testing.assert_array_equal(sgmcmc.run(path).draws, sgmcmc.run(GAUSSIAN).draws)
    with pytest.raises(sgmcmc.Error, match="not valid JSON"):
        (tmp_path / "bad.json").write_text("{")
        sgmcmc.run(tmp_path / "bad.json")


def test_summary_is_the_cli_summary(cli, tmp_path):
    fit = sgmcmc.run(GAUSSIAN)
    path = tmp_path / "fit.json"
    assert fit.write(path) == [str(path)]
    doc = json.loads(cli("summary", path, "--json"))
    frame = fit.summary()
    assert list(frame.index) == ["a", "b"]
    for row in doc["summary"]:
        for col in ("mean", "sd", "q5", "q50", "q95", "mcse_mean", "ess_bulk", "ess_tail", "rhat"):
            assert frame.loc[row["parameter"], col] == row[col], col


def test_netcdf_and_xarray_carry_the_names_and_draws(tmp_path):
    fit = sgmcmc.run(GAUSSIAN)
    groups = fit.to_xarray()
    assert {"posterior", "sample_stats"} <= set(groups)
    post = groups["posterior"]
    assert post["a"].shape == (2, 500)
    np.testing.assert_array_equal(post["a"].values, fit.draws[:, :, 0])
    np.testing.assert_array_equal(post["b"].values, fit.draws[:, :, 1])
    np.testing.assert_array_equal(groups["sample_stats"]["lp"].values, fit.stats["lp"])
    path = fit.to_netcdf(tmp_path / "fit.nc")
    with xr.open_dataset(path, group="posterior") as ds:
        np.testing.assert_array_equal(ds["a"].values, fit.draws[:, :, 0])


def test_resume_continues_with_the_bits_of_one_run():
    short = dict(GAUSSIAN, steps=1500)
    fit = sgmcmc.run(short)
    whole = sgmcmc.run(GAUSSIAN)
    for resumed in (sgmcmc.resume(fit, steps=1500), sgmcmc.resume(fit.record, steps=1500), fit.resume(1500)):
        np.testing.assert_array_equal(resumed.draws, whole.draws)
        assert resumed.status == "ok"


def test_a_record_file_resumes(tmp_path):
    fit = sgmcmc.run(dict(GAUSSIAN, steps=1500))
    path = tmp_path / "r.json"
    fit.write(path)
    np.testing.assert_array_equal(sgmcmc.resume(path, steps=1500).draws, sgmcmc.run(GAUSSIAN).draws)


def test_the_glm_target_and_the_tuner_are_reachable(cli, tmp_path):
    # A brms-style model stated in the config, its step size tuned (no step_size): the CLI's record.
    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    y = 1.0 + 2.0 * x + rng.normal(scale=0.5, size=200)
    csv = tmp_path / "d.csv"
    np.savetxt(csv, np.column_stack([x, y]), delimiter=",", header="x,y", comments="")
    config = {"seed": 2, "chains": 2, "steps": 2000, "burn_in": 500,
              "target": {"name": "glm", "data": str(csv), "response": "y", "family": "gaussian",
                         "prior": {"b": "normal(0, 10)", "sigma": "cauchy(0, 2.5)"}},
              "sampler": {"name": "sghmc"}}
    fit = sgmcmc.run(config)
    assert fit.names == ["b_Intercept", "b_x", "sigma"]
    assert "tune" in fit.config and fit.config["tune"]["chosen"]["step_size"] > 0
    rec = cli_record(cli, tmp_path, config)
    for c, chain in enumerate(rec["chains"]):
        np.testing.assert_array_equal(fit.draws[c], np.array(chain["samples"]))


def test_the_gil_is_released_while_a_builtin_target_samples():
    # A run on another Python thread: this thread keeps running Python code meanwhile. Were the GIL
    # held for the run (about a second), the loop below would not advance until it returned.
    import threading
    import time

    config = dict(GAUSSIAN, steps=3_000_000, thin=1000, log_density=False)
    done = threading.Event()
    box = {}

    def work():
        box["fit"] = sgmcmc.run(config, threads=1)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    spins, start = 0, time.monotonic()
    while not done.is_set():
        spins += 1
    t.join()
    assert time.monotonic() - start > 0.1, "the run was too short to tell"
    assert spins > 10_000
    assert box["fit"].status == "ok"
