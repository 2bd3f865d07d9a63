"""A staged loop whose body may leave a Python-number accumulator as it came
in (`s = 0.0; for v in x: if v > 0: s = s + v`): in Python `s` is still the
Python float when no iteration took the assignment (no element > 0), the
numpy scalar once one did.  The graph returned the numpy scalar on both
paths (`np.float64(0.0)` for `0.0`); the loop now carries whether it is
still the Python number (backends/graph.py _python_after_inner_loops, as for
a nested loop that ran no iteration) and returns it as Python does
(ops/elementwise.py as_returned).  A use whose dtype depends on which one it
is (`s * w_f32`) is refused at run time, only where it is still the Python
number.  Where the loop cannot tell (a branch making a new number, `else: s
= 0.0`; an `if` nested in another), it stays the numpy scalar, never the
Python number for a numpy result (an `else` computing it, `s * 2`, may use
another loop variable, which the trace types as its start's Python number).
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from tests.graph.test_loop_python_number_returned import kinds

INPUTS = [np.array([1.0, 2.0]), np.array([-1.0, -2.0]), np.array([1.0, -2.0]),
          np.array([-1.0, 2.0]), np.array([])]
W32 = np.ones(2, np.float32)




def positive_sum(x):
    s = 0.0
    for v in x:
        if v > 0:
            s = s + v
    return s


def positive_sum_while(x):
    s = 0.0
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            s = s + x[i]
        i = i + 1
    return s


def positive_count_numpy(x):
    n = 0
    for v in x:
        if v > 0:
            n = n + np.int64(1)
    return n


def in_containers(x):
    s = 0.0
    m = 0
    for v in x:
        if v > 0:
            s = s + v
            m = m + np.int64(1)
    return (s, {"m": m, "half": s / 2})


def rows_positive_sum(rows):
    s = 0.0
    for row in rows:
        for v in row:
            if v > 0:
                s = s + v
    return s


@pytest.mark.parametrize("fn", [positive_sum, positive_sum_while, positive_count_numpy,
                                in_containers, rows_positive_sum])
def test_an_accumulator_the_body_may_leave_is_pythons_type(fn):
    staged = ag.function(fn)
    for x in INPUTS:
        x = x.reshape(1, -1) if fn is rows_positive_sum else x
        assert kinds(staged(x)) == kinds(fn(x)), x


def scaled_positive_sum(x, w):
    s = 0.0
    for v in x:
        if v > 0:
            s = s + v
    return s * w


def test_a_use_whose_dtype_depends_on_it_is_refused_only_where_it_is_still_python():
    staged = ag.function(scaled_positive_sum)
    for x in (np.array([1.0, -2.0]), np.array([-1.0, 2.0])):  # (numpy: float64)
        got, python = staged(x, W32), scaled_positive_sum(x, W32)
        assert got.dtype == python.dtype and np.array_equal(got, python)
    assert scaled_positive_sum(np.array([-1.0, -2.0]), W32).dtype == np.float32
    code = scaled_positive_sum.__code__
    message = errors.python_number_before_loop_message(
        "s", "float", "float64", "for", errors.where(code.co_filename, code.co_firstlineno + 2),
        "float32", errors.where(code.co_filename, code.co_firstlineno + 5))
    assert "ran no iteration that changed it" in message
    with pytest.raises(errors.PythonNumberPathError, match=re.escape(message)):
        staged(np.array([-1.0, -2.0]), W32)


# --- where the loop cannot tell: the numpy scalar, never the Python number for numpy -----

def sum_or_reset(x):
    s = 0.0
    for v in x:
        if v > 0:
            s = s + v
        else:
            s = 0.0
    return s


def sum_or_double(x):
    s = 1.0
    for v in x:
        if v > 0:
            s = s + v
        else:
            s = s * 2  # (a Python float while s is one)
    return s


def sum_or_running_total(x):
    s = 0.0
    t = 0.0
    for v in x:
        t = t + v
        if v > 0:
            s = s + v
        else:
            s = t  # (a Python float in the trace; numpy once t is)
    return s


def nested_positive_sum(x):
    s = 0.0
    for v in x:
        if v > 0:
            if v > 1.5:
                s = s + v
    return s


@pytest.mark.parametrize("fn", [sum_or_reset, sum_or_double, sum_or_running_total,
                                nested_positive_sum])
def test_where_the_loop_cannot_tell_a_numpy_result_is_never_a_python_number(fn):
    staged = ag.function(fn)
    for x in INPUTS:
        got, python = staged(x), fn(x)
        assert got == python
        if isinstance(python, np.generic):
            assert type(got) is type(python), x
