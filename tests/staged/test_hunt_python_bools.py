"""`a in t` of a staged array gives the Python bool Python's `in` gives.

Python's `in` makes a bool of whatever `__contains__` returns, so `2.0 in x`
is True, `~(2.0 in x)` is -2 and `k + (v in x)` a Python int.  Staged, it was
numpy's `(x == a).any()`, a numpy bool: `~c` gave False and `k + c` an
np.int64.
"""

import numpy as np
import pytest

from tests.staged.test_hunt_ranges import _check

X = np.array([1., 2., 3., 4.], np.float32)
WITH_NAN = np.array([np.nan, -1., 2., -3.])


def in_value(x):
    c = 2.0 in x
    return c, c + 1, ~c, -c, c * x[0]


def not_in_value(x):
    c = 2.0 not in x
    return c, c + 1, ~c


def counted_in_loop(x, n):
    k = 0
    i = 0
    while i < n:
        k = k + (x[i] in x)
        i += 1
    return k


def nan_and_rows(x):
    m = x.reshape(2, 2)
    return np.nan in x, x[0] in x, x[:2] in m, 3.0 in m, 7.0 in x[:0]


@pytest.mark.parametrize("x", [X, WITH_NAN, np.array([1, 2, 3], np.int8)])
@pytest.mark.parametrize("fn", [in_value, not_in_value, nan_and_rows],
                         ids=lambda f: f.__name__)
def test_in_of_a_staged_array_is_a_python_bool(fn, x):
    if fn is nan_and_rows and x.size != 4:
        x = np.arange(4.0)
    _check(fn, x)


def test_in_counted_in_a_staged_loop_stays_a_python_int():
    _check(counted_in_loop, X, np.int64(3))
