"""Staged values in the Python positions users write (issue 8, item 7).

Each test runs the function as plain Python, converted (`ag.to_graph`) and
under `ag.function`, and compares; or checks the clear error where a
position cannot be staged.
"""

import collections
import dataclasses

import numpy as np
import pytest

import autograph as ag


@dataclasses.dataclass
class Pair:
    a: object
    b: object


Point = collections.namedtuple("Point", "a b")


def _three_ways(fn, *args):
    """fn(*args) plain, converted and staged: the three results."""
    return fn(*args), ag.to_graph(fn)(*args), ag.function(fn)(*args)


def _assert_same(expected, actual):
    if dataclasses.is_dataclass(expected) or isinstance(expected, tuple):
        assert type(actual) is type(expected), f"{actual!r}, expected {expected!r}"
        fields = (dataclasses.astuple(expected) if dataclasses.is_dataclass(expected)
                  else expected)
        got = dataclasses.astuple(actual) if dataclasses.is_dataclass(actual) else actual
        for e, a in zip(fields, got, strict=True):
            _assert_same(e, a)
        return
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), actual
        for e, a in zip(expected, actual):
            _assert_same(e, a)
        return
    assert not hasattr(actual, "graph"), f"a graph tensor came back: {actual!r}"
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


def _check(fn, *args):
    expected, converted, staged = _three_ways(fn, *args)
    _assert_same(expected, converted)
    _assert_same(expected, staged)
    return staged


# -- containers of arrays as outputs and loop state ---------------------------

def returns_dataclass(x):
    return Pair(x + 1, x * 2)


def returns_nested_dataclass(x):
    return {"p": Pair(x, [x, Point(x, 2 * x)])}, Pair(1, "label")


def dataclass_loop_state(x):
    s = Pair(x, x)
    i = 0
    while i < x:
        s = Pair(s.a + 1, s.b * 2)
        i += 1
    return s


def namedtuple_loop_state(x):
    s = Point(x, x)
    for _ in range(np.int64(3) if x > 100 else 3):  # Python range: unrolled
        s = Point(s.a + 1, s.b * 2)
    i = 0
    while i < x:
        s = Point(s.a - 1, s.b + 1)
        i += 1
    return s


@pytest.mark.parametrize("fn", [returns_dataclass, dataclass_loop_state,
                                namedtuple_loop_state])
def test_dataclass_and_namedtuple_outputs_hold_arrays(fn):
    staged = _check(fn, np.float64(3.0))
    assert type(staged) in (Pair, Point)
    assert all(isinstance(v, (np.ndarray, np.generic)) for v in
               (staged.a, staged.b))


def test_nested_containers_come_back_with_arrays():
    staged = _check(returns_nested_dataclass, np.float64(3.0))
    assert staged[1] == Pair(1, "label")  # Python leaves returned as they are
    assert isinstance(staged[0]["p"].b[1].b, np.generic)


def test_a_dataclass_output_is_built_fresh_on_every_call():
    f = ag.function(returns_dataclass)
    first, second = f(np.float64(1.0)), f(np.float64(5.0))
    assert (first.a, second.a) == (2.0, 6.0) and first is not second


# -- loops whose only state lives in ag.Variables -------------------------------

def test_while_loop_whose_only_state_is_a_variable():
    counter = ag.Variable(np.int64(0))

    @ag.function
    def count_to(n):
        while counter < n:
            counter.assign(counter + 1)
        return counter + 0

    assert count_to(np.int64(3)) == 3
    assert count_to(np.int64(5)) == 5
    assert count_to(np.int64(2)) == 5  # the loop runs zero times


def test_for_loop_whose_only_state_is_a_variable():
    total = ag.Variable(np.float64(0.0))

    @ag.function
    def add_up(xs):
        for x in xs:
            total.assign(total + x)
        return total + 0

    assert add_up(np.arange(4.0)) == 6.0
    assert add_up(np.arange(3.0)) == 9.0


# -- builtins passed as values ----------------------------------------------------

def sum_over(make_range, n):
    total = 0
    for i in make_range(n):
        total += i
    return total


def enumerate_twice(wrap, xs):
    total = 0.0
    for i, x in wrap(xs):
        total += i * x
    return total


@pytest.mark.parametrize("n", [0, 1, 4])
def test_range_passed_as_an_argument_and_called_on_a_staged_bound(n):
    _check(sum_over, range, np.int64(n))


def test_enumerate_passed_as_an_argument_over_a_staged_array():
    _check(enumerate_twice, enumerate, np.arange(4.0))
