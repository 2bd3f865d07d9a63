"""A user function's own attributes (`loss.scale`, `counted.calls`) are state
like an object's: read by a trace, they are guarded (a new value traces
again, as Python would read it); changed by a trace that reads them, the next
call traces again (Python counts each call); changed inside a staged loop
body, refused.  They used to be baked in: the graph kept the first value."""

import warnings

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(3.0)


def scaled(x):
    return x * scaled.k


def calls_scaled(x):
    return scaled(x) + 1.0


def test_a_function_attribute_read_is_guarded():
    scaled.k = 2.0
    f = ag.function(scaled)
    assert f(X)[1] == 2.0
    scaled.k = 5.0
    assert f(X)[1] == 5.0


def test_a_helpers_attribute_read_is_guarded():
    scaled.k = 2.0
    f = ag.function(calls_scaled)
    assert f(X)[1] == 3.0
    scaled.k = 3.0
    assert f(X)[1] == 4.0


def counted(x):
    counted.calls += 1
    return x * counted.calls


def test_a_counter_on_the_function_counts_every_call():
    counted.calls = 0
    f = ag.function(counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the retracing warning: it changes what it reads)
        got = [f(X)[1] for _ in range(3)]
    assert got == [1.0, 2.0, 3.0]
    assert counted.calls == 3


def bumped(v):
    bumped.n += 1
    return v


def loop(x, n):
    s = x[0]
    for _ in range(n):
        s = s + bumped(x[1])
    return s


def test_a_function_attribute_changed_in_a_staged_loop_body_is_refused():
    bumped.n = 0
    with pytest.raises(errors.StagingError, match=r"`bumped\.n` is changed inside the staged "
                                                  r"`for` loop"):
        ag.function(loop)(X, np.int64(3))


@ag.function
def decorated(x):
    decorated.calls += 1
    return x * decorated.calls * decorated.scale


def test_attributes_set_on_an_ag_function_are_guarded_too():
    decorated.calls, decorated.scale = 0, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [decorated(X)[1] for _ in range(3)] == [1.0, 2.0, 3.0]
        decorated.scale = 10.0
        assert decorated(X)[1] == 40.0
    assert decorated.calls == 4


@ag.function
def privately_scaled(x):
    return x * privately_scaled._scale


def test_an_underscore_attribute_set_on_an_ag_function_is_guarded_too():
    # (the guard skipped every `_name` as the Function's own: the first
    # trace's value was kept, a wrong value)
    privately_scaled._scale = 2.0
    assert privately_scaled(X)[1] == 2.0
    privately_scaled._scale = 5.0
    assert privately_scaled(X)[1] == 5.0


def test_a_functions_own_attributes_are_all_listed():
    # (one not listed would be watched as the user's when the code names it)
    assert set(vars(ag.function(loop))) <= type(decorated).ATTRIBUTES_OF_ITS_OWN


@ag.function
def counted_step(v):
    return v + 1


def calls_counted_step(x, n):
    for _ in range(n):
        counted_step.calls += 1
        x = counted_step(x)
    return x


def test_an_ag_function_attribute_changed_in_a_staged_loop_body_is_refused():
    # (as a plain function's: it counted 1 where Python counts n)
    counted_step.calls = 0
    with pytest.raises(errors.StagingError, match=r"`counted_step\.calls` is changed inside "
                                                  r"the staged `for` loop"):
        ag.function(calls_counted_step)(X, np.int64(3))


def calls_a_fresh_ag_function(x, n):
    for _ in range(n):
        x = fresh_step(x)  # (its first trace, inside the loop, changes its own state)
    return x


@ag.function
def fresh_step(v):
    return v * 2


def test_an_ag_function_traced_first_in_a_staged_loop_body_is_not_refused():
    np.testing.assert_array_equal(ag.function(calls_a_fresh_ag_function)(X, np.int64(3)), X * 8)


def test_attributes_set_on_an_ag_function_held_by_a_closure_are_guarded_too():
    # (only a global ag.function's were: the first trace's value was kept)
    @ag.function
    def helper(v):
        return v * helper.scale

    @ag.function
    def uses_helper(x):
        return helper(x) + helper.scale

    helper.scale = 2.0
    np.testing.assert_array_equal(uses_helper(X), X * 2 + 2)
    helper.scale = 5.0
    np.testing.assert_array_equal(uses_helper(X), X * 5 + 5)
