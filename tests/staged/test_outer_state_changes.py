"""A staged branch or loop body is traced once: a change it makes to Python
state from before it, other than to the state the converted code carries,
would happen once, while tracing -- a counter bumped by a helper counts one
iteration, a branch the graph never takes still changes it -- and the traced
code would compute with that.  Such a change is refused (StagingError naming
the variable or item, and the statement's line); a list or set only the
caller or a global holds (a log) keeps the documented once-per-trace meaning."""

import collections
import functools
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([0.5, -1.5, 2.0, 3.0])
N = np.int64(3)
TOTAL = 0
STATS = {"calls": 0}
LOG = []


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1

    @functools.cached_property
    def scale(self):
        return 2.0


def bumped_by_nonlocal(x, n):
    count = 0

    def bump():
        nonlocal count
        count += 1
    bumpers = [bump]  # (a helper only called by name is staged: test_closure_patterns.py)
    for _ in range(n):
        bumpers[0]()
    return count


def _bump_total():
    global TOTAL
    TOTAL += 1


def bumped_global(x, n):
    global TOTAL
    TOTAL = 0
    for _ in range(n):
        _bump_total()
    return TOTAL


def bumped_attribute(x, n):
    c = Counter()
    for _ in range(n):
        c.bump()
    return c.n


def bumped_global_item(x, n):
    STATS["calls"] = 0
    for _ in range(n):
        STATS["calls"] += 1
    return STATS["calls"]


def bumped_local_item(x, n):
    stats = {"calls": 0}

    def hit():
        stats["calls"] += 1
    for _ in range(n):
        hit()
    return stats["calls"]


def flagged_in_branch(x, n):
    flag = False

    def mark():
        nonlocal flag
        flag = True
    markers = [mark]
    if x[0] > 1:
        markers[0]()
    return flag


def bumped_in_branch(x, n):
    c = Counter()
    if x[0] > 1:
        c.bump()
    return c.n


def set_in_local_list_by_helper(x, n):
    seen = [0]

    def note(v):
        seen[0] = seen[0] + v  # (an item assignment: `seen.append` has its own check)
    for i in range(n):
        note(1)
    return seen[0]


def bumped_in_a_nested_loop(x, n):
    total = x[0]
    for i in range(n):
        count = 0  # (a cell of the outer loop's generated body: named by its function)

        def bump():
            nonlocal count
            count += 1
        bumpers = [bump]
        for j in range(n):
            bumpers[0]()
        total = total + count
    return total


@pytest.mark.parametrize("fn, what, statement, line", [
    (bumped_by_nonlocal, "variable 'count' (a closure variable of bumped_by_nonlocal",
     "`for` loop", "for _ in range(n):"),
    (bumped_global, "global 'TOTAL'", "`for` loop", "for _ in range(n):"),
    (bumped_attribute, "`c.n`", "`for` loop", "for _ in range(n):"),
    (bumped_global_item, "`STATS['calls']`", "`for` loop", "for _ in range(n):"),
    (bumped_local_item, "`stats['calls']`", "`for` loop", "for _ in range(n):"),
    (flagged_in_branch, "variable 'flag'", "`if`", "if x[0] > 1:"),
    (bumped_in_branch, "`c.n`", "`if`", "if x[0] > 1:"),
    (set_in_local_list_by_helper, "`seen[0]`", "`for` loop", "for i in range(n):"),
    (bumped_in_a_nested_loop, "variable 'count' (a closure variable of bumped_in_a_nested_loop",
     "`for` loop", "for j in range(n):"),
])
def test_a_change_the_statement_does_not_carry_is_refused(fn, what, statement, line):
    fn(X, 3)  # (Python runs it)
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(X, N)
    message = str(raised.value)
    assert message.startswith(what), message
    with open(__file__) as source:
        number = next(i for i, text in enumerate(source, 1)
                      if text.strip() == line and i > fn.__code__.co_firstlineno)
    assert f"is changed inside the staged {statement} at {__file__}:{number} " in message
    assert re.search(r"Carry the value through the .* instead", message)


def counted_as_loop_state(x, n):
    c = Counter()
    total = x[0]
    cells = x[1]

    def read():
        return cells * 2
    for i in range(n):
        c.n += 1  # (an attribute the loop carries)
        cells = cells + x[i]  # (a cell the loop carries)
        total = total + read()
    return c.n, total


def made_inside(x, n):
    for _ in range(n):
        box = Counter()  # (made in the body: its change is the body's own)
        box.bump()
        scratch = []
        scratch.append(box.n)
    return x * Counter().scale  # (a cached_property's first read: no change)


def logged(x, n):
    for _ in range(n):
        LOG.append("traced")  # (a global log: once per trace, documented)
    return x


@pytest.mark.parametrize("fn", [counted_as_loop_state, made_inside])
def test_state_the_statement_carries_or_made_inside_it_is_staged(fn):
    want = fn(X, 3)
    got = ag.function(fn)(X, N)
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(g, w)


def test_a_global_log_still_records_once_per_trace():
    LOG.clear()
    staged = ag.function(logged)
    staged(X, N)
    staged(X, N)
    assert LOG == ["traced"]


def test_the_jax_backend_refuses_the_same_change():
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    with pytest.raises(errors.StagingError, match=r"^`c\.n` is changed inside the staged"):
        jax.jit(ag.to_graph(bumped_in_branch))(X, 3)


# --- what a staged loop body may change (found by review) -----------------------------


class Accumulator:
    def __init__(self):
        self.total = 0.0

    def add_all(self, x, n):
        for i in range(n):
            self.total = self.total + x[i]  # (carried as `self.total`)
        return self.total


def carried_through_a_method(x, n):
    acc = Accumulator()  # (the walk reaches it as `acc`: the same object)
    return acc.add_all(x, n)


class LazyDense:
    def __init__(self):
        self.w = None

    def __call__(self, h):
        if self.w is None:  # (built on the first call, in the loop)
            self.w = np.full(h.shape, 0.5)
        return h * self.w


def built_in_the_loop(x, n):
    layer = LazyDense()
    h = x
    for _ in range(n):
        h = layer(h)
    return h


class Memo:
    def __init__(self):
        self.cache = {}

    def scale(self, key):
        if key not in self.cache:
            self.cache[key] = np.float64(2.0)
        return self.cache[key]


def memo_filled_in_the_loop(x, n):
    memo = Memo()
    total = x[0]
    for i in range(n):
        total = total * memo.scale("a")
    return total


def test_an_attribute_the_loop_carries_reached_by_another_name_is_no_refused_change():
    np.testing.assert_array_equal(ag.function(carried_through_a_method)(X, N),
                                  carried_through_a_method(X, 3))


class Phased:
    def __init__(self):
        self.phase = None

    def step(self, h):
        if self.phase is None:  # (the first call differs from the later ones)
            self.phase = "warm"
            return h * 1.0
        return h * 3.0


def first_call_differs(x, n):
    phased = Phased()
    h = x
    for _ in range(n):
        h = phased.step(h)
    return h


@pytest.mark.parametrize("fn, what", [
    (built_in_the_loop, "`layer.w`"), (memo_filled_in_the_loop, "`memo.cache['a']`"),
    (first_call_differs, "`phased.phase`")])
def test_a_first_value_made_in_the_loop_is_refused_with_the_fix(fn, what):
    # (the body is traced once: a graph of the first iteration's path would
    # run for every iteration, which is wrong where that path differs)
    fn(X, 3)
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(X, N)
    message = str(raised.value)
    assert message.startswith(what + " is changed inside the staged `for` loop")
    assert "call it once before the loop" in message


def counted_in_a_defaultdict(x, n):
    stats = collections.defaultdict(int)

    def hit():
        stats["n"] += 1  # (a missing key reads 0: its first value is a change)
    for _ in range(n):
        hit()
    return stats["n"]


def counted_from_a_default(x, n):
    stats = {}

    def hit():
        stats["n"] = stats.get("n", 0) + 1  # (a number: a counter, not a value made once)
    for _ in range(n):
        hit()
    return stats["n"]


@pytest.mark.parametrize("fn", [counted_in_a_defaultdict, counted_from_a_default])
def test_a_counter_started_from_a_default_is_refused(fn):
    with pytest.raises(errors.StagingError, match=r"^`stats\['n'\]` is changed inside the "):
        ag.function(fn)(X, N)


class Registry:
    made = 0


def _register():
    Registry.made += 1


def counted_on_the_class(x, n):
    for _ in range(n):
        _register()
    return Registry.made


class Node:
    total = 0

    def visit(self):
        type(self).total += 1


def counted_through_an_instance(x, n):
    node = Node()
    for _ in range(n):
        node.visit()
    return Node.total


@pytest.mark.parametrize("fn, what", [(counted_on_the_class, "`Registry.made`"),
                                      (counted_through_an_instance, "`Node.total`")])
def test_a_class_attribute_the_body_changes_is_refused(fn, what):
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(X, N)
    assert str(raised.value).startswith(what + " is changed inside the staged `for` loop")
