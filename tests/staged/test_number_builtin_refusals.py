"""Builtins of a staged number that Python computes now, while tracing, are
refused naming the call.

hex(), bin(), oct() and chr() of a staged value were refused as a "use as a
Python index or size" with the fix "Keep it a staged value (x as the index)":
they are named, with a fix that fits (an f-string in print for the text).

A math function the graph does not stage (math.isnan, math.fmod,
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
    (ulp, "ulp", "x[1]", "Compute it with np's functions")],
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


def hexed(x):
    return hex(x[1])


def binary(x):
    k = int(x[1])
    return bin(k)


def character(x):
    return chr(int(x[1]) + 65)


def indexes(x):
    return [1, 2, 3][int(x[1])]


@pytest.mark.parametrize("fn, what, name, fix", [
    (hexed, "hex()", "the value in `x[1]`", "print(f'{x:#x}')"),
    (binary, "bin()", "k", "print(f'{x:#b}')"),
    (character, "chr()", "the value in `int(x[1]) + 65`",
     "Return the number and make the character outside the staged function."),
    (indexes, "use as a Python index or size", "the value in `int(x[1])`",
     "Keep it a staged value (x as the index)")],
    ids=lambda v: v.__name__ if callable(v) else None)
def test_text_of_a_number_is_refused_naming_the_call(fn, what, name, fix):
    x = np.array([1, 2])
    fn(x)  # (Python computes them)
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            f"{what} of graph tensor '{name}' at {__file__}:")) as caught:
        ag.function(fn)(x)
    assert fix in str(caught.value)
