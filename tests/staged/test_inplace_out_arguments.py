"""`out=` of a numpy function (not a ufunc) on a graph tensor: numpy writes
the result into that array in place.  np.clip dropped `out=` (and `dtype=`,
`where=`) silently, so `np.clip(y, 0, 1, out=y)` left `y` unclipped; the
ndarray methods and np.cumsum/np.round/np.dot with `out=` raised Python's
TypeError about our own functions' parameters.  Now `out=` (by keyword or by
position) is refused naming the function and the user's line, as a ufunc's
`out=` is; `out=None` runs."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

M = np.arange(6.0).reshape(2, 3) - 2


def clip_into_itself(x):
    y = x * 2
    np.clip(y, 0, 3, out=y)
    return y


def clip_into_another(x):
    y = x * 2
    z = np.zeros_like(y)
    np.clip(y, 0, 3, z)  # (out by position)
    return z


def clip_method_into_itself(x):
    y = x * 2
    y.clip(0, 3, out=y)
    return y


def cumsum_into(x):
    y = x * 2
    z = np.zeros_like(y)
    np.cumsum(y, axis=0, out=z)
    return z


def cumsum_method_into(x):
    y = x * 2
    z = np.zeros_like(y)
    y.cumsum(axis=1, out=z)
    return z


def round_method_into_itself(x):
    y = x * 2.3
    y.round(out=y)
    return y


def dot_method_into(x):
    y = x * 2
    z = np.zeros((3, 3))
    y.T.dot(y, out=z)
    return z


@pytest.mark.parametrize("fn, function", [
    (clip_into_itself, "np.clip"), (clip_into_another, "np.clip"),
    (clip_method_into_itself, "np.clip"), (cumsum_into, "np.cumsum"),
    (cumsum_method_into, "np.cumsum"), (round_method_into_itself, "np.round"),
    (dot_method_into, "np.dot"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_an_out_array_is_refused(fn, function):
    expected = fn(M.copy())  # Python: the result is written into the out= array
    assert not np.array_equal(expected, np.zeros_like(expected))
    line = f"{__file__}:{fn.__code__.co_firstlineno + (2 if 'itself' in fn.__name__ else 3)}"
    with pytest.raises(errors.UnsupportedNumpyFunctionError, match=re.escape(
            errors.unsupported_numpy_function_message(f"{function}(..., out=...)", line))):
        ag.function(fn)(M.copy())


def clip_to_float32(x):
    return np.clip(x * 2, 0, 3, dtype=np.float32)


def test_an_unrecorded_clip_keyword_is_refused():
    assert clip_to_float32(M).dtype == np.float32  # (the graph gave float64)
    line = f"{__file__}:{clip_to_float32.__code__.co_firstlineno + 1}"
    with pytest.raises(errors.UnsupportedNumpyFunctionError, match=re.escape(
            errors.unsupported_numpy_function_message("np.clip(..., dtype=...)", line))):
        ag.function(clip_to_float32)(M)


def out_none(x):
    y = x * 2
    return np.outer(y, y, out=None), np.cumsum(y, out=None), y.clip(max=1.0), y.dot(y.T)


def test_out_none_runs_as_python():
    for got, expected in zip(ag.function(out_none)(M), out_none(M)):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype
