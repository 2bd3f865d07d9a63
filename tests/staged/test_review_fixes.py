"""Regressions for bugs a review found in the in-place protection of staged
regions (runtime/staging.py `region`, control_flow.array_holders).

- B1: an array changed in place in a staged `if` or loop while a VIEW of it
  is held by another variable (`v = w[:2]; w += x`) gave the view's old
  numbers; it is refused, naming the view's variable.
- B2: nested regions protecting a view and its base, and user objects whose
  `__getattr__` raises, left arrays read-only, the region stack pushed, or
  crashed a valid program.
- B3: a container of more arrays than the walk looks at item by item.

Each program runs as plain Python and under `ag.function`, and (where jax
is installed) under `jax.jit(ag.to_graph(...))`.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import staging

FILE = r"\S*test_review_fixes\.py"


def _jax():
    return pytest.importorskip("jax")


def _refused_naming(run, holder):
    with pytest.raises(ag.errors.InPlaceChangeError) as info:
        run()
    message = str(info.value)
    assert f"`{holder}`" in message, message
    assert re.search(FILE, message), message


# --- B1: a view of the changed array, held by another variable ---------------------------

def view_if(x):
    w = np.zeros(3)
    v = w[:2]
    if x > 0:
        w += x
    return v * 1.0


def view_while(x, n):
    w = np.zeros(3)
    v = w[:2]
    i = 0
    while i < n:
        w += x
        i += 1
    return v * 1.0


def fresh_while(x, n):
    w = np.zeros(3)  # nobody else holds it or a view of it: runs as Python does
    i = 0
    while i < n:
        w += x
        i += 1
    return w * 1.0


def test_view_held_elsewhere_python_meaning():
    np.testing.assert_array_equal(view_if(np.float64(1.0)), [1.0, 1.0])
    np.testing.assert_array_equal(view_while(np.float64(1.0), np.int64(2)), [2.0, 2.0])


@pytest.mark.parametrize("convert", ["graph", "jax"])
def test_view_held_elsewhere_is_refused(convert):
    if convert == "graph":
        staged = ag.function
    else:
        jax = _jax()

        def staged(fn):
            return jax.jit(ag.to_graph(fn))
    _refused_naming(lambda: staged(view_if)(np.float64(1.0)), "v")
    _refused_naming(lambda: staged(view_while)(np.float64(1.0), np.int64(2)), "v")


def test_unshared_array_still_changes_in_place():
    np.testing.assert_array_equal(
        ag.function(fresh_while)(np.float64(1.0), np.int64(2)), [2.0, 2.0, 2.0])
