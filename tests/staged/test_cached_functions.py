"""A function behind functools.lru_cache / functools.cache, called by converted
code: its cache for Python values, as Python does; with a staged argument
(which has no value to key the cache with while tracing: a graph tensor is
not hashable) the function itself, converted.  And a loop counter a staged
body leaves in a global list is a trace leak, as any graph tensor there is."""

import functools

import numpy as np
import pytest

import autograph as ag
from autograph import errors


@functools.lru_cache(maxsize=None)
def decay(step):
    if step > 2:  # (a staged `if` when `step` is staged: the function is converted)
        return 0.5 ** (step - 2)
    return 1.0


def train(w, n):
    for i in range(n):
        w = w - decay(i) * 0.1 * w
    return w, decay(3)


def test_a_cached_helper_of_a_staged_value_runs_converted_and_of_a_number_cached():
    decay.cache_clear()
    w = np.array([1.0, 2.0])
    want = train(w, 5)
    hits = decay.cache_info().hits
    got = ag.function(train)(w, np.int64(5))
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] == 0.5
    assert decay.cache_info().currsize == 5  # (no entry keyed by a graph value)
    assert decay.cache_info().hits == hits + 1  # (decay(3), a Python number: the cache)


@functools.cache
def scaled(v):
    return v * 2.0


def test_functools_cache_of_a_staged_value():
    def f(x):
        return scaled(x[0]) + scaled(1.5)

    x = np.array([3.0])
    assert ag.function(f)(x) == f(x) == 9.0


LOG = []


def logs_its_counter(x, n):
    for i in range(n):
        LOG.append(i)
        x = x + 1.0
    return x


def test_a_loop_counter_left_in_a_global_list_is_a_trace_leak():
    # (the list got the tracing placeholder where Python appends 0, 1, 2)
    with pytest.raises(errors.TraceLeakError, match=r"`LOG\[0\]` holds graph tensor 'i'"):
        ag.function(logs_its_counter)(np.ones(2), np.int64(3))
    LOG.clear()
