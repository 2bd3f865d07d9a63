"""jax.grad through a staged `while` nested in a scan body or a masked scan.

A lax.while_loop carrying a value jax.grad differentiates fails in JAX's
transpose ("Reverse-mode differentiation does not work for lax.while_loop"),
after the user's function has returned.  autograph refused the case at the top
of the function only; a while loop inside a `for` over an array (a scan) or a
branch is traced into that sub-program's jaxpr, where it went unseen and JAX's
own ValueError came out.  Now the jaxpr's data flow finds it and the catalog
error names the user's loop.  A while loop whose result the outputs drop
(`t` overwritten after it) is left to JAX, which differentiates that program.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402


def while_in_scan(xs):
    s = 0.0
    for v in xs:
        t = v
        while t < 5.0:  # line marker
            t = t * 3.0
        s = s + t
    return s


def while_in_bounded_loop(x):
    y = x
    k = 0
    while k < x:  # (staged: x is traced)
        ag.set_loop_options(maximum_iterations=4)
        while y < 10.0:
            y = y * 2.0
        k += 1
    return y


def while_result_dropped(xs, n):
    s = 0.0
    for v in xs:
        t = v
        for i in range(n):
            t = t * 2.0
        t = v * 3.0  # the loop's t is dropped: JAX differentiates this program
        s = s + t
    return s


def test_a_while_in_a_scan_body_is_refused_naming_it():
    line = while_in_scan.__code__.co_firstlineno + 4
    with pytest.raises(errors.StagingError, match=re.escape(errors.reverse_mode_loop_message(
            f"{__file__}:{line}", "while"))):
        jax.grad(ag.to_graph(while_in_scan))(jnp.array([1.0, 2.0]))
    # forward mode and the plain value still work
    assert float(ag.to_graph(while_in_scan)(np.array([1.0, 2.0]))) == 9.0 + 6.0


def test_a_while_in_a_masked_scan_is_differentiated():
    # (the masked scan's step runs the body under lax.cond, which JAX's reverse
    # mode handles with the while inside: not refused)
    assert float(jax.grad(ag.to_graph(while_in_bounded_loop))(1.5)) == 8.0


def test_a_while_whose_result_is_dropped_is_differentiated():
    g = jax.grad(ag.to_graph(while_result_dropped))(jnp.array([1.0, 2.0]), 3)
    np.testing.assert_allclose(np.asarray(g), [3.0, 3.0])
