"""Python operators on a staged list (issue 8): `lst + [items]` is Python's new
list; any other operator or ufunc would act on the list's run-time
representation, not on its items, so it is refused at trace time."""

import re

import numpy as np
import pytest

import autograph as ag


def built(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    return items


def concatenated_with_python_items(n, x):
    items = built(n)
    more = items + [float(x), float(x) * 2.0]  # (Python floats, as the items are)
    return len(items), len(more), ag.stack(more)


def grown_by_concatenation_in_a_staged_loop(n):
    items = []
    for i in range(n):
        items = items + [i * 3.0]
    items.append(1.0)
    return ag.stack(items)


@pytest.mark.parametrize("n", [0, 2])
def test_a_staged_list_plus_a_python_list_is_pythons(n):
    for fn, args in ((concatenated_with_python_items, (np.int64(n), np.float64(5.0))),
                     (grown_by_concatenation_in_a_staged_loop, (np.int64(n),))):
        expected, staged = fn(*args), ag.function(fn)(*args)
        if not isinstance(expected, tuple):
            expected, staged = (expected,), (staged,)
        for e, s in zip(expected, staged, strict=True):
            np.testing.assert_array_equal(s, e)


@pytest.mark.parametrize("expression, shown", [
    (lambda items: items + items, "lst + other_staged_list"),
    (lambda items: [1.0] + items, "list + lst"),
    (lambda items: items * 2, "*"),
    (lambda items: items == items, "=="),
    (lambda items: items + (1.0,), "lst + tuple"),
    (lambda items: items - 1.0, "-"),
    (lambda items: np.add(items, 1.0), "np.add"),
])
def test_other_operators_on_a_staged_list_are_refused(expression, shown):
    def uses(n):
        return expression(built(n))

    with pytest.raises(ag.AutoGraphError, match=rf"`{re.escape(shown)}` on a staged list .* at "
                                                r".*test_staged_list_operators\.py:\d+: it "
                                                r"would act on the list's run-time"):
        ag.function(uses)(np.int64(2))


def test_augmented_concatenation_is_refused():
    def extended(n):
        items = built(n)
        items += [1.0]
        return items

    with pytest.raises(ag.AutoGraphError, match=r"`\+=` on a staged list"):
        ag.function(extended)(np.int64(2))


def empty_or_not(n):
    items = built(n)
    return not items, (not items) + 1


@pytest.mark.parametrize("n", [0, 3])
def test_not_of_a_staged_list_is_pythons_emptiness_test(n):
    # (refused as "`np.logical_not` on a staged list", where `if items:` worked)
    expected, staged = empty_or_not(n), ag.function(empty_or_not)(np.int64(n))
    assert staged == expected and type(staged[0]) is bool and type(staged[1]) is int


def summed_backwards(n):
    s = 0.0
    for v in reversed(built(n)):
        s = s * 2 + v
    return s


def test_reversed_staged_list_is_refused_with_a_fix_that_works():
    # (the tensor's message said to loop over `items[::-1]`, which a staged list refuses)
    with pytest.raises(ag.AutoGraphError, match=re.escape(
            "for i in range(len(items) - 1, -1, -1):` with `v = items[i]`")):
        ag.function(summed_backwards)(np.int64(3))
