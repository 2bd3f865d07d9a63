"""The gradient fuzzer, CI slice: random programs (fuzz_programs.py) made
into a loss, whose `ag.grad` -- through staged branches, loops, jumps,
lists, dicts, closures and try/with -- must match finite differences of the
plain Python loss (fuzz_grad.py).  Derandomized; hypothesis shrinks a
failing program.  The long run is `python -m tests.staged.fuzz_grad
--programs 1000`."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import autograph as ag

from . import fuzz_grad, fuzz_programs
from .test_fuzz import slice_settings

# (uint8 and int32 counts wrap in the programs, as numpy's scalars do, and numpy
# warns: an outcome both runs share, not one the fuzzer compares)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_grad"))


@slice_settings(60)
@given(st.data())
def test_gradients_of_random_programs_match_finite_differences(directory, data):
    chooser = fuzz_programs.DataChooser(data)
    source, _ = fuzz_programs.write_program(chooser, fuzz_programs.FEATURES)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    kind, detail = fuzz_grad.check(source, fuzz_grad.arguments_off_the_grid(chooser, rng),
                                   directory)
    assert kind != "mismatch", f"{detail}\n{source}"


def test_the_check_catches_a_wrong_gradient(directory):
    source = fuzz_programs.PRELUDE + (
        "def f(x, n, a):\n"
        "    s = a * 0.0\n"
        "    for v in x:\n"
        "        s = s + v * v * a\n"
        "    return (s, n)\n")
    arguments = [(np.array([1.0, -2.0]), np.int64(1), np.float64(0.5))]
    assert fuzz_grad.check(source, arguments, directory) == ("match", "")

    def a_little_off(fn, argnums):
        right = ag.grad(fn, argnums=argnums)
        return lambda *args: tuple(g * 1.001 for g in right(*args))

    kind, detail = fuzz_grad.check(source, arguments, directory, grad=a_little_off)
    assert kind == "mismatch" and "finite differences" in detail
