"""numpy's scalar types called on a staged value (`np.float32(total)`,
`np.int8(x * 10)`): numpy's conversion, staged (runtime/builtins.py
`_scalar_type_`, Backend.numpy_type_of): `astype` of an array or numpy value,
and of a staged Python number (a loop counter) numpy's conversion of a
Python number, which raises where it does not fit (`np.int8(300)`)."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def conversions(x):
    total = 0
    for v in x:
        if v > 0:
            total = total + 3
    return (np.float32(total), np.float32(x[0]), np.int8(x * 10), np.float16(total) * x,
            np.bool_(x[1]), np.uint8(total), np.complex64(x[2]), np.float64(x))


def _same(a, b):
    return type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype and \
        np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.mark.parametrize("x", [np.array([1.5, 0.0, 2.0], np.float32),
                               np.array([-1.0, 7.25, np.nan], np.float64),
                               np.array([3, 0, -4], np.int16)], ids=str)
def test_numpy_scalar_types_of_staged_values_are_numpys(x):
    expected = conversions(x)
    staged = ag.function(conversions)(x)
    assert all(_same(s, e) for s, e in zip(staged, expected)), (staged, expected)


def big_counter(x):
    k = 0
    for v in x:
        k = k + 100
    return np.int8(k)


def test_a_python_number_that_does_not_fit_raises_numpys_overflow_error():
    x = np.ones(3)
    with pytest.raises(OverflowError) as python:
        big_counter(x)
    with pytest.raises(OverflowError) as staged:
        ag.function(big_counter)(x)
    assert str(staged.value) == str(python.value) == "Python integer 300 out of bounds for int8"
    assert ag.function(big_counter)(np.ones(1)) == big_counter(np.ones(1)) == np.int8(100)


def test_a_large_python_int_is_converted_through_float_as_numpy_does():
    def scaled(x, n):
        k = 0
        for v in x:
            k = k + n
        return np.float32(k)

    n = 2**53 + 2**29 + 1  # np.float32(n) rounds twice (through float(n))
    assert np.float32(n) != np.int64(n).astype(np.float32)
    assert _same(ag.function(scaled)(np.ones(1), n), scaled(np.ones(1), n))


def test_python_values_call_the_type_unchanged():
    def f(v):
        return np.float32(v), np.int8("12"), np.float64()

    assert f(2.5) == ag.to_graph(f)(2.5)


def test_a_staged_list_is_refused_as_before():
    def f(x, n):
        items = []
        for i in range(n):
            items.append(x[i])
        return np.float32(items)

    with pytest.raises(errors.TensorUsageError, match="of graph tensor 'items' at "):
        ag.function(f)(np.ones(3), np.int64(2))


def test_sum_of_a_staged_list_is_refused_naming_it_with_the_loop_that_adds_in_order():
    def summed(x, n):
        items = []
        for i in range(n):
            items.append(float(x[i]))
        return sum(items)

    def looped(x, n):  # the fix the message gives
        items = []
        for i in range(n):
            items.append(float(x[i]))
        total = 0.0
        for v in items:
            total = total + v
        return total

    with pytest.raises(errors.TensorUsageError) as info:
        ag.function(summed)(np.ones(3), np.int64(2))
    assert str(info.value).startswith(f"sum() of graph tensor 'items' at {__file__}:")
    assert "for v in items: total = total + v" in str(info.value)
    x = np.full(3, 0.1)
    assert ag.function(looped)(x, np.int64(3)) == looped(x, 3) == summed(x, 3)
    assert ag.to_graph(summed)(x, 3) == summed(x, 3)  # (Python values: the builtin)


def float_to_int_types(x):
    f = float(x[0])  # a staged Python float
    return np.int64(f), np.int8(f), np.uint8(f)


@pytest.mark.parametrize("first", [300.5, -1.5, np.nan, np.inf, 1e300, -0.5, 7.9])
def test_a_python_float_to_an_int_type_is_numpys_int_then_range_check(first):
    # numpy converts a Python float with int(f): NaN, inf, 300.5 as int8 raise
    # numpy's errors; a cast (astype) gave -9223372036854775808 or 44 silently
    x = np.array([first, 1.0])
    try:
        expected = float_to_int_types(x)
    except (ValueError, OverflowError) as python:
        with pytest.raises(type(python)) as staged:
            ag.function(float_to_int_types)(x)
        assert str(staged.value) == str(python)
    else:
        staged = ag.function(float_to_int_types)(x)
        assert all(_same(s, e) for s, e in zip(staged, expected)), (staged, expected)


def complex_to_real(x):
    k = 0j
    for v in x:
        k = k + 1j
    return np.float32(k)


def test_a_python_complex_to_a_real_type_raises_numpys_type_error():
    with pytest.raises(TypeError) as python:
        complex_to_real(np.ones(2))
    with pytest.raises(TypeError) as staged:
        ag.function(complex_to_real)(np.ones(2))
    assert str(staged.value) == str(python.value)
