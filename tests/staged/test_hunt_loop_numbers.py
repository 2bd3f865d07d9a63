"""A loop variable that starts as a numpy value and that the body makes a
Python number is refused, as a branch giving the two is.

In Python `c = x_f32[0]; for ...: c = 0.1` leaves the Python float 0.1 once
the loop has run (`c * 3` is 0.30000000000000004) and the numpy value when it
runs no iteration. The graph carried it as float32 and returned
np.float32(0.3); an int8 start with `c = 300` raised OverflowError where
Python gives 300. Now it is refused naming the variable (a number of the
start's own default dtype, a float64 start then a Python float, is let
through as for a branch).
"""

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from tests.staged.test_hunt_ranges import _check

X32 = np.array([1.5, 2.25, 3.125], np.float32)
X8 = np.array([1, 2, 3], np.int8)


def float_literal(x, n):
    c = x[0]
    for i in range(n):
        c = 0.1
    return c * 3


def int_literal_while(x, n):
    c = x[0]
    i = 0
    while i < n:
        c = 300
        i += 1
    return c


def counter(x, n):
    c = x[0]
    for i in range(n):
        c = i
    return c / 3


@pytest.mark.parametrize("fn", [float_literal, int_literal_while, counter],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X32, X8], ids=["float32", "int8"])
def test_numpy_start_then_python_number_is_refused(fn, x):
    assert type(fn(x, np.int64(2))) in (float, int)  # Python's type once the loop ran
    with pytest.raises(errors.StagingError, match="before the staged .* and .* after an "
                       "iteration") as caught:
        ag.function(fn)(x, np.int64(2))
    assert f"{__file__}:" in str(caught.value) and "variable 'c'" in str(caught.value)


def test_the_suggested_fix_runs():
    def fixed(x, n):
        c = x[0]
        for i in range(n):
            c = np.float32(0.1)
        return c * 3
    _check(fixed, X32, np.int64(2))
    _check(fixed, X32, np.int64(0))


def float64_start(x, n):
    c = x[0]
    for i in range(n):
        c = 0.1
    return c * 3


def test_a_number_of_the_starts_default_dtype_is_let_through():
    x = X32.astype(np.float64)
    assert ag.function(float64_start)(x, np.int64(2)) == float64_start(x, np.int64(2))
