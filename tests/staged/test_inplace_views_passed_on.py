"""A numpy view that outlives the statement that took it, then its base
changed in place.  The engine looked for views of the changed array only
among the ops of the array's own graph, so a view taken inside a staged
`if` or loop body (of the value the body captured), a view of a temporary
view (`y[:3][1:]`) and a view a staged list holds were missed: the staged
`y += 1` rebound `y` alone and the view kept the old values, where Python's
view shows the change.  Now each is refused, naming the view and the line."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(4.0)
N = np.int64(3)


def view_from_a_branch(x, n):
    y = x * 2
    if x.sum() > 0:
        v = y[:2]
    else:
        v = y[2:]
    y += 1  # line 6
    return v


def view_taken_and_base_changed_in_a_branch(x, n):
    y = x * 2
    if x.sum() > 0:
        v = y[:2]
        y += 1  # line 4
        r = v * 1
    else:
        r = y[2:] * 1
    return r


def view_from_a_loop(x, n):
    y = x * 2
    v = y[:2] * 0
    for _ in range(n):
        v = y[:2]
    y += 1  # line 5
    return v


def view_of_a_temporary_view(x, n):
    y = x * 2
    w = y[:3][1:]
    y += 1  # line 3
    return w


def view_in_a_staged_list(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        hist.append(y[:2])
        y += 1  # line 5
    return hist


@pytest.mark.parametrize("fn, view, offset", [
    (view_from_a_branch, "y[...]", 6),
    (view_taken_and_base_changed_in_a_branch, "v", 4),
    (view_from_a_loop, "y[...]", 5),
    (view_of_a_temporary_view, "w", 3),
    (view_in_a_staged_list, "y[...]", 5),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_view_passed_on_is_seen_when_its_base_changes(fn, view, offset):
    message = errors.in_place_view_message(
        "y", view, "y += ...", f"{__file__}:{fn.__code__.co_firstlineno + offset}",
        name_is_view=False)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(fn)(X, N)


def view_used_up_in_a_branch(x, n):
    y = x * 2
    if x.sum() > 0:
        s = y[:2].sum()
    else:
        s = y[2:].sum()
    y += 1
    return y * s


def view_copied_in_a_loop(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        hist.append(y[:2].copy())
        y += 1
    return hist


@pytest.mark.parametrize("fn", [view_used_up_in_a_branch, view_copied_in_a_loop])
def test_views_no_one_holds_run_as_python(fn):
    expected, got = fn(X.copy(), N), ag.function(fn)(X, N)
    for e, g in zip(expected if isinstance(expected, list) else [expected],
                    got if isinstance(got, list) else [got]):
        np.testing.assert_array_equal(g, e)
