"""What Python does with an ndarray, a staged value does the same or refuses:
copy.copy/deepcopy, np.isscalar, ndarray methods backed by staged numpy
functions, itemsize/nbytes, and ndarray attributes a graph tensor lacks."""

import copy

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([[1.26, -2.5], [3.0, 0.0]])


def copied(x):
    y = copy.copy(x)
    z = copy.deepcopy(x)
    y += 1  # (a new array in Python: x stays)
    return x, y, z * 2


def test_copy_and_deepcopy_make_new_values():
    # (copy.copy crashed inside the interpreter with a KeyError; deepcopy copied
    # the graph and was refused as a tensor from another graph)
    want = copied(X.copy())
    got = ag.function(copied)(X.copy())
    for w, g in zip(want, got):
        np.testing.assert_array_equal(w, g)


METHODS = [
    lambda x: x.round(1), lambda x: x.repeat(2, axis=0), lambda x: x.take([1, 0], axis=1),
    lambda x: x.swapaxes(0, 1), lambda x: x.nonzero()[1], lambda x: x.cumprod(axis=1),
    lambda x: x.itemsize, lambda x: x[0].nbytes,
]


@pytest.mark.parametrize("method", METHODS)
def test_ndarray_methods_and_sizes_follow_numpy(method):
    want, got = method(X), ag.function(method)(X)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def isscalar_of_row(x):
    return np.isscalar(x[0])


def isscalar_of_item(x):
    return np.isscalar(x[0, 0])


def test_isscalar_answers_as_python_or_refuses():
    assert ag.function(isscalar_of_row)(X) == isscalar_of_row(X)  # False: an ndarray
    isscalar_of_item(X)  # (True in Python; a 0-d staged value may be a 0-d array)
    with pytest.raises(errors.TracedTypeError, match=r"np.isscalar\(\) at .*'x\[0, 0\]'"):
        ag.function(isscalar_of_item)(X)


def flat_item(x):
    return x.flat[2]


def has_flags(x):
    return hasattr(x, "flags")


def typo(x):
    return x.lenght


def test_ndarray_attributes_a_tensor_lacks_are_refused_at_the_users_line():
    with pytest.raises(errors.UnsupportedArrayAttributeError,
                       match=r"`x\.flat` at .*test_ndarray_protocol\.py:6\d"):
        ag.function(flat_item)(X)
    assert has_flags(X) is True
    # (an AttributeError would make hasattr answer False where Python answers True)
    with pytest.raises(errors.UnsupportedArrayAttributeError, match=r"`x\.flags`"):
        ag.function(has_flags)(X)
    with pytest.raises(AttributeError, match="lenght"):  # (not ndarray's: Python's error)
        ag.function(typo)(X)


def python_number_types(x, n):
    v = float(x[0, 0])
    c = 0
    for _ in range(n):
        c = c + 1
    return np.isscalar(v), isinstance(v, float), type(c) is int, isinstance(c, float)


def test_a_staged_python_number_has_its_python_type():
    # (float(x[0, 0]) and a Python counter are Python numbers in Python: their
    # type was refused as one a trace cannot tell)
    want = python_number_types(X, 3)
    assert ag.function(python_number_types)(X, np.int64(3)) == want == (True, True, True, False)


def best_prefix(x, n):
    seen, best = [], []
    for i in range(n):
        seen.append(x[i])
        if x[i] > 1:
            best = seen[:]  # (Python's copy idiom)
    return best, len(seen)


def test_a_full_slice_of_a_staged_list_is_its_copy():
    x = np.array([0.5, 2.0, 0.1, 3.0, 0.2])
    want, got = best_prefix(x, 5), ag.function(best_prefix)(x, np.int64(5))
    assert got[1] == want[1] and len(got[0]) == len(want[0]) == 4
    np.testing.assert_array_equal(got[0], want[0])
