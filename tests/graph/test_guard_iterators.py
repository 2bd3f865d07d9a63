"""An iterator held outside a traced function's arguments (a global, a
closure cell, an attribute of `self`) or passed as one, that the trace
advances (`next(IT)`, a Python `for` over it), gave its values once, while
tracing: the graph holds them as constants and later calls would neither
advance it nor see its next values.  The trace is refused
(ConsumedIteratorError, guards.py `advanced_iterator`); an iterator only
read, not advanced, is fine and watched by identity."""

import collections
import itertools

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.ones(2)


def _counting():
    i = 0
    while True:
        yield float(i)
        i += 1


MAKERS = {
    "list iterator": lambda: iter([1.0, 2.0, 3.0]),
    "generator": lambda: (float(v) for v in range(3)),
    "started generator": lambda: _started(_counting()),
    "itertools.count": lambda: itertools.count(1.0),
    "map": lambda: map(float, [1, 2, 3]),
    "zip": lambda: zip([1.0, 2.0], [3.0, 4.0]),
    "enumerate": lambda: enumerate([1.0, 2.0]),
    "range iterator": lambda: iter(range(3)),
}


def _started(generator):
    next(generator)  # (stands at its `yield` already: a next call changes its locals only)
    return generator


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_next_on_a_closed_over_iterator_is_refused(kind):
    iterator = MAKERS[kind]()

    @ag.function
    def f(x):
        value = next(iterator)
        return x * (value[-1] if isinstance(value, tuple) else value)

    with pytest.raises(errors.ConsumedIteratorError,
                       match="advanced the iterator in closure variable 'iterator'"):
        f(X)


STREAM = iter([1.0, 2.0])


def test_python_for_over_a_global_iterator_is_refused_with_the_fix():
    @ag.function
    def f(x):
        for v in STREAM:
            x = x + v
        return x

    with pytest.raises(errors.ConsumedIteratorError) as caught:
        f(X)
    message = str(caught.value)
    assert "global 'STREAM'" in message and "test_guard_iterators.py:" in message
    assert "pass it in as an argument" in message


def test_an_iterator_argument_advanced_is_refused_by_its_name():
    @ag.function
    def f(x, it):
        return x * next(it)

    with pytest.raises(errors.ConsumedIteratorError, match="argument 'it'"):
        f(X, iter([1.0, 2.0]))


class Reader:
    def __init__(self):
        self.rows = iter([np.ones(2), np.full(2, 2.0)])

    @ag.function
    def step(self, x):
        return x + next(self.rows)


def test_an_iterator_in_an_attribute_of_self_is_refused():
    with pytest.raises(errors.ConsumedIteratorError, match="attribute 'rows'"):
        Reader().step(X)


def test_an_iterator_read_but_not_advanced_is_watched_by_identity():
    iterator = iter([1.0])

    @ag.function
    def f(x):
        return x * 2.0 if iterator is not None else x

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    np.testing.assert_allclose(f(X), [2.0, 2.0])
    iterator = None  # (rebinding the cell traces again)
    np.testing.assert_allclose(f(X), [1.0, 1.0])


D = {"a": 1.0, "b": 2.0}
# Iterators whose `__reduce__` makes a new object on every call (a range
# iterator's range, a dict's or set's list of what is left): not advanced,
# they must not look advanced.
UNTOUCHED = {
    "range iterator": lambda: iter(range(3)),
    "generator over a range": lambda: (float(i) for i in range(3)),
    "dict iterator": lambda: iter(D),
    "dict items iterator": lambda: iter(D.items()),
    "set iterator": lambda: iter({1.0, 2.0}),
    "zip of a range and a dict": lambda: zip(range(2), D),
    "map over a range": lambda: map(float, range(3)),
    "reversed range": lambda: reversed(range(3)),
}


@pytest.mark.parametrize("kind", sorted(UNTOUCHED))
def test_an_iterator_argument_not_advanced_is_not_refused(kind):
    @ag.function
    def f(x, it):
        return x * 2.0

    iterator = UNTOUCHED[kind]()
    np.testing.assert_allclose(f(X, iterator), [2.0, 2.0])
    assert next(iterator) is not None  # (still at its start: not taken by the trace)


@pytest.mark.parametrize("kind", sorted(UNTOUCHED))
def test_an_iterator_argument_over_a_range_or_dict_advanced_is_refused(kind):
    @ag.function
    def f(x, it):
        next(it)
        return x * 2.0

    with pytest.raises(errors.ConsumedIteratorError, match="argument 'it'"):
        f(X, UNTOUCHED[kind]())


def _delegating(make):
    # (its frame stands still, no local of it changes: the iterator it
    # delegates to, on its stack only, moves)
    yield from make()


@pytest.mark.parametrize("make", [lambda: [1.0, 2.0, 3.0], _counting], ids=["list", "generator"])
def test_next_on_a_generator_standing_in_a_yield_from_is_refused(make):
    iterator = _delegating(make)
    next(iterator)  # (inside its `yield from` already)

    @ag.function
    def f(x):
        return x * next(iterator)

    with pytest.raises(errors.ConsumedIteratorError, match="closure variable 'iterator'"):
        f(X)


def _draining(queue):
    while queue:
        yield queue.popleft()  # (same `yield`, same locals after a step: the deque shorter)


def test_next_on_a_started_generator_draining_a_container_it_holds_is_refused():
    iterator = _draining(collections.deque([0.0, 1.0, 2.0, 3.0]))
    next(iterator)

    @ag.function
    def f(x):
        return x * next(iterator)

    with pytest.raises(errors.ConsumedIteratorError, match="closure variable 'iterator'"):
        f(X)
