"""Under the JAX backend: printed `%` and `str.format` of traced values format
them when the program runs, as Python formats the eager values; a math
function of a traced value is refused by name (it asked the tracer for its
float())."""

import contextlib
import io
import math
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402


def logged(x):
    print("v=%.2f n=%d %s|%-6s|" % (x[0], 3, x[1], x[0]))
    print("{} {:.1f}".format(x[0], x[1]))
    return x[0]


def test_printed_percent_and_format_as_python():
    x = np.array([1.5, 2.25])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        logged(x)
        expected, out = out.getvalue(), io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.jit(ag.to_graph(logged))(x)
        jax.effects_barrier()
    assert out.getvalue() == expected


def square_root(x):
    return math.sqrt(x[0])


def test_math_of_a_traced_value_is_refused_by_name():
    with pytest.raises(errors.NotStageableError, match=re.escape(
            f"math.sqrt() of staged value 'x[0]' at {__file__}:")) as caught:
        jax.jit(ag.to_graph(square_root))(np.array([4.0]))
    assert "Write jnp.sqrt(...)" in str(caught.value)  # (numpy's refuses a tracer)


def as_float(x):
    return float(x[0]) * 2


def test_float_of_a_traced_value_is_a_python_number():
    """It raised JAX's ConcretizationTypeError from inside our builtin; it is
    now a staged Python number (Backend.python_number), as in the graph engine."""
    x = np.array([4.0])
    assert float(jax.jit(ag.to_graph(as_float))(x)) == as_float(x) == 8.0



def doubled_as_floats(x):
    out = []
    counters = []
    for i, v in enumerate(x):
        out.append(float(v) * 2)
        counters.append(i)
    print("vals", out, counters)
    return x[0]


def test_a_printed_staged_list_shows_its_python_numbers_as_python_does():
    """(Items that are Python numbers in Python -- float(v), a range counter --
    printed as 'Array(2., dtype=float64, weak_type=True)'.)"""
    x = np.array([1.0, 2.5])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        doubled_as_floats(x)
        expected, out = out.getvalue(), io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.jit(ag.to_graph(doubled_as_floats))(x)
        jax.effects_barrier()
    assert out.getvalue() == expected == "vals [2.0, 5.0] [0, 1]\n"
