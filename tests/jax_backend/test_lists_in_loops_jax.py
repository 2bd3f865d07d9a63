"""Staged lists in JAX loops (`jax.jit(ag.to_graph(f))`, backends/jax.py).

A scanned loop's body is traced once, and what it appends to a staged list
is the scan's output, joined to the list after the loop: inside the body the
list holds only its items from before the loop.  Reading it there (`out[-1]`,
`len(hist)`, `np.array(hist)`) gave every iteration those items, and popping
an item from before the loop took that one item once: silent wrong values
(`out.append(out[-1] + v)` gave [0, 1, 2, 3] where Python gives [0, 1, 3,
6]).  Both are now refused, naming the list, the line and the loop.  And
`if out:` took the truth of the list's items, not whether it has any.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import jitted, line_of, same  # noqa: E402

X = np.array([1.0, -2.0, 3.0])


def running_totals(x):
    out = [0.0]
    for v in x:
        out.append(out[-1] + v)
    return out


def count_so_far(x):
    hist = []
    t = 0.0
    for v in x:
        hist.append(v)
        t = t + len(hist)
    return t


def mean_so_far(x):
    hist = []
    m = 0.0
    for v in x:
        if len(hist) > 0:
            m = np.mean(np.array(hist))
        hist.append(v)
    return m


def _read(name, fn, text, loop_text):
    return (f"list '{name}' is read at {line_of(fn, text)} (its length, an item or its items) "
            f"inside the staged `for` loop at {line_of(fn, loop_text)}, which appends to it: "
            f"under jax.jit the loop's appends are collected as its output and joined to the "
            f"list after the loop, so inside the body the list holds only its items from "
            f"before the loop, and every iteration would read those, where Python reads the "
            f"items appended so far. Keep what the body needs in a loop variable (the last "
            f"item: `last = last + v; {name}.append(last)`; the count: `n = n + 1`), and read "
            f"the list after the loop.")


@pytest.mark.parametrize("fn, name, text", [
    (running_totals, "out", "out.append(out[-1] + v)"),
    (count_so_far, "hist", "t = t + len(hist)"),
    (mean_so_far, "hist", "if len(hist) > 0:"),
])
def test_reading_a_list_the_loop_appends_to_is_refused(fn, name, text):
    fn(X)  # (plain Python runs it)
    with pytest.raises(errors.StagingError, match=re.escape(
            _read(name, fn, text, "for v in x:"))):
        jitted(fn)(X)


def running_totals_carried(x):
    out = [0.0]
    last = 0.0
    for v in x:
        last = last + v
        out.append(last)
    return out


def reads_a_list_it_does_not_append_to(x):
    base = [10.0, 20.0]
    t = 0.0
    for v in x:
        t = t + base[-1] * v + len(base)
    return t


def appends_and_pops_in_one_iteration(x):
    stack = [0.5]
    t = 0.0
    for v in x:
        stack.append(v * 2)
        t = t + stack.pop() + len(stack)
    return t, len(stack)


@pytest.mark.parametrize("fn", [running_totals_carried, reads_a_list_it_does_not_append_to,
                                appends_and_pops_in_one_iteration])
def test_what_the_body_keeps_right_gives_pythons_result(fn):
    got, expected = jitted(fn)(X), fn(X)
    if isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e)
    elif isinstance(expected, tuple):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e)
    else:
        same(got, expected)


def takes_from_a_stack(x):
    stack = [1.0, 2.0, 3.0, 4.0]
    t = 0.0
    for v in x:
        t = t + stack.pop() * v
    return t, len(stack)


def test_popping_an_item_from_before_the_loop_is_refused():
    takes_from_a_stack(X)
    fn = takes_from_a_stack
    with pytest.raises(errors.StagingError, match=re.escape(
            f"`stack.pop()` at {line_of(fn, 'stack.pop()')}, inside the staged `for` loop at "
            f"{line_of(fn, 'for v in x:')}, takes an item the list held before the loop: under "
            f"jax.jit the body is traced once, so it would take that one item once, where "
            f"Python takes one per iteration.")):
        jitted(fn)(X)


def has_items(x):
    out = []
    for v in x:
        out.append(v * 0)
    if out:
        return 1.0
    return 2.0


def has_no_items(x):
    out = []
    for v in x:
        out.append(v * 0)
    if not out:
        return 1.0
    return 2.0


@pytest.mark.parametrize("fn", [has_items, has_no_items])
def test_a_lists_truth_is_whether_it_has_items(fn):
    for x in (np.array([1.0]), np.array([1.0, 2.0]), np.array([])):
        same(jitted(fn)(x), fn(x))
