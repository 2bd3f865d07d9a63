"""range() with a staged bound that Python's range() refuses.

Python's range() reads its bounds through `operator.index`, so a numpy bool,
a float or an array of several values raises TypeError.  Staged, `len(range(n))`
computed with such a bound anyway: `n = np.True_` gave 1, `np.float64(3)` gave
3.0, an array `[3]` gave `array([3])`.  Every use of the staged range (len, a
loop, its step) is now refused with RangeBoundError (a TypeError) naming the
bound, the line and the fix.  A bound known while tracing goes through
`operator.index` as in Python.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def length(n):
    return len(range(n))  # line marker: length


def length_from(n):
    return len(range(1, n))


def length_with_step(n):
    return len(range(0, 5, n))


def counted(n):
    s = 0
    for i in range(n):
        s += 1
    return s


def python_float_start(n):
    return len(range(0.5, n))


BAD_BOUNDS = [
    (np.True_, "of dtype bool"),
    (np.array(True), "of dtype bool"),
    (np.float64(3.0), "of dtype float64"),
    (np.float32(3.0), "of dtype float32"),
    (np.array(3.0), "of dtype float64"),
    (np.array([3]), "of shape (1,)"),
]


@pytest.mark.parametrize("fn", [length, length_from, length_with_step, counted])
@pytest.mark.parametrize("bound, what", BAD_BOUNDS, ids=[repr(b) for b, _ in BAD_BOUNDS])
def test_a_bound_python_refuses_is_refused(fn, bound, what):
    with pytest.raises(TypeError):
        fn(bound)
    with pytest.raises(errors.RangeBoundError, match=re.escape(what)) as info:
        ag.function(fn)(bound)
    assert isinstance(info.value, TypeError)
    assert "'n'" in str(info.value) and ".astype(int)" in str(info.value)


def test_the_message_names_the_bound_and_the_line():
    line = length.__code__.co_firstlineno + 1
    where = f"{__file__}:{line}"
    with pytest.raises(errors.RangeBoundError, match=re.escape(
            errors.range_bound_message("n", "of dtype bool", where))):
        ag.function(length)(np.True_)


def test_a_bound_known_while_tracing_raises_pythons_type_error():
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        ag.function(python_float_start)(np.int64(3))


@pytest.mark.parametrize("fn, expected", [
    (length, 3), (length_from, 2), (length_with_step, 2), (counted, 3)])
@pytest.mark.parametrize("bound", [np.int64(3), np.array(3), np.uint8(3)])
def test_integer_bounds_still_count(fn, expected, bound):
    assert fn(bound) == expected
    assert ag.function(fn)(bound) == expected


def python_bool_bound(x):
    flag = True
    if x > 0:
        flag = False
    return len(range(flag))  # a Python bool is an int to range()


def test_a_staged_python_bool_is_an_int_to_range():
    for x in (np.float64(1.0), np.float64(-1.0)):
        assert ag.function(python_bool_bound)(x) == python_bool_bound(x)


# --- the same under the JAX backend ---------------------------------------------------------

@pytest.mark.parametrize("fn", [length, length_with_step, counted])
@pytest.mark.parametrize("bound, what", [
    (np.True_, "of dtype bool"), (np.float32(3.0), "of dtype float32"),
    (np.array([3]), "of shape (1,)")], ids=["bool", "float32", "array"])
def test_jax_refuses_the_same_bounds(fn, bound, what):
    jax = pytest.importorskip("jax", reason="the jax extra is not installed",
                              exc_type=ImportError)
    with pytest.raises(errors.RangeBoundError, match=re.escape(what)):
        jax.jit(ag.to_graph(fn))(bound)


# --- Python's other uses of a staged range ------------------------------------------------

def first_item(n):
    return range(n)[0]


def contains_two(n):
    return 2 in range(n)


def as_list(n):
    return list(range(n))


@pytest.mark.parametrize("fn, use", [(first_item, "indexing"), (contains_two, "`in`"),
                                     (as_list, "unpacking)")])
def test_other_uses_of_a_staged_range_are_refused_by_name(fn, use):
    fn(np.int64(3))  # (Python runs them)
    with pytest.raises(errors.NotStageableError, match=re.escape(use) + " of a range"):
        ag.function(fn)(np.int64(3))
