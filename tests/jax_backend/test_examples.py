"""The JAX examples run and check what they claim (each asserts its own results)."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                              exc_type=ImportError)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(script):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("XLA_FLAGS", None)
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", script)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_jax_train_stops_early_and_matches_the_eager_run():
    done = _run("jax_train.py")
    assert done.returncode == 0, done.stderr
    assert "early stop at step" in done.stdout
    assert "gives the same loss curve" in done.stdout


def test_jax_data_parallel_matches_the_single_device_run():
    done = _run("jax_data_parallel.py")
    assert done.returncode == 0, done.stderr
    assert "8 devices" in done.stdout
    assert "equals the single-device run's" in done.stdout
