"""CI checks of the code's shape: the import contracts of pyproject.toml
(docs/ARCHITECTURE.md, "Layers") hold, and ruff's rule set passes.

Both tools are in the `test` extra, so CI runs them; a machine without them
skips with the reason."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(tool, *args):
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[test]' installs it)")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([exe, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def test_import_contracts_hold():
    code, output = _run("lint-imports", "--no-cache")
    assert code == 0, output
    assert "0 broken" in output


def test_ruff_passes():
    code, output = _run("ruff", "check", "--no-cache", "autograph", "tests", "benchmarks",
                        "examples")
    assert code == 0, output


def test_runtime_and_engine_import_without_the_transpiler():
    """The runtime and the graph engine stand alone: importing them loads no
    transpiler, converter or backend module (the contracts say so statically;
    this checks the modules Python actually loads)."""
    script = ("import sys, autograph.runtime, autograph.graph.core; "
              "print(sorted(m for m in sys.modules if m.startswith('autograph.')))")
    # `import autograph.runtime` runs autograph/__init__ first, which wires the
    # layers together; so look at what the subpackages import by themselves
    code = f"import sys; sys.modules['autograph'] = type(sys)('autograph'); " \
           f"sys.modules['autograph'].__path__ = [{os.path.join(ROOT, 'autograph')!r}]; {script}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout
    for higher in ("autograph.transpiler", "autograph.converters", "autograph.api",
                   "autograph.backends", "autograph.wiring"):
        assert f"'{higher}" not in loaded, loaded
