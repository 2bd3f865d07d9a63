"""The compiled graph writes an elementwise ufunc's result into a dead
temporary (`v0 = k_add(v0, 1.0, v0)`); that is right only if no live value
shares the temporary's buffer.  A view of it (`t[0:2]`, `t.T`, a reshape) and
the output of a branch or loop that captured it (`r = y` in a staged `if`:
the same array) do, and they got the result written over them on every
compiled call (the first call, interpreted, was right).
"""

import numpy as np
import pytest

import autograph as ag


def slice_then_add(x):
    t = x * 2.0
    v = t[0:2]
    u = t + 1.0
    return v, u


def reshape_then_add(x):
    t = x * 2.0
    v = t.reshape((2, 2))
    u = t + 1.0
    return v, u


def transpose_then_add(x):
    t = x * 2.0
    v = t.T
    u = t + 1.0
    return v * 1.0, u


def ravel_and_strided_slice_then_add(x):
    t = x * 2.0
    v = np.ravel(t)
    w = t[::2]
    u = t + 1.0
    return v, w, u


def branch_passes_it_on(x):
    t = x * 2.0
    if x[0] >= 0:
        v = t
    else:
        v = x
    u = t + 1.0
    return v, u


def loop_keeps_it_then_scaled(x, a):
    y = x + 0.0
    r = x * 0.0
    done = False
    for v in x:
        if v < a:
            r = y
            done = True
    z = y * 2.0
    if not done:
        r = z
    return r


def return_from_loop_in_try_then_finally_rebinds(x, a):
    y = x + 0.0
    try:
        for v in x:
            if v < a:
                return y
    finally:
        y = y * 2.0
    return y


X = np.arange(4.0)
PROGRAMS = [
    (slice_then_add, (X,)),
    (reshape_then_add, (X,)),
    (transpose_then_add, (X,)),
    (ravel_and_strided_slice_then_add, (X,)),
    (branch_passes_it_on, (X,)),
    (loop_keeps_it_then_scaled, (np.array([-1.5, 2.0]), np.float64(-1.0))),
    (loop_keeps_it_then_scaled, (np.array([-1.5, 2.0]), np.float64(-5.0))),
    (return_from_loop_in_try_then_finally_rebinds, (np.array([-1.5, 2.0]), np.float64(-1.0))),
]


def _same(expected, actual):
    if isinstance(expected, tuple):
        return isinstance(actual, tuple) and len(actual) == len(expected) and all(
            _same(e, a) for e, a in zip(expected, actual))
    return type(actual) is type(expected) and actual.dtype == expected.dtype \
        and np.array_equal(actual, expected)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda p: getattr(p, "__name__", ""))
def test_a_value_sharing_a_temporary_buffer_keeps_its_value_on_compiled_calls(fn, args):
    expected = fn(*args)
    staged = ag.function(fn)
    for call in range(3):  # the first interpreted (or compiled), the others compiled
        actual = staged(*args)
        assert _same(expected, actual), (call, actual, expected)


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_a_reduction_reading_a_temporary_leaves_it_writable():
    """A reduction returns a new array: `e / e.sum(...)` still writes into
    e's buffer (only readers that may share it stop the write)."""
    from autograph.graph import compiler
    z = np.arange(6.0).reshape(2, 3)
    graph = ag.function(softmax).get_concrete_function(z).graph
    source = compiler.compile_graph(graph)[1]
    divide = next(line for line in source.splitlines() if "divide" in line)
    target, call = divide.split(" = ")
    assert call.rstrip(")").endswith(target.strip()), source
    np.testing.assert_array_equal(ag.function(softmax)(z), softmax(z))
