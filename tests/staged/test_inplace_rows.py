"""A row of a 2-d array is a numpy view: `for row in y: row += 1` (and
`r = y[i]; r += 1` with a staged counter `i`) changes `y` in Python.  The
graph took a row indexed by a staged int for a copy (a 0-d tensor in the key
read as an index array), so the staged `+=` rebound `row` alone and `y` --
or the caller's argument -- came back unchanged: a silently wrong result.
Now the change is refused, naming the row, the array and the line; a row of
a 1-d array (a numpy scalar, which `+=` rebinds in Python too) still runs."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

M = np.arange(6.0).reshape(2, 3)


def rows_of_a_result(x):
    y = x * 2
    for row in y:
        row += 1  # line 1
    return y


def rows_of_the_argument(x):
    for row in x:
        row *= 2  # line 1
    return x


def enumerated_rows(x):
    y = x * 2
    for k, row in enumerate(y):
        row -= k  # line 2
    return y


def zipped_rows(x):
    y = x * 2
    z = x * 3
    for a, b in zip(y, z):
        a += b  # line 3
    return y


def row_by_a_staged_counter(x, n):
    y = x * 2
    for i in range(n):
        r = y[i]
        r += 1  # line 3
    return y


def row_by_argmax(x):
    y = x * 2
    r = y[np.argmax(x[:, 0])]
    r += 1  # line 2
    return y


def _line(fn, offset):
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}"


@pytest.mark.parametrize("fn, args, row, array, symbol, offset", [
    (rows_of_a_result, (M,), "row", "y", "+=", 3),
    (rows_of_the_argument, (M,), "row", "x", "*=", 2),
    (enumerated_rows, (M,), "row", "y", "-=", 3),
    (zipped_rows, (M,), "a", "y", "+=", 4),
    (row_by_a_staged_counter, (M, np.int64(2)), "r", "y", "+=", 4),
    (row_by_argmax, (M,), "r", "y", "+=", 3),
], ids=lambda v: getattr(v, "__name__", ""))
def test_changing_a_row_in_place_is_refused(fn, args, row, array, symbol, offset):
    plain_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    result = fn(*plain_args)  # Python changes the array (or the argument) through the row
    assert not np.array_equal(plain_args[0], args[0]) or not np.array_equal(result, args[0] * 2)
    message = errors.in_place_view_message(row, array, f"{row} {symbol} ...",
                                           _line(fn, offset), name_is_view=True)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(fn)(*args)


def items_of_a_vector(x):
    y = x * 2
    total = x[0] * 0
    for v in y:
        v += 1  # a numpy scalar: rebinds v alone, in Python too
        total += v
    return y, total


def copied_row(x, n):
    y = x * 2
    for i in range(n):
        r = y[i] * 1
        r += 1
        y = y + r
    return y


@pytest.mark.parametrize("fn, args", [
    (items_of_a_vector, (np.arange(3.0),)),
    (copied_row, (M, np.int64(2))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_items_and_copies_of_rows_run_as_python(fn, args):
    expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = ag.function(fn)(*args)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
        assert np.asarray(g).dtype == np.asarray(e).dtype


def flattened_copy(x):
    y = x * 2
    f = y.flatten()  # a copy in numpy (ravel is the view)
    f += 1
    return y, f


def test_flatten_is_a_copy_and_runs_as_python():
    # (it was taken for a view: `f += 1` was refused as a change of y)
    for got, expected in zip(ag.function(flattened_copy)(M), flattened_copy(M)):
        np.testing.assert_array_equal(got, expected)
