"""Loop specialisations of the compiler (graph/loops.py: Python counter,
element loop; compiler.py: name reuse and in-place ufuncs) give bit-identical
results to eager numpy, on edge values: int64 overflow, NaN/inf, -0.0,
float32 rounding, empty arrays.  Each test also checks the specialisation was
(or was not) chosen, from the generated source, so a test cannot pass by the
specialisation silently not applying."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag


def _staged(fn, *args):
    staged = ag.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow warnings, both sides
        result = staged(*args)
        expected = fn(*args)
    return result, expected, staged.get_concrete_function(*args).source


ELEMENT_LOOP = re.compile(r"for v\d+ in a0(\.tolist\(\))?:")


def _same(result, expected):
    """Equal dtype and bits (NaN equals NaN of the same bits, -0.0 != 0.0)."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape
    assert result.tobytes() == expected.tobytes(), (result, expected)


def sum_items(items):
    s = items[0] * 0
    for c in items:
        s += c
    return s


def count_and_sum_even(items):
    s = 0
    n = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
        n += 1
    return s, n


def collatz(n):
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def indexed_sum(x, n):
    s = x[0] * 0
    i = 0
    while i < n:
        s = s + x[i] * x[i:][0]
        i += 1
    return s, i


def counter_as_value(x, n):
    s = x * 0
    for i in range(n):
        s = s + i  # the counter is a value here: stays int64
    return s


INT64_EDGES = np.array([2**62, 2**62, 2**62, -(2**63), -1, 2**63 - 1], np.int64)
FLOAT_EDGES = np.array([1e308, 1e308, -np.inf, 0.5, np.nan, -0.0], np.float64)
FLOAT32_EDGES = np.array([1e38, 3e38, 1 / 3, 16777217, -0.0, 1e-45], np.float32)


@pytest.mark.parametrize("items", [
    INT64_EDGES, FLOAT_EDGES, FLOAT32_EDGES, np.arange(1000),
    np.array([True, False, True]), np.array([-0.0, -0.0]), np.array([np.inf, -np.inf]),
    np.array([1, 2], np.uint8) * 200, np.array([2**31 - 1, 1], np.int32),
])
def test_element_loop_matches_eager(items):
    result, expected, source = _staged(sum_items, items)
    assert ELEMENT_LOOP.search(source)  # the element loop was used
    _same(result, expected)


@pytest.mark.parametrize("items", [np.arange(10), INT64_EDGES, np.zeros(0, np.int64),
                                   np.array([3, 5, -7, -8, 2**63 - 2], np.int64)])
def test_element_loop_with_continue_and_counter(items):
    result, expected, source = _staged(count_and_sum_even, items)
    assert ELEMENT_LOOP.search(source)
    for r, e in zip(result, expected):
        _same(r, e)


def test_empty_array_runs_no_iteration():
    items = np.zeros((0,), np.float32)
    staged = ag.function(lambda items: count_and_sum_even(items))
    s, n = staged(items)
    assert s == 0 and n == 0 and type(n) is int  # a Python int, as in Python


@pytest.mark.parametrize("start", [27, 97, 871, 1, 2**40 + 1])
def test_python_counter_in_collatz(start):
    n = np.int64(start)
    result, expected, source = _staged(collatz, n)
    assert "v1, v2 = int(a0), 0" in source  # the loop runs on Python ints
    assert type(result) is int and result == expected  # a Python int, as in Python


def wrapping_accumulator(x, n):
    i = 0
    while i < n:
        x = x * 3 + 1  # int64 overflow wraps, as eager numpy does
        i += 1
    return x, i


@pytest.mark.parametrize("x", [np.int64(2**62), np.int64(-(2**63)), np.int64(7)])
def test_counter_next_to_wrapping_int64(x):
    result, expected, source = _staged(wrapping_accumulator, x, np.int64(70))
    assert "_int64(" in source
    _same(result[0], expected[0])
    assert type(result[1]) is int and result[1] == expected[1] == 70  # as in Python


def test_python_counter_as_index_gives_python_int_results():
    x = np.array([1.5, -0.0, np.nan, 2.0], np.float64)
    result, expected, source = _staged(indexed_sum, x, np.int64(4))
    assert "= 0," in source or ", 0\n" in source  # counter started as a Python int
    assert "= int(a1)" in source  # the bound is compared as a Python int
    _same(result[0], expected[0])
    assert type(result[1]) is int and result[1] == expected[1]  # as in Python


def next_count_as_value(x, n):
    s = x * 0
    i = 0
    while i < n:
        i = i + 1
        s = s + i  # `i + 1` is the step and also a value: stays int64
    return s


def test_next_count_used_as_a_value_is_not_specialised():
    x = np.float64(0.5)
    result, expected, source = _staged(next_count_as_value, x, np.int64(5))
    assert "_int64(" not in source
    _same(result, expected)


@pytest.mark.parametrize("n", [0, -5, 3, 1000, -(2**63)])
def test_range_loop_with_int64_bound(n):
    def count(n):
        total = np.int8(0)
        for _ in range(n):
            total += np.int8(1)  # wraps at 128, as eager numpy does
        return total
    result, expected, source = _staged(count, np.int64(n))
    assert "int(a0)" in source
    _same(result, expected)


def test_counter_used_as_a_value_is_not_specialised():
    x = np.float64(0.5)
    result, expected, source = _staged(counter_as_value, x, np.int64(5))
    assert "_int64(" not in source  # int64 counter kept: `s + i` promotes as numpy does
    _same(result, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8])
def test_in_place_chain_matches_eager(dtype):
    def chain(x, w):
        y = x @ w
        y = y + x
        y = y * y - x
        return np.maximum(y, y // 3) if np.dtype(dtype).kind in "iu" else np.tanh(y) / (y + 2)
    x = (np.arange(16).reshape(4, 4) - 7).astype(dtype)
    w = np.eye(4, dtype=dtype) * 3
    with np.errstate(all="ignore"):
        result, expected, source = _staged(chain, x, w)
    assert re.search(r"(v\d+) = k_\w+\(.*, (out=)?\1\)", source)  # wrote into a temporary
    _same(result, expected)
    np.testing.assert_array_equal(x, (np.arange(16).reshape(4, 4) - 7).astype(dtype))


def test_in_place_target_after_another_dying_input():
    w = np.eye(3) * 2

    def f(x):
        total = x.sum(axis=1, keepdims=True)  # dies here too, but is not fresh
        return total + np.tanh(x @ w)

    x = np.arange(6.0).reshape(2, 3)
    result, expected, source = _staged(f, x)
    assert re.search(r"(v\d+) = k_\w+\(.*, (out=)?\1\)", source)
    _same(result, expected)


def test_in_place_never_writes_inputs_or_constants():
    const = np.ones(3)

    def f(x):
        y = x + const
        return y, x * 2, const * 1

    x = np.arange(3.0)
    staged = ag.function(f)
    for _ in range(3):
        y, _, c = staged(x)
    np.testing.assert_array_equal(x, np.arange(3.0))
    np.testing.assert_array_equal(const, np.ones(3))
    np.testing.assert_array_equal(y, np.arange(3.0) + 1)
    c[0] = 99  # a returned array is the caller's
    np.testing.assert_array_equal(staged(x)[2], np.ones(3))


# --- scalar loops on Python ints and floats (graph/scalar_loops.py) ------------------


def loop_mul_sub(x, y, n):
    i = 0
    while i < n:
        x = x * y - 1
        i += 1
    return x


def loop_div_mod(x, y, n):
    i = 0
    while i < n:
        x = x // y + x % y
        i += 1
    return x


def loop_neg_add(x, y, n):
    i = 0
    while i < n:
        x = -x + y
        i += 1
    return x


def loop_branch(x, y, n):
    i = 0
    while i < n:
        if x < y:
            x = x + y
        else:
            x = x - y * 2
        i += 1
    return x


INT_PAIRS = [(2**62, 3), (-(2**63), -1), (7, 0), (-7, 2), (2**63 - 1, 2**63 - 1),
             (-5, -(2**63)), (0, 0)]
FLOAT_PAIRS = [(1e308, 10.0), (np.inf, -np.inf), (-np.nan, np.nan), (np.nan, -np.nan),
               (-0.0, -0.0), (0.0, -1.0), (1 / 3, 3.0), (5e-324, 0.5), (-np.inf, 0.0)]


def _run_both(fn, *args):
    """Results and warning messages of the staged and the eager run."""
    staged = ag.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        staged(*args)  # trace and compile
    with warnings.catch_warnings(record=True) as staged_warnings:
        warnings.simplefilter("always")
        result = staged(*args)
    with warnings.catch_warnings(record=True) as eager_warnings:
        warnings.simplefilter("always")
        expected = fn(*args)
    source = staged.get_concrete_function(*args).source
    return (result, sorted(str(w.message) for w in staged_warnings),
            expected, sorted(str(w.message) for w in eager_warnings), source)


@pytest.mark.parametrize("fn", [loop_mul_sub, loop_div_mod, loop_neg_add, loop_branch])
@pytest.mark.parametrize("x, y", INT_PAIRS)
def test_int64_scalar_loop_is_exact(fn, x, y):
    result, got, expected, wanted, source = _run_both(fn, np.int64(x), np.int64(y),
                                                      np.int64(3))
    assert "int(a0)" in source  # the loop ran on Python ints
    _same(result, expected)
    assert got == wanted  # the same overflow / divide-by-zero warnings


@pytest.mark.parametrize("fn", [loop_mul_sub, loop_neg_add, loop_branch])
@pytest.mark.parametrize("x, y", FLOAT_PAIRS)
def test_float64_scalar_loop_is_exact(fn, x, y):
    result, got, expected, wanted, source = _run_both(fn, np.float64(x), np.float64(y),
                                                      np.int64(3))
    assert "float(a0)" in source
    _same(result, expected)
    assert got == wanted


def test_float_division_and_float32_keep_numpy_values():
    def halve(x, n):
        i = 0
        while i < n:
            x = x / 3.0
            i += 1
        return x
    for x in (np.float64(1.0), np.float32(1.0)):
        result, _, expected, _, source = _run_both(halve, x, np.int64(4))
        assert "float(a0)" not in source  # `/` and float32 are not specialised
        _same(result, expected)


def test_scalar_loop_reads_array_items_exactly():
    def dot_self(x, n):
        s = 0.0
        i = 0
        while i < n:
            s = s + x[i] * x[i]
            i += 1
        return s
    x = np.array([1e200, -0.0, 3.5, np.nan, 1e-320])
    for n in (0, 1, 2, 3, 5):
        result, got, expected, wanted, source = _run_both(dot_self, x, np.int64(n))
        assert ".item(" in source
        _same(result, expected)
        assert got == wanted


def test_transpose_of_a_loop_invariant_is_hoisted():
    def steps(x, w, n):
        for _ in range(n):
            w = w - 0.1 * (x.T @ (x @ w))
        return w
    x = np.arange(6.0).reshape(3, 2) / 7
    for n in (0, 1, 5):
        result, expected, source = _staged(steps, x, np.ones(2), np.int64(n))
        assert source.index("= a0.T") < source.index("while")
        _same(result, expected)


# --- random values: the scalar loop against eager numpy ------------------------------

_STAGED = {fn: ag.function(fn) for fn in (loop_mul_sub, loop_div_mod, loop_neg_add,
                                          loop_branch)}
_INT64 = st.integers(-(2**63), 2**63 - 1)


def _both_quiet(fn, *args):
    with np.errstate(all="ignore"):
        return _STAGED[fn](*args), fn(*args)


@settings(max_examples=300, deadline=None)
@given(x=_INT64, y=st.one_of(_INT64, st.integers(-3, 3)), n=st.integers(0, 4),
       fn=st.sampled_from(list(_STAGED)))
def test_int64_scalar_loop_random_values(x, y, n, fn):
    result, expected = _both_quiet(fn, np.int64(x), np.int64(y), np.int64(n))
    _same(result, expected)


@settings(max_examples=300, deadline=None)
@given(x=st.floats(allow_nan=True, allow_infinity=True),
       y=st.floats(allow_nan=True, allow_infinity=True), n=st.integers(0, 4),
       fn=st.sampled_from([loop_mul_sub, loop_neg_add, loop_branch]))
def test_float64_scalar_loop_random_values(x, y, n, fn):
    result, expected = _both_quiet(fn, np.float64(x), np.float64(y), np.int64(n))
    _same(result, expected)
    assert "float(a0)" in _STAGED[fn].get_concrete_function(
        np.float64(x), np.float64(y), np.int64(n)).source
