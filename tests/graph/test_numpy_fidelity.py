"""Staged numpy functions give what numpy gives on the same inputs: value,
dtype, shape and Python type, checked against the unconverted function (the
sweep over SUPPORTED that found these: a rule that guessed a shape or dtype
the kernel does not give, and constants merged across shapes)."""

import re
import sys

import numpy as np
import pytest

import autograph as ag

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from grad_check import check, smooth  # noqa: E402


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def _meta(r):
    """What the trace believes of r (read while tracing): dtype and rank."""
    return r.dtype, r.ndim


@pytest.mark.parametrize("triangle", [np.triu, np.tril])
@pytest.mark.parametrize("k", [0, 1, -1])
def test_triangle_of_a_vector_is_a_matrix(triangle, k):
    # numpy's triu/tril of a 1-d m is (n, n); the trace said (n,)
    def f(v):
        m = triangle(v, k)
        return m.sum(axis=-1), m.shape, _meta(m)

    v = np.array([1.0, 2.0, 3.0])
    _same(ag.function(f)(v), f(v))


def test_triangle_of_a_vector_gradient():
    check(lambda v: smooth(np.triu(v, 1) * 2.0 + np.tril(v)), [np.array([0.3, -1.2, 2.0])])


@pytest.mark.parametrize("spelling", [np.round, np.around, lambda a: a.round()])
def test_round_of_bools_is_float16(spelling):
    # numpy rounds a bool array to float16; the trace said bool
    def f(mask):
        r = spelling(mask)
        return r / 3, _meta(r)

    mask = np.array([True, False, True])
    _same(ag.function(f)(mask), f(mask))


def test_allclose_is_a_python_bool():
    def f(a, b):
        close = np.allclose(a, b)
        return close, type(close) is bool, a.astype(np.float16) * close

    a = np.array([1.0, 2.0])
    for b in (a, a + 1):
        _same(ag.function(f)(a, b), f(a, b))


def test_zero_d_and_one_element_constants_stay_apart():
    # equal bytes, other shapes: the optimizer merged np.float64(1) into np.ones(1)
    def f(x):
        return x + np.ones(1), x + np.float64(1)

    x = np.array(2.0)
    _same(ag.function(f)(x), f(x))


def test_hstack_with_a_python_number():
    def f(x):
        return np.hstack((x, 1)), np.vstack([x, 2.5])

    x = np.array(2.0)
    _same(ag.function(f)(x), f(x))


# numpy's `a ** b` of an array and a Python number runs np.square, np.sqrt or
# np.reciprocal for b = 2, 0.5, -1, which np.power(a, b) does not: a bool
# array squared is int8 (np.power: int64), complex roots differ in their bits

_COMPLEX = np.array([1 + 2j, -3.5 + 0.25j, 0.1 - 7j, 2.0 + 0j])


@pytest.mark.filterwarnings("ignore:invalid value encountered in power")  # (numpy's, both ways)
@pytest.mark.parametrize("x", [np.array([True, False]), _COMPLEX, np.array([0.5, 2.0, 9.0])])
@pytest.mark.parametrize("b", [2, 0.5, -1, 3, 2.0])
def test_power_operator_and_np_power(x, b):
    def operator_form(x):
        r = x ** b
        return r, _meta(r)

    def function_form(x):
        r = np.power(x, b)
        return r, _meta(r)

    def reflected(x):
        r = b ** x
        return r, _meta(r)

    for f in (operator_form, function_form, reflected):
        staged = ag.function(f)
        try:
            want = f(x)
        except ValueError as e:  # (bool ** -1: numpy's own error, at trace time here)
            with pytest.raises(ValueError, match=re.escape(str(e))):
                staged(x)
            continue
        for _ in range(2):  # (the first call is interpreted, the second compiled)
            _same(staged(x), want)


def test_power_operator_gradient():
    check(lambda x: smooth(x ** 2 + x ** 0.5 * 3.0 + np.power(x, -1)), [np.array([0.3, 1.2, 2.0])])


def test_outer_of_a_two_output_ufunc_gives_both():
    # np.divmod.outer was traced as the quotients alone: [1] was their second row
    def f(x, y):
        both = np.divmod.outer(x, y)
        quotients, remainders = both
        return both[1] * 10 + remainders, quotients

    x, y = np.array([7, -3]), np.array([2, 4])
    _same(ag.function(f)(x, y), f(x, y))


# order= was dropped by x.reshape and np.ravel (row-major values where numpy
# gives column-major ones); x.ravel/x.flatten/x.astype refused numpy's
# arguments with a TypeError naming Tensor; np.take's mode= was dropped

_ORDERED = [
    lambda x: x.reshape((4, 3), order="F"), lambda x: x.reshape(2, -1, order="F"),
    lambda x: np.reshape(x, (6, -1), order="F"), lambda x: np.ravel(x, order="F"),
    lambda x: x.ravel("F"), lambda x: x.flatten("F"), lambda x: x.flatten(order="C"),
    lambda x: x.astype(np.float32, casting="same_kind"), lambda x: x.astype(np.int8, "C"),
]


@pytest.mark.parametrize("f", _ORDERED)
def test_order_and_casting_arguments(f):
    x = np.arange(12.0).reshape(3, 4) * 1.5
    _same(ag.function(f)(x), f(x))


def test_order_gradient():
    check(lambda x: smooth(x.reshape((4, 3), order="F") * np.arange(12.0).reshape(4, 3)),
          [np.arange(12.0).reshape(3, 4) / 7])


@pytest.mark.parametrize("f, message", [
    (lambda x: x.astype(np.int8, casting="safe"),
     "astype: TypeError: Cannot cast array data from dtype('float64') to dtype('int8') "
     "according to the rule 'safe'"),
    (lambda x: x.reshape(), "TypeError: reshape() takes exactly 1 argument (0 given)"),
    (lambda x: x.reshape(6, order="K"), "ValueError: order 'K' is not permitted for reshaping"),
    (lambda x: np.ravel(x, order="X"),
     "ValueError: order must be one of 'C', 'F', 'A', or 'K' (got 'X')"),
])
def test_numpy_errors(f, message):
    x = np.ones((2, 3))
    kind = TypeError if "TypeError" in message else ValueError
    with pytest.raises(kind):
        f(x)
    with pytest.raises(kind, match=re.escape(message)):
        ag.function(f)(x)


@pytest.mark.parametrize("f, what", [
    (lambda x: np.ravel(x, order="A"), "np.ravel(..., order='A')"),
    (lambda x: x.reshape(6, order="A"), "ndarray.reshape(..., order='A')"),
])
def test_arguments_the_graph_cannot_follow_are_refused(f, what):
    x = np.ones((2, 3))
    f(x)  # (numpy's answer, which the graph would not give)
    with pytest.raises(ag.errors.UnsupportedNumpyFunctionError,
                       match=re.escape(f"{what} is not supported on graph tensors")):
        ag.function(f)(x)


# numpy refuses these; the trace gave a value (moveaxis dropped the extra
# destination axes, squeeze took a list, linspace a float num) or failed at
# run time outside the catalog (np.pad with a negative width)

@pytest.mark.parametrize("f, kind, message", [
    (lambda x: np.moveaxis(x, 0, [1, 2]), ValueError,
     "`source` and `destination` arguments must have the same number of elements"),
    (lambda x: np.moveaxis(x, [0, 1], [2]), ValueError,
     "`source` and `destination` arguments must have the same number of elements"),
    (lambda x: np.squeeze(x, [1]), TypeError, "'list' object cannot be interpreted as an integer"),
    (lambda x: x.squeeze([1]), TypeError, "'list' object cannot be interpreted as an integer"),
    (lambda x: np.linspace(x[0, 0, 0], 1, 3.0), TypeError,
     "'float' object cannot be interpreted as an integer"),
    (lambda x: np.pad(x, -1), ValueError, "index can't contain negative values"),
])
def test_numpy_refusals_kept(f, kind, message):
    x = np.arange(6.0).reshape(2, 1, 3)
    with pytest.raises(kind, match=re.escape(message)):
        f(x)
    with pytest.raises(kind, match=re.escape(message)):
        ag.function(f)(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_linspace_to_a_staged_python_float_keeps_the_array_dtype(dtype):
    # float(x[0]) is a Python float: weak in numpy, so the float32 start
    # decides (the trace made float64)
    def f(x):
        stop = float(x[0]) * 4
        r = np.linspace(x[1], stop, 5)
        return r, _meta(r)

    x = np.array([1.5, 0.25, 3.0], dtype)
    _same(ag.function(f)(x), f(x))


def test_zero_and_negative_zero_literals_stay_apart():
    # the optimizer's CSE keyed Python floats by value: x + -0.0 became x + 0.0
    def f(x):
        return (x + 0.0, x + (-0.0), np.full_like(x, 0.0), np.full_like(x, -0.0),
                x * complex(0.0, 0.0), x * complex(0.0, -0.0))

    x = np.array([-0.0, 1.0], np.float32)
    staged = ag.function(f)
    for _ in range(2):
        got, want = staged(x), f(x)
        _same(got, want)
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want]  # (the zeros' signs)


@pytest.mark.parametrize("f", [
    lambda s: np.sum(s, axis=0), lambda s: s.max(axis=-1), lambda s: np.argmax(s, axis=0),
    lambda s: s.any(axis=0), lambda s: np.count_nonzero(s, axis=-1), lambda s: np.ptp(s, axis=0),
    lambda s: np.cumsum(s, axis=0), lambda s: s.cumprod(axis=-1),
])
def test_reductions_of_a_zero_d_array_along_axis_0(f):
    # numpy's ufunc reductions take axis 0 or -1 of a 0-d array; the trace refused
    s = np.array(3.5)
    _same(ag.function(f)(s), f(s))


@pytest.mark.parametrize("f", [lambda s: np.mean(s, axis=0), lambda s: s.std(axis=-1),
                               lambda s: np.sum(s, axis=1), lambda s: np.sum(s, axis=(0,))])
def test_zero_d_axes_numpy_refuses(f):
    s = np.array(3.5)
    with pytest.raises(np.exceptions.AxisError) as plain:
        f(s)
    with pytest.raises(IndexError, match="out of bounds"):  # (GraphAxisError)
        ag.function(f)(s)
    assert "out of bounds" in str(plain.value)


def test_repeat_by_a_numpy_int():
    # refused ("repeats must be a Python int") where numpy takes any integer
    def f(x):
        return np.repeat(x, np.int64(2)), x.repeat(np.int32(3), axis=0)

    x = np.array([1.5, -2.0])
    _same(ag.function(f)(x), f(x))


@pytest.mark.parametrize("f", [
    lambda x: np.take(x, 2.7), lambda x: np.take(x, [0.9, -1.5]), lambda x: x.take(np.float32(3.9)),
    lambda x: np.take(x, [True, 2.5]), lambda x: np.take(x, [[1, -1]]),
])
def test_take_with_python_number_indices(f):
    # numpy converts them as intp (np.take(x, 2.7) is x[2]); the trace made a
    # float64 constant that failed at run time outside the catalog
    x = np.arange(5.0) * 1.5
    _same(ag.function(f)(x), f(x))


def test_take_with_float_array_indices_is_numpy_error():
    def f(x):
        return np.take(x, x[:2])

    x = np.arange(5.0)
    message = "Cannot cast array data from dtype('float64') to dtype('int64') according to " \
              "the rule 'same_kind'"
    with pytest.raises(TypeError, match=re.escape(message)):
        f(x)
    with pytest.raises(ag.errors.GraphTypeError, match=re.escape(message)):
        ag.function(f)(x)


@pytest.mark.parametrize("f", [lambda x: np.take(x, [0, 20], mode="clip"),
                               lambda x: x.take([0, 20, -7], mode="wrap")])
def test_take_modes_are_numpys(f):
    # (staged as indices moved into range: numpy_api._take)
    x = np.arange(6.0).reshape(2, 3)
    want, got = f(x), ag.function(f)(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)
