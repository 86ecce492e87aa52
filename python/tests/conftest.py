# Shared by the Python tests: the command line built beside the module (ctest sets SGMCMC_CLI) and a
# scratch folder per test (pytest's tmp_path).
import json
import os
import subprocess

import pytest


@pytest.fixture
def cli():
    """Runs the sgmcmc command line with arguments; returns its stdout (fails the test on a non-zero exit)."""
    exe = os.environ.get("SGMCMC_CLI")
    if not exe:
        pytest.fail("SGMCMC_CLI is not set: run the Python tests through ctest (python/CMakeLists.txt)")

    def call(*args):
        r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
        assert r.returncode == 0, f"sgmcmc {' '.join(map(str, args))} exited {r.returncode}: {r.stderr}"
        return r.stdout

    return call


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)
    return path
