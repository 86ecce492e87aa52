# The examples of docs/python.md run as a user runs them (python3 FILE) and print their summaries. The
# PyTorch example needs python3-torch, which the suite does not install (scripts/python.sh --torch
# does): it is skipped where torch is missing, and says so.
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["gaussian", "logistic_minibatch", "numba_cfunc", "torch_potential"])
def test_example_runs(name, tmp_path):
    if name == "torch_potential" and importlib.util.find_spec("torch") is None:
        pytest.skip("python3-torch is not installed (scripts/python.sh --torch installs it)")
    r = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "rhat" in r.stdout and "nan" not in r.stdout.lower(), r.stdout


def test_the_python_snippets_of_docs_python_md_are_python():
    # Each ```python block of docs/python.md parses (its names are the page's, so it is not run).
    doc = (EXAMPLES.parent.parent / "docs" / "python.md").read_text()
    blocks = doc.split("```python\n")[1:]
    assert len(blocks) >= 4
    for i, block in enumerate(blocks):
        compile(block.split("```")[0], f"docs/python.md block {i + 1}", "exec")
