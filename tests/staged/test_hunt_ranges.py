"""range() and enumerate() with numpy-typed staged bounds count in Python ints.

`range(n)` takes its bounds through `operator.index`, so its counter is a
Python int whatever numpy integer type `n` has (`range(np.uint8(250), 260)`
counts to 259; `i * x_f32` is float32).  The graph engine typed the counter
by the bounds' dtype: it wrapped in uint8 (a wrong sum; a loop past 255
never ended) and made `i * x_f32` float64.  A staged step of 0 ran no
iteration where Python raises ValueError.
"""

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from tests.staged.test_weak_scalars import _outcome, _same

X = np.array([1., 2., 3., 4.], np.float32)


def _check(fn, *args):
    expected, actual = _outcome(fn, *args), _outcome(ag.function(fn), *args)
    assert _same(expected, actual), (expected, actual)


def start_from_argument(x, n):
    s = 0
    for i in range(n, 0, -1):
        s = s + i * x[0]
    return s


def uint8_stop(x, n):
    s = 0
    for i in range(250, n):
        s = s + i
    return s


def counter_returned(x, n):
    k = 0
    for i in range(n, 10):
        k = i
    return k


def mixed_bounds(x, n, m):
    s = 0
    for i in range(n, m):
        s = s + i * x[0]
    return s


def enumerate_numpy_start(x, start):
    s = 0
    for i, v in enumerate(x, start):
        s = s + i * v
    return s


def range_length(x, n):
    return len(range(n, 300)), len(range(0, n, 7))


def staged_zero_step(x, k):
    s = 0
    for i in range(0, 5, k):
        s += i
    return s


@pytest.mark.parametrize("fn, args", [
    (start_from_argument, (X, np.int64(3))),
    (uint8_stop, (X, np.uint8(255))),
    (counter_returned, (X, np.int64(3))),
    (mixed_bounds, (X, np.int32(1), np.int64(5))),
    (mixed_bounds, (X, np.int8(1), np.uint8(5))),
    (enumerate_numpy_start, (X, np.int64(2))),
    (enumerate_numpy_start, (X, np.int8(100))),
    (range_length, (X, np.uint8(250))),
    (range_length, (X, np.int64(-3))),
    (staged_zero_step, (X, np.int64(2))),
    (staged_zero_step, (X, np.int64(0))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_range_counts_in_python_ints(fn, args):
    _check(fn, *args)


def test_zero_step_raises_on_a_later_call_too():
    staged = ag.function(staged_zero_step)
    assert staged(X, np.int64(2)) == 6
    with pytest.raises(ValueError, match="must not be zero"):
        staged(X, np.int64(0))


def bool_bound(x):
    s = 0
    for i in range(x[0] > 0):
        s += 1
    return s


def test_numpy_bool_bound_is_refused_as_python_refuses_it():
    with pytest.raises(TypeError):
        bool_bound(X)
    with pytest.raises(errors.StagingError, match="dtype bool"):
        ag.function(bool_bound)(X)


# -- a Python list of Python numbers zipped with a staged array -------------------------

def zipped_python_floats(x):
    s = 0.0
    for a, w in zip(x, [1.0, 2.0, 3.0]):
        s = s + a * w  # w is a Python float: float32 * w is float32
    return s


def zipped_python_ints(x):
    s = x[0]
    for a, k in zip(x, (1, 2, 3)):
        s = s + a * k
    return s


@pytest.mark.parametrize("fn, x", [
    (zipped_python_floats, X[:3]),
    (zipped_python_ints, X[:3]),
    (zipped_python_ints, np.array([100, 20, 3], np.int8)),
], ids=["floats", "ints", "ints-int8"])
def test_zipped_python_numbers_stay_python_numbers(fn, x):
    _check(fn, x)


def mixed_python_numbers(x):
    s = 0.0
    for a, w in zip(x, [1, 2.5, 3]):
        s = s + a * w
    return s


def test_zipped_python_numbers_of_several_types_are_refused():
    # (an item's type, int or float, would depend on the staged counter)
    with pytest.raises(errors.StagingError, match="of one type"):
        ag.function(mixed_python_numbers)(X[:3])


def reversed_range(x, a, b, c):
    s = 0.0
    k = -1
    for i in reversed(range(a, b, c)):
        s = s * 2 + x[i]
        k = i
    return s, k


@pytest.mark.parametrize("bounds", [(0, 4, 1), (1, 4, 2), (3, 0, -1), (3, -1, -2), (0, 4, 7)])
@pytest.mark.parametrize("staged", [0, 1, 2])
def test_reversed_staged_range_counts_down(bounds, staged):
    # reversed() of a staged range crashed: "object of type 'StagedRange' has no len()"
    args = [np.int64(b) if i == staged else b for i, b in enumerate(bounds)]
    _check(reversed_range, X, *args)


def zipped_in_a_comprehension(x, y):
    return [a * b for a, b in zip(x, y)]


def enumerated_in_a_generator(x, y):
    return sum(i * v for i, v in enumerate(x))


@pytest.mark.parametrize("fn", [zipped_in_a_comprehension, enumerated_in_a_generator])
def test_zip_and_enumerate_of_a_tensor_iterated_by_python_are_refused_by_the_tensor(fn):
    # (a TypeError "'StagedZip' object is not iterable" from autograph's internals)
    with pytest.raises(errors.TensorUsageError, match=r"iter\(\) of graph tensor 'x' .*"
                                                      r"Comprehensions are not converted"):
        ag.function(fn)(X, X)


ROWS = np.arange(12.0).reshape(4, 3) - 3


def rows_unpacked(m):
    s = 0.0
    for a, b, c in m:
        if a > b - 2:
            s = s + a * b - c
    return s


def rows_unpacked_nested_and_starred(m):
    s = 0.0
    for i, (a, *rest) in enumerate(m):
        s = s + i * a + len(rest) * rest[-1]
    return s


def rows_unpacked_into_too_few(m):
    s = 0.0
    for a, b in m:
        s = s + a
    return s


@pytest.mark.parametrize("fn", [rows_unpacked, rows_unpacked_nested_and_starred,
                                rows_unpacked_into_too_few])
def test_a_tuple_target_unpacks_a_staged_row_as_numpy_iterates_it(fn):
    # `for a, b in rows` was refused: "iter() of graph tensor 'itr'" (a generated name)
    _check(fn, ROWS)


def range_zipped_with_a_tensor(x, n):
    s = 0.0
    for i, v in zip(range(1, n, 2), x):
        s = s + i * v
    for j, i in enumerate(range(n - 1, -1, -1)):
        s = s + j * x[i]
    return s


@pytest.mark.parametrize("n", [1, 3, 4])
def test_a_staged_range_zipped_or_enumerated_counts_in_python_ints(n):
    # (refused: "zip() got a staged value of backend 'staged range'")
    _check(range_zipped_with_a_tensor, X, np.int64(n))
