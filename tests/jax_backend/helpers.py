"""What the JAX backend's tests share: the jitted conversion, where a test
function's line is as messages name it, and results compared by dtype and value."""

import inspect

import numpy as np

import autograph as ag


def jitted(f):
    import jax  # (the test modules skip themselves when jax is missing)
    return jax.jit(ag.to_graph(f))


def line_of(f, text):
    """'file.py:N' of the first line of `f` holding `text`."""
    lines, first = inspect.getsourcelines(f)
    n = next(i for i, line in enumerate(lines) if text in line)
    return f"{f.__code__.co_filename}:{first + n}"


def first_line(f):
    return f"{f.__code__.co_filename}:{f.__code__.co_firstlineno}"


def same(got, expected):
    assert np.asarray(got).dtype == np.asarray(expected).dtype, (got, expected)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
