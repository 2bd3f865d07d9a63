"""A variable a staged `if` or loop leaves a Python bool on one path and a
numpy bool on another is refused (graph engine).

numpy lets a Python number of its default dtype stand for the numpy value
(`i64 if c else -1`), but not a bool: `~True` is -2 where `~np.True_` is False,
`True + True` is 2 where numpy gives True.  The graph gave numpy's bool on
every path: `a = x[0] > 0` then a loop setting `a = i > 5` gave `~a` np.True_
after one iteration where Python gives -1; a Python bool start that the body
makes a numpy bool gave np.False_ for a loop that ran no iteration where
Python gives -2.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([1.0, 2.0], np.float32)


def numpy_start_python_body(x, n):
    a = x[0] > 0
    for i in range(n):
        a = i > 5  # a Python bool, as Python compares two Python ints
    return ~a


def python_start_numpy_body(x, n):
    a = True
    for i in range(n):
        a = x[i] > 0
    return ~a


def python_start_while(x, n):
    a = True
    i = 0
    while i < n:
        a = x[i] > 0
        i += 1
    return a + a


def python_bool_one_branch(x, n):
    a = True
    if x[1] > n:
        a = x[0] > 5
    return ~a


@pytest.mark.parametrize("fn, n, python", [
    (numpy_start_python_body, np.int64(1), -1),
    (python_start_numpy_body, np.int64(0), -2),
    (python_start_while, np.int64(0), 2),
    (python_bool_one_branch, np.int64(5), -2),
])
def test_python_and_numpy_bool_on_two_paths_is_refused(fn, n, python):
    assert fn(X, n) == python and type(fn(X, n)) is int
    with pytest.raises(errors.StagingError, match="is -2 where `~np.True_` is False") as info:
        ag.function(fn)(X, n)
    assert "variable 'a'" in str(info.value) and "np.bool_(" in str(info.value)


def test_the_message_names_the_loop_and_line():
    line = python_start_numpy_body.__code__.co_firstlineno + 2
    with pytest.raises(errors.StagingError, match=re.escape(errors.python_or_numpy_bool_message(
            "a", f"{__file__}:{line}", "for", "the Python bool True",
            "a tensor of dtype bool and shape ()"))):
        ag.function(python_start_numpy_body)(X, np.int64(0))


def numpy_bools_throughout(x, n):
    a = np.True_
    for i in range(n):
        a = x[i % 2] > 0
    b = x[0] > 3
    if x[1] > n:
        b = np.bool_(n > 5)
    return ~a, ~b


def python_bools_throughout(x, n):
    a = True
    for i in range(n):
        a = i > 0
    return ~a


def condition_of_mixed_bools(x, n):
    s = 0
    i = 0
    while i < n and x[i % 2] > 0:  # (an `and` of two kinds of bool, as a condition)
        s += 1
        i += 1
    return s


@pytest.mark.parametrize("fn", [numpy_bools_throughout, python_bools_throughout,
                                condition_of_mixed_bools])
@pytest.mark.parametrize("n", [np.int64(0), np.int64(1), np.int64(7)])
def test_one_kind_of_bool_still_stages(fn, n):
    expected, actual = fn(X, n), ag.function(fn)(X, n)
    assert type(actual) is type(expected) and actual == expected


# max()/min() stage an `if` per argument; the check let their value through
# as if it were an `and`/`or` (whose value is nearly always a condition):
# `~min(x[0] > 0, False)` gave np.True_ where Python gives -1.
def min_of_a_comparison_and_false(x):
    r = min(x[0] > 0, False)
    return ~r, r + r


def max_of_true_and_a_comparison(x):
    r = max(True, x[0] > 0)
    return ~r, r + r


@pytest.mark.parametrize("fn, call", [(min_of_a_comparison_and_false, "min"),
                                      (max_of_true_and_a_comparison, "max")])
def test_max_and_min_of_a_python_and_a_numpy_bool_are_refused(fn, call):
    for x in (X, -X):
        fn(x)  # plain Python runs it
        with pytest.raises(errors.StagingError, match=re.escape(
                f"variable 'the value of `{call}(...)`' is the Python bool")):
            ag.function(fn)(x)


def test_max_of_two_numpy_bools_is_staged():
    def fn(x):
        r = max(x[0] > 0, x[1] > 0)
        return ~r, r + r

    for x in (X, -X, np.array([-1.0, 1.0], np.float32)):
        expected, staged = fn(x), ag.function(fn)(x)
        assert [type(v) for v in staged] == [type(v) for v in expected] and staged == expected
