"""A math function the graph does not stage (math.isnan, math.fmod,
math.isclose, math.log(x, base), ...) of a staged value is refused naming the
function and the argument, with numpy's spelling of it.  It used to raise
"float() of graph tensor 'the value in `math.isclose(x[1], 3.0)`' ... float()
asks for the number now", a float() the user never wrote."""

import math
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([-7.5, 3.0, 0.0, np.nan])


def isnan(x):
    return math.isnan(x[3])


def fmod(x):
    return math.fmod(x[0], 2.0)


def copysign(x):
    return math.copysign(1.0, x[0])


def isclose(x):
    return math.isclose(x[1], 3.0)


def log_base(x):
    return math.log(x[1], 2)


def ulp(x):
    return math.ulp(x[1])


@pytest.mark.parametrize("fn, function, name, fix", [
    (isnan, "isnan", "x[3]", "Write np.isnan(...), which is staged"),
    (fmod, "fmod", "x[0]", "Write np.fmod(...), which is staged"),
    (copysign, "copysign", "x[0]", "Write np.copysign(...), which is staged"),
    (isclose, "isclose", "x[1]", "Write np.isclose(a, b, rtol=1e-09, atol=0.0)"),
    (log_base, "log", "x[1]", "np.log(x) / np.log(base) with a base, which is staged"),
    (ulp, "ulp", "x[1]", "Compute it with numpy functions")],
    ids=lambda v: v.__name__ if callable(v) else None)
def test_refused_naming_the_function_and_argument(fn, function, name, fix):
    fn(X)  # (Python computes them)
    with pytest.raises(errors.NotStageableError, match=re.escape(
            f"math.{function}() of staged value '{name}' at {__file__}:")) as caught:
        ag.function(fn)(X)
    assert f"this call of math.{function} is not staged" in str(caught.value)
    assert fix in str(caught.value) and "float()" not in str(caught.value)


def staged_ones(x):
    return math.sqrt(x[1]), math.log(x[1]), math.fabs(x[0])


def test_the_staged_ones_still_run():
    assert ag.function(staged_ones)(X) == staged_ones(X)


def floor(x):
    return math.floor(x[0])


def test_floor_keeps_its_own_message():
    with pytest.raises(errors.TensorUsageError, match=re.escape("math.floor() of graph tensor")):
        ag.function(floor)(X)
