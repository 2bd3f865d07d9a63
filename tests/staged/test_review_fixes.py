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


# --- B2: nested regions, views, and user objects that raise -----------------------------

class NS:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def nested_view(x, n):
    b = np.ones(6)
    cfg = NS(a=NS(b=NS(v=b[:3])))
    if x > 0:  # protects `b`; the view lies deeper than the walk looks
        v = cfg.a.b.v
        i = 0
        while i < n:  # protects `v`, whose base `b` the `if` keeps read-only
            x = x + v.sum()
            i += 1
    return x


BASE = np.ones(6)
CFG = NS(a=NS(b=NS(v=BASE[:3])))


def nested_global_view(x, n):
    if x > 0:
        v = CFG.a.b.v
        i = 0
        while i < n:
            x = x + v.sum()
            i += 1
    return x


def _no_region_left():
    assert staging.innermost_region() is None
    assert not getattr(staging._regions, "protected", [])


def test_nested_regions_protecting_a_view_and_its_base():
    args = (np.float64(1.0), np.int64(2))
    assert nested_view(*args) == 7.0
    assert ag.function(nested_view)(*args) == 7.0
    _no_region_left()
    assert ag.function(nested_global_view)(*args) == 7.0
    _no_region_left()
    # the view, protected by the inner loop, is made writeable by the outer `if`
    assert BASE.flags.writeable and CFG.a.b.v.flags.writeable


def test_nested_regions_under_jax():
    jax = _jax()
    args = (np.float64(1.0), np.int64(2))
    assert float(jax.jit(ag.to_graph(nested_view))(*args)) == 7.0
    assert float(jax.jit(ag.to_graph(nested_global_view))(*args)) == 7.0
    _no_region_left()
    assert BASE.flags.writeable and CFG.a.b.v.flags.writeable


class Slotted:
    __slots__ = ("a",)

    def __getattr__(self, key):
        raise KeyError(key)


HELD = np.ones(3)
SLOTTED = Slotted()
SLOTTED.a = 1


def reads_raising_objects(x):
    y = HELD  # noqa: F841 - protected while the `if` is traced
    t = SLOTTED  # noqa: F841
    if x > 0:
        x = x + 1
    return x


def test_user_objects_that_raise_do_not_break_the_walk():
    assert ag.function(reads_raising_objects)(np.float64(1.0)) == 2.0
    _no_region_left()
    assert HELD.flags.writeable


def test_a_failing_protection_walk_leaves_nothing_read_only(monkeypatch):
    def failing(value):  # (after the walk has made `HELD` read-only: it comes first)
        raise RuntimeError("walk failed")
    monkeypatch.setattr(staging, "_users_object", failing)
    with pytest.raises(RuntimeError, match="walk failed"):
        ag.function(reads_raising_objects)(np.float64(1.0))
    _no_region_left()
    assert HELD.flags.writeable


# --- B3: a container of more arrays than the walk looks into ---------------------------

def _last_changed(items):
    def f(x, items=items):
        if x > 0:
            items[-1][0] = 5.0
        return x + items[-1][0]
    return f


@pytest.mark.parametrize("size", [3, 300])
def test_array_past_the_item_cap_is_protected(size):
    items = [np.zeros(2) for _ in range(size)]
    with pytest.raises(ag.errors.InPlaceChangeError):
        ag.function(_last_changed(items))(np.float64(-1.0))
    assert items[-1][0] == 0.0 and all(a.flags.writeable for a in items)
    assert _last_changed(items)(np.float64(-1.0)) == -1.0  # (Python's value)
