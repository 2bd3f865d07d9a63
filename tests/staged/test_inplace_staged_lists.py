"""An array a staged list holds, changed in place.  Python's list holds the
array object itself: `hist.append(y); y += 1` in a loop leaves every item the
one array y, changed by every `+=`; `v = hist[0]; v += 1` (or `for v in
hist`, `hist.pop()`) changes the list's item.  The graph's list holds
values, so each item kept the value appended and the items read back
changed alone: silently wrong lists (and stacks of them).  Now such a
change is refused, naming the variable, the line of the change and the
append (or read); numbers (`+=` rebinds them in Python too), copies and
rebindings still run."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(3.0)
N = np.int64(3)


def append_then_change(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        hist.append(y)  # line 4
        y += 1  # line 5
    return hist


def change_then_append(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        y *= 2  # line 4: the next iteration's change reaches the item
        hist.append(y)  # line 5
    return np.stack(hist)


def append_in_a_branch(x, n):
    y = x * 2
    hist = []
    for i in range(n):
        if i % 2 == 0:
            hist.append(y)  # line 5
        y += 1  # line 6
    return hist


def append_after_the_loop(x, n):
    y = x * 2
    hist = []
    for i in range(n):
        hist.append(x * i)
    hist.append(y)  # line 5
    y -= 5  # line 6
    return hist


def test_pythons_items_are_the_changed_array():
    hist = append_then_change(X.copy(), N)
    assert all(item is hist[0] for item in hist)
    np.testing.assert_array_equal(hist[0], X * 2 + N)  # (the graph gave X * 2, X * 2 + 1, ...)


@pytest.mark.parametrize("fn, name, symbol, change, appended", [
    (append_then_change, "y", "+=", 5, 4),
    (change_then_append, "y", "*=", 4, 5),
    (append_in_a_branch, "y", "+=", 6, 5),
    (append_after_the_loop, "y", "-=", 6, 5),
], ids=lambda v: getattr(v, "__name__", ""))
def test_changing_an_appended_array_is_refused(fn, name, symbol, change, appended):
    first = fn.__code__.co_firstlineno
    message = errors.in_place_listed_message(
        name, f"{name} {symbol} ...", f"{__file__}:{first + change}",
        f"{__file__}:{first + appended}", read_back=False)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(fn)(X, N)


def item_read_back(x, n):
    hist = []
    for i in range(n):
        hist.append(x * i)
    v = hist[0]  # line 4
    v += 10  # line 5
    return hist


def items_iterated(x, n):
    hist = []
    for i in range(n):
        hist.append(x * i)
    for v in hist:  # line 4
        v *= 2  # line 5
    return hist


def item_popped(x, n):
    y = x * 2
    hist = []
    for i in range(n):
        hist.append(x * i)
    hist.append(y)
    v = hist.pop()  # line 6
    v += 1  # line 7
    return y


@pytest.mark.parametrize("fn, symbol, change, read", [
    (item_read_back, "+=", 5, 4),
    (items_iterated, "*=", 5, 4),
    (item_popped, "+=", 7, 6),
], ids=lambda v: getattr(v, "__name__", ""))
def test_changing_an_item_read_back_is_refused(fn, symbol, change, read):
    first = fn.__code__.co_firstlineno
    message = errors.in_place_listed_message(
        "v", f"v {symbol} ...", f"{__file__}:{first + change}", f"{__file__}:{first + read}",
        read_back=True)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.function(fn)(X, N)


def copy_appended(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        hist.append(y.copy())
        y += 1
    return hist


def rebound_after_the_append(x, n):
    y = x * 2
    hist = []
    for _ in range(n):
        hist.append(y)
        y = y * 0.5
        y += 1
    return hist, y


def numbers_appended(x, n):
    s = x.sum()
    hist = []
    for _ in range(n):
        hist.append(s)
        s += 1  # a numpy scalar: rebinds s, as in Python
    return hist


def items_summed(x, n):
    hist = []
    for i in range(n):
        hist.append(x * i)
    total = hist[0] * 0
    for v in hist:
        total += v
    return total


def stacked_then_changed(x, n):
    hist = []
    for i in range(n):
        hist.append(x * i)
    s = np.stack(hist)  # a new array
    s += 1
    return s


@pytest.mark.parametrize("fn", [copy_appended, rebound_after_the_append, numbers_appended,
                                items_summed, stacked_then_changed])
def test_copies_rebindings_and_numbers_run_as_python(fn):
    expected, got = fn(X.copy(), N), ag.function(fn)(X, N)
    flat = (lambda v: [np.asarray(a) for a in (v[0] + [v[1]] if isinstance(v, tuple) else
                                               v if isinstance(v, list) else [v])])
    assert len(flat(got)) == len(flat(expected))
    for g, e in zip(flat(got), flat(expected)):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype
