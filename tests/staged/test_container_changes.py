"""A Python list, dict or set changed in place (`.extend`, `.update`, `.add`,
an `.append` on an attribute) inside a staged branch or loop body: the body is
traced once, so the change would happen once, while tracing -- a wrong value
(`len(a.hist)` was 1 after a four-iteration loop).  Refused when the container
exists before the staged region, naming its holder; a container made inside
the region is changed exactly as in Python, and one only a global holds (a
log) changes once per trace, like any Python side effect."""

import dataclasses

import numpy as np
import pytest

import autograph as ag
from autograph import errors


class History:
    def __init__(self):
        self.items = []


def appends_to_an_attribute(xs):
    h = History()
    for v in xs:
        h.items.append(v)
    return len(h.items)


def extends_a_local_list(xs):
    out = [0.0]  # (appends to a local list are staged: lists.py)
    for v in xs:
        out.extend([v])
    return len(out)


def updates_a_dict_in_a_branch(x):
    d = {"a": 1.0}
    if x > 0:
        d.update(b=x)
    return len(d)


def adds_to_a_set(xs):
    seen = set()
    for v in xs:
        seen.add(1)
    return len(seen)


LOG = []


def appends_to_a_global(xs):
    for v in xs:
        LOG.append(v)
    return xs


@pytest.mark.parametrize("fn, args, holder", [
    (appends_to_an_attribute, (np.arange(4.0),), "h.items"),
    (extends_a_local_list, (np.arange(4.0),), "out"),
    (updates_a_dict_in_a_branch, (np.float64(1.0),), "d"),
    (adds_to_a_set, (np.arange(3.0),), "seen"),
])
def test_changing_a_container_made_before_a_staged_region_is_refused(fn, args, holder):
    with pytest.raises(errors.StagingError) as info:
        ag.function(fn)(*args)
    message = str(info.value)
    assert f"`{holder}`" in message and "test_container_changes.py" in message
    assert "traced once" in message


def builds_rows_in_the_loop(xs):
    total = 0.0
    for v in xs:
        row = []
        row.extend([v, v * 2])  # a list made in the body: Python's meaning, each time
        d = {}
        d.update(a=v)
        total = total + row[1] + d["a"]
    return total


def test_a_container_made_inside_the_region_is_changed_as_in_python():
    xs = np.arange(4.0)
    assert ag.function(builds_rows_in_the_loop)(xs) == builds_rows_in_the_loop(xs)


def helper_building_a_dict(v):
    d = {}
    d.update(v=v)
    d.setdefault("w", v * 2)
    return d["v"] + d["w"]


def calls_a_helper_in_the_loop(xs):
    total = 0.0
    for v in xs:
        total = total + helper_building_a_dict(v)
    return total


def test_a_helper_changing_its_own_containers_inside_a_staged_loop_runs():
    xs = np.arange(4.0)
    assert ag.function(calls_a_helper_in_the_loop)(xs) == calls_a_helper_in_the_loop(xs)


def changes_outside_regions(xs):
    out = []
    out.extend([1.0, 2.0])  # not inside a staged region: runs once per call in both
    return len(out) + xs.sum()


def test_a_global_log_of_graph_tensors_is_refused():
    """A container only a global holds is state the caller reads: the append
    runs once, while tracing, and would leave the trace's tensor in it
    (graph/guards.py LeakedTensors; docs/ARCHITECTURE.md)."""
    LOG.clear()
    staged = ag.function(appends_to_a_global)
    with pytest.raises(errors.TraceLeakError, match=r"LOG\[0\]"):
        staged(np.arange(3.0))
    assert len(LOG) == 1
    LOG.clear()


def test_changes_outside_staged_regions_are_not_refused():
    xs = np.arange(3.0)
    assert ag.function(changes_outside_regions)(xs) == changes_outside_regions(xs)


# --- a container the staged statement carries whole (the body also rebinds it),
# changed in place: its results come back in a new container, which another
# holder of the old one would not see (Python changes the one container)


@dataclasses.dataclass
class Box:
    a: object


def list_also_held(x, n):
    acc = [0.0, 0.0]
    alias = acc
    for i in range(n):
        if x[i] > 2.5:
            acc = [0.0, 0.0]  # (a reset: the loop carries acc whole)
        for j in range(2):
            acc[j] = acc[j] + x[i] * j
    return alias, acc


def dict_also_held(x):
    d = {"a": x[0]}
    alias = d
    if x[1] < 0:
        for k in ["a"]:
            d[k] = x[2]
    else:
        d = {"a": x[3]}
    return alias["a"], d["a"]


def object_also_held(x, n):
    box = Box(x[0])
    alias = box
    for i in range(n):
        if x[i] > 2.5:
            box = Box(x[0])
        box.a = box.a + x[i]
    return alias.a, box.a


def list_held_by_the_caller(acc, x, n):
    for i in range(n):
        if x[i] > 2.5:
            acc = [0.0, 0.0]
        for j in range(2):
            acc[j] = acc[j] + x[i]
    return acc


def list_held_by_no_one_else(x, n):
    acc = [0.0, 0.0]
    for i in range(n):
        if x[i] > 2.5:
            acc = [0.0, 0.0]
        for j in range(2):
            acc[j] = acc[j] + x[i] * j
    return acc


X5 = np.array([0.5, -1.5, 2.0, 3.0, -0.25])


@pytest.mark.parametrize("fn, args, holder", [
    (list_also_held, (X5, np.int64(4)), "alias"),
    (dict_also_held, (X5,), "alias"),
    (object_also_held, (X5, np.int64(4)), "alias"),
    (list_held_by_the_caller, ([0.0, 0.0], X5, np.int64(4)), "the caller's acc"),
])
def test_a_carried_container_changed_in_place_and_held_elsewhere_is_refused(fn, args, holder):
    # (the holder kept the old values: `alias` was [0.0, 0.0], the caller's list unchanged)
    with pytest.raises(errors.StagingError, match=rf"is also held by `{holder}`"):
        ag.function(fn)(*args)


def test_a_carried_container_no_one_else_holds_changes_as_in_python():
    expected = list_held_by_no_one_else(X5, np.int64(4))
    assert ag.function(list_held_by_no_one_else)(X5, np.int64(4)) == expected


def list_in_a_dict_also_held(x, n):
    inner = [0.0]
    d = {"l": inner}
    for i in range(n):
        if x[i] > 2.5:
            d = {"l": [0.0]}
        d["l"][0] = d["l"][0] + x[i]
    return inner, d


def one_row_twice(x, n):
    row = [0.0, 0.0]
    m = [row, row]
    for i in range(n):
        m = m
        m[0][0] = m[0][0] + x[i]
    return m


def _bump(items, v):
    items[0] = items[0] + v


def changed_by_a_helper(x, n):
    acc = [0.0]
    alias = acc
    for i in range(n):
        _bump(acc, x[i])
        acc = acc
    return alias, acc


@pytest.mark.parametrize("fn, holder", [
    (list_in_a_dict_also_held, r"`d\['l'\]` .* also held by `inner`"),
    (one_row_twice, r"`m\[1\]` .* also held by `m\[0\]`"),
    (changed_by_a_helper, "also held by `alias`"),
])
def test_a_carried_containers_inner_or_helper_changed_container_held_elsewhere_is_refused(
        fn, holder):
    # (Python changes the one list under both places; the staged loop came
    # back with new lists: `inner`, `m[1]` and `alias` kept the old values)
    with pytest.raises(errors.StagingError, match=holder):
        ag.function(fn)(X5, np.int64(4))


def next_of_a_local_iterator(x, n):
    weights = iter([1.0, 2.0, 3.0])
    s = 0.0
    for i in range(n):
        s = s + next(weights) * x[i]
    return s


def next_of_a_local_generator(x, n):
    def counting():
        k = 0
        while True:
            k += 1
            yield k
    ticks = counting()
    s = 0.0
    for i in range(n):
        if x[i] > 0:
            s = s + next(ticks) * x[i]
    return s


@pytest.mark.parametrize("fn, name", [(next_of_a_local_iterator, "weights"),
                                      (next_of_a_local_generator, "ticks")])
def test_an_iterator_advanced_in_a_staged_body_is_refused(fn, name):
    # (next() ran once, while tracing: every iteration took the first item, 1.0 vs 3.5)
    with pytest.raises(errors.StagingError, match=rf"the iterator `{name}` .* is changed inside"):
        ag.function(fn)(X5, np.int64(3))


WEIGHTS = iter([1.0, 2.0, 3.0, 4.0])


def next_of_a_global_iterator(x, n):
    s = 0.0
    for i in range(n):
        s = s + next(WEIGHTS) * x[i]
    return s


def test_a_global_iterator_advanced_in_a_staged_body_is_refused():
    with pytest.raises(errors.StagingError, match=r"the iterator `WEIGHTS` .* is changed inside"):
        ag.function(next_of_a_global_iterator)(X5, np.int64(3))
