"""Closures, nested functions, default arguments and loop-made variables under
`ag.function`: each program runs as plain Python and staged, and the staged
result must be Python's (value and type), or a catalog error."""

import numpy as np
import pytest

import autograph as ag


def _same(expected, got):
    assert type(got) is type(expected), (type(got), type(expected))
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


# --- a helper defined in a staged loop body before what it reads is assigned ------


def helper_before_its_variable(x, n):
    i = 0
    while i < n:
        def g():
            return y * 2
        y = x + i
        x = g()
        i += 1
    return x


def lambda_before_its_variable(x, n):
    i = 0
    while i < n:
        g = lambda: y * 2  # noqa: E731 -- the pattern under test
        y = x + i
        x = g()
        i += 1
    return x


def helpers_calling_helpers(x, n):
    for i in range(n):
        def double():
            return twice() * 2

        def twice():
            return y + y
        y = x + i
        x = double()
    return x


def helper_defined_before_the_loop(x, n):
    def g():
        return y * 2
    i = 0
    while i < n:
        y = x + i
        x = g()
        i += 1
    return x


def helper_in_a_comprehension(x, n):
    i = 0
    while i < n:
        def g(k):
            return y * k
        y = x + i
        x = sum([g(k) for k in range(3)])
        i += 1
    return x


@pytest.mark.parametrize("fn", [helper_before_its_variable, lambda_before_its_variable,
                                helpers_calling_helpers, helper_defined_before_the_loop,
                                helper_in_a_comprehension])
@pytest.mark.parametrize("n", [3, 0])
def test_a_helper_reads_where_it_is_called_not_where_it_is_defined(fn, n):
    # The helper's read of y counted where the `def` stands, before y is
    # assigned: the staged loop refused y ("no value before the loop"), or, with
    # the helper defined before the loop, failed when the loop ran zero times.
    x = np.float64(1.5)
    _same(fn(x, np.int64(n)), ag.function(fn)(x, np.int64(n)))
