"""A staged print of Python values prints them as Python's print does.

Inside a staged loop every print is staged; its Python values went to the
backend as they were, and the graph held `[1, 2]` as an array ('[1 2]'
where Python prints '[1, 2]'); under JAX a printed None was taken for the
slot of a staged value (the callback failed with StopIteration).
"""

import contextlib
import io

import numpy as np
import pytest

import autograph as ag

X = np.array([1.5, 2.25, 3.125], np.float32)


def python_values_in_a_staged_loop(x, n):
    k = 0
    for i in range(n):
        k = k + 3
        print(k, x[i], None, "s", [1, 2], (3,), {"a": 1}, 0.1 + 0.2)
    return k


def _printed(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def test_python_values_print_as_python_prints_them():
    expected = _printed(python_values_in_a_staged_loop, X, np.int64(2))
    assert "[1, 2] (3,) {'a': 1} 0.30000000000000004" in expected[1]
    assert _printed(ag.function(python_values_in_a_staged_loop), X, np.int64(2)) == expected


def test_python_values_print_as_python_prints_them_under_jax():
    jax = pytest.importorskip("jax", reason="the jax extra is not installed",
                              exc_type=ImportError)
    jax.config.update("jax_enable_x64", True)
    expected = _printed(python_values_in_a_staged_loop, X, np.int64(2))[1]

    def run():
        jax.jit(ag.to_graph(python_values_in_a_staged_loop))(X, np.int64(2))
        jax.effects_barrier()
    assert _printed(run)[1] == expected


class _Counter:
    n = 0

    def __repr__(self):
        return f"Counter({self.n})"


COUNTER = _Counter()


def prints_an_object(x):
    print("state:", COUNTER, x)
    return x + 1


def test_an_object_prints_its_state_when_the_graph_runs():
    # (its text is not made once, at tracing: print() shows the object as it is then)
    staged = ag.function(prints_an_object)
    try:
        outputs = []
        for n in (0, 5):
            COUNTER.n = n
            outputs.append(_printed(staged, X[:1])[1])
        assert outputs == ["state: Counter(0) [1.5]\n", "state: Counter(5) [1.5]\n"]
    finally:
        COUNTER.n = 0
