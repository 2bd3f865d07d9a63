"""Operators and builtins of staged Python numbers (ints and floats that
Python carries as Python numbers: `int(n)`, a loop's counter), as Python
computes them, or refused naming what the user wrote.

`round(k, -1)` of a staged Python int was refused with a message about numpy
scalars and arrays: it is Python's rounding to a multiple of ten (ties to the
even multiple), refused only where the result leaves int64's range.

`pow(k, e, m)` of a staged Python int raised "TypeError: _operator.<locals>.
apply() takes 2 positional arguments but 3 were given" (and of a numpy value
"forward() takes 2 ..."): it is refused by name.  An operand no variable
holds was named by the whole expression, inside itself: "`the value in
`float(x[0]) ** 0.5` ** 0.5` ... from `the value in `float(x[0]) ** 0.5``";
now the expression and the operand are the source as written."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([-7.5, 3.0])


def modular_power(x, n):
    k = int(n)
    return pow(k, 2, 5)


def modular_power_of_numpy(x, n):
    return pow(n, 2, 5)


@pytest.mark.parametrize("fn", [modular_power, modular_power_of_numpy],
                         ids=lambda f: f.__name__)
def test_three_argument_pow_is_refused_by_name(fn):
    if fn is modular_power:
        assert fn(X, np.int64(7)) == 4
    else:
        with pytest.raises(TypeError):  # (numpy's: unsupported operand types)
            fn(X, np.int64(7))
    with pytest.raises(errors.ModularPowError, match=re.escape(
            f"pow(..., ..., mod) of staged value '{'k' if fn is modular_power else 'n'}' at "
            f"{__file__}:")) as caught:
        ag.function(fn)(X, np.int64(7))
    assert isinstance(caught.value, TypeError)
    assert "write `base ** exp % mod`" in str(caught.value)


def complex_root(x, n):
    return float(x[0]) ** 0.5


def big_power(x, n):
    return int(n) ** 30 * 2


def negated_root(x, n):
    k = int(n)
    return (-k) ** 0.5


@pytest.mark.parametrize("fn, error, expression, operand", [
    (complex_root, errors.PythonFloatResultError, "float(x[0]) ** 0.5", "float(x[0])"),
    (big_power, errors.PythonIntOverflowError, "int(n) ** 30", "int(n)"),
    (negated_root, errors.PythonFloatResultError, "(-k) ** 0.5", "-k")],
    ids=lambda v: v.__name__ if callable(v) else None)
def test_an_unnamed_operand_is_named_as_written(fn, error, expression, operand):
    with pytest.raises(error, match=re.escape(
            f"`{expression}` at {__file__}:")) as caught:
        ag.function(fn)(X, np.int64(70))
    assert f"from `{operand}`, a Python " in str(caught.value)
    assert "the value in" not in str(caught.value)


def rounded(x, n):
    k = int(n)
    return round(k, -1), round(k, -2), round(k // 3, -3), round(k, -18), round(k, 0), round(k)


@pytest.mark.parametrize("value", [0, 5, 15, 25, -5, -15, -25, 14, 16, 150, 250, -250, 1234567,
                                   2**62, -2**63 + 5 * 10**17, 4999999999, 500, 1500, -2500])
def test_round_of_a_python_int_is_pythons(value):
    expected = rounded(X, np.int64(value))
    staged = ag.function(rounded)(X, np.int64(value))
    assert staged == expected and [type(v) for v in staged] == [int] * len(expected)


def test_round_of_a_python_int_past_int64_is_refused():
    assert rounded(X, np.int64(2**63 - 1))[0] == 9223372036854775810  # (past int64)
    with pytest.raises(errors.PythonIntOverflowError, match=re.escape(
            f"`round(k, -1)` at {__file__}:")):
        ag.function(rounded)(X, np.int64(2**63 - 1))


def parts(x, n):
    k, v = int(n), float(x[1])
    return k.real, k.imag, k.numerator, k.denominator, v.real, v.imag


def test_parts_of_a_python_number_are_pythons():
    """They raised "AttributeError: 'PythonNumber' object has no attribute
    ...", or refused `.real` as an ndarray attribute."""
    expected = parts(X, np.int64(4))
    staged = ag.function(parts)(X, np.int64(4))
    assert staged == expected and [type(v) for v in staged] == [type(v) for v in expected]


def bit_length(x, n):
    return int(n).bit_length()


def float_is_integer(x, n):
    v = float(x[1])
    return v.is_integer()


def float_has_no_bit_length(x, n):
    return float(n).bit_length()


def numpy_is_integer(x, n):
    return x[1].is_integer()


def numpy_float_bit_count(x, n):
    return x[1].bit_count()


@pytest.mark.parametrize("fn, text", [
    (bit_length, "`int(n).bit_length` at {file}:"
                 "{line}: 'int(n)' is a Python int in Python (a staged Python number"),
    (float_is_integer, "`v.is_integer` at {file}:{line}: 'v' is a Python float in Python"),
    (numpy_is_integer, "`x[1].is_integer` at {file}:{line}: numpy.float64.is_integer is not "
                       "staged for graph tensors ('x[1]' is one")],
    ids=lambda v: v.__name__ if callable(v) else None)
def test_other_number_methods_are_refused_by_name(fn, text):
    fn(X, np.int64(4))  # (Python has them)
    with pytest.raises(errors.UnsupportedArrayAttributeError) as caught:
        ag.function(fn)(X, np.int64(4))
    line = fn.__code__.co_firstlineno + (2 if fn is float_is_integer else 1)
    assert str(caught.value).startswith(text.format(file=__file__, line=line))


@pytest.mark.parametrize("fn", [float_has_no_bit_length, numpy_float_bit_count],
                         ids=lambda f: f.__name__)
def test_a_method_the_type_lacks_is_pythons_attribute_error(fn):
    with pytest.raises(AttributeError) as plain:
        fn(X, np.int64(4))
    with pytest.raises(AttributeError, match=f"^{re.escape(str(plain.value))}$"):
        ag.function(fn)(X, np.int64(4))
