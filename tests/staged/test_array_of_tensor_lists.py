"""`np.array([a, b])` / `np.asarray(...)` of a Python list (or tuple) of
staged arrays of one rank -- values a Python loop or the user's own list
literal made -- is numpy's array of them, np.stack of them, staged.  It was
refused with a hint about indexing numpy arrays with tensors.  A Python
number or a nested list among them is still refused, with a hint for this
case."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([1.5, -2.25, 3.75, 2.5])


def two_scalars(x):
    return np.array([x[0], x[1] * 2])


def rows_as_float32(x):
    return np.array([x[0:2], x[2:4]], dtype=np.float32)


def tuple_of_comparisons(x):
    return np.asarray((x[0] > 0, x[1] > 0))


def with_numpy_scalars_of_other_dtypes(x):
    return np.array([x[0].astype(np.float32), np.int64(2)]), np.array([x[0], np.float32(2.0)])


def rows_a_python_loop_made(x):
    rows = []
    for i in range(2):
        rows.append(x[i:i + 2] * i)
    return np.array(rows)


@pytest.mark.parametrize("fn", [two_scalars, rows_as_float32, tuple_of_comparisons,
                                with_numpy_scalars_of_other_dtypes, rows_a_python_loop_made])
def test_an_array_of_a_list_of_staged_arrays_is_numpys(fn):
    expected = fn(X)
    staged = ag.function(fn)
    for _ in range(3):  # (interpreted, then compiled)
        got = staged(X)
        for e, g in zip(expected if type(expected) is tuple else (expected,),
                        got if type(got) is tuple else (got,), strict=True):
            assert type(g) is type(e) and g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


def with_a_python_number(x):
    return np.array([x[0], 2.0])


def test_a_python_number_among_them_is_refused_with_a_hint():
    with_a_python_number(X)  # plain Python runs it
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            "np.array([...]) of a list takes tensors of one rank, with no Python number or "
            "nested list among them: write a number as np.float64(2.0), or np.stack the pieces")):
        ag.function(with_a_python_number)(X)
