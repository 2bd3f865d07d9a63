"""print() of a printf-style formatting of staged values (`print('%d: %.3f' %
(i, loss))`) formats it with the run-time values, every time the print runs,
exactly as Python formats the eager values (converters/formatted_strings.py,
runtime builtins.percent_string).  It used to raise `TypeError: %d format: a
real number is required, not Tensor` (and `%s` a refusal of str()).  A field
with no str.format twin (`%d` of a float, `%c`, `%.3d`, `*`) is refused by
the catalog; Python's own errors (too few values, an unknown conversion) are
Python's."""

import contextlib
import io
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def printed(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


def same_print(fn, *args):
    expected = printed(fn, *args)
    assert printed(ag.function(fn), *args) == expected
    return expected


def logged(x, n):
    for i in range(n):
        print("step %d loss %.3f" % (i, x[i]))


def text_and_float_fields(x, n):
    for i in range(n):
        v = x[i]
        print("%s|%r|%a|%5s|%-5s|%.2s|%-7.3r|%.s" % (v, v, v, v, v, v, v, v))
        print("%f|%e|%g|%E|%G|%F|%.2f|%10.3e|%-10.1f|%+08.2f|%#.0f|%.f|% .3g|%%|%s"
              % (v, v, v, v, v, v, v, v, v, v, v, v, v, "lit"))
        if v > 0:
            print("pos %6.2f {x} at %d" % (v, i), "and", v, sep="~", end="|\n")


def integer_fields(x, n):
    for i in range(n):
        v = x[i]
        print("%d|%i|%u|%5d|%-5d|%05d|%+d|% d|%x|%#X|%o|%#o|%-#6x|%+05d|%hd|%ld"
              % (v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v))


def python_numbers(x, n):
    k, f = int(n), float(x[0])
    b = f > 0
    print("%d %s %r %.2f %x|%s %r %5.1f %e|%s %d %r %x %.1f" % (k, k, k, k, k, f, f, f, f,
                                                                b, b, b, b, b))


def single_values(x, n):
    print("v=%s" % x[0])
    print("n=%d" % n)
    print("all: %s" % x)
    print("%s and %d" % (x, n), "%d items" % len(x), "plain %s" % "text")


def test_training_log_as_python_prints_it():
    x = np.array([1.5, 2.25, -3.125])
    assert same_print(logged, x, np.int64(3)) == (
        "step 0 loss 1.500\nstep 1 loss 2.250\nstep 2 loss -3.125\n")


@pytest.mark.parametrize("x", [
    np.array([1.5, -2.25, 1e20, 0.1, np.nan, -np.inf, -0.0]),
    np.array([1.5, -2.25, 1e20, 0.1, np.nan, -np.inf, -0.0], np.float32),
    np.array([-7, 3, 200, 0, 2**40, -1, 5]),
    np.array([250, 3, 0, 1, 2, 255, 7], np.uint8),
    np.array([True, False, True, True, False, False, True])],
    ids=["float64", "float32", "int64", "uint8", "bool"])
def test_text_and_float_fields_as_python(x):
    same_print(text_and_float_fields, x, np.int64(len(x)))


@pytest.mark.parametrize("x", [np.array([-7, 3, 200, 0, 2**40, -1]),
                               np.array([-7, 3, 100, 0, -128, 127], np.int8),
                               np.array([250, 3, 0, 1, 2, 255], np.uint8)],
                         ids=["int64", "int8", "uint8"])
def test_integer_fields_as_python(x):
    same_print(integer_fields, x, np.int64(len(x)))


@pytest.mark.parametrize("x", [np.array([2.5]), np.array([-0.125])])
def test_python_numbers_as_python(x):
    same_print(python_numbers, x, np.int64(3))


def test_one_value_not_in_a_tuple():
    same_print(single_values, np.array([1.5, 2.0]), np.int64(2))


def float_as_int(x, n):
    print("n=%d and %d" % (n, x[0]))


def char(x, n):
    print("%c" % n)


def digits(x, n):
    print("%.3d" % n)


def star_width(x, n):
    print("%*d" % (5, n))


def bool_hex(x, n):
    print("%x" % (x[0] > 0))


@pytest.mark.parametrize("fn, field, name, reason", [
    (float_as_int, "field '%d'", "x[0]",
     "an integer conversion of a float (the graph does not take its int())"),
    (char, "field '%c'", "n", "the conversion %c"),
    (digits, "field '%.3d'", "n",
     "a precision in an integer conversion (its minimum count of digits)"),
    (star_width, "'%*d'", "n", "a mapping key or a `*` width or precision"),
    (bool_hex, "field '%x'", "x[0] > 0",
     "an integer conversion of a value that is not one integer")],
    ids=["float_as_int", "char", "digits", "star_width", "bool_hex"])
def test_fields_without_a_twin_are_refused(fn, field, name, reason):
    x = np.array([2.5])
    if fn is not bool_hex:  # (Python prints the others; `%x` of a numpy bool raises)
        assert printed(fn, x, np.int64(3))
    with pytest.raises(errors.PercentFormatError, match=re.escape(
            f"the printf-style {field} of staged value '{name}' at {__file__}:")) as caught:
        ag.function(fn)(x, np.int64(3))
    assert f"there is none for {reason}." in str(caught.value)


def too_few(x, n):
    print("%s %s" % (x[0],))  # noqa: F507 - the error is the point


def too_many(x, n):
    print("%s" % (x[0], n))  # noqa: F507 - the error is the point


def unknown(x, n):
    print("%q" % x[0])  # noqa: F509, PLE1300 - the error is the point


@pytest.mark.parametrize("fn", [too_few, too_many, unknown], ids=lambda f: f.__name__)
def test_pythons_own_errors(fn):
    x = np.array([2.5])
    with pytest.raises((TypeError, ValueError)) as plain:
        fn(x, np.int64(3))
    with pytest.raises(type(plain.value), match=f"^{re.escape(str(plain.value))}$"):
        ag.function(fn)(x, np.int64(3))


def formatted_not_printed(x, n):
    text = "%s" % (x[0],)
    return text


def formatted_number(x, n):
    return "%d items, %.2f" % (n, x[0])


@pytest.mark.parametrize("fn, name", [(formatted_not_printed, "x[0]"), (formatted_number, "n")],
                         ids=lambda v: v.__name__ if callable(v) else None)
def test_formatting_that_is_not_printed_is_refused_by_name(fn, name):
    """`%` of a literal outside print: a text made now, which a staged value
    has no text for.  It raised "TypeError: %d format: a real number is
    required, not Tensor", or named the value 'the value in `0`'."""
    with pytest.raises(errors.TensorTextError, match=re.escape(
            f"%-formatting of graph tensor '{name}' at {__file__}:")):
        ag.function(fn)(np.array([2.5]), np.int64(3))


STEP = ag.Variable(np.int64(3))


def _variable_in_a_percent_text(x):
    STEP.assign_add(1)
    text = "step %d" % STEP
    return x + len(text)


def test_a_variable_in_a_percent_text_is_refused_by_name():
    # (Python's `%` answered the Variable's refusal of int() with a bare
    # TypeError 'a real number is required, not Variable', without a line)
    line = _variable_in_a_percent_text.__code__.co_firstlineno + 2
    with pytest.raises(errors.TensorTextError, match=re.escape(
            f"%-formatting of graph tensor 'STEP' at {__file__}:{line}")):
        ag.function(_variable_in_a_percent_text)(np.ones(2))
