"""A `collections.deque` argument that the traced function changes in place is
refused like a list, dict or set argument (runtime/aliases.py,
ArgumentChangeError): the trace runs on a copy and later calls run only the
graph, so the caller's deque would change once (or never) where Python
changes it on every call."""

import collections

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.ones(2)


@pytest.mark.parametrize("change", [
    lambda d, x: d.append(1.0),
    lambda d, x: d.appendleft(1.0),
    lambda d, x: d.extend([1.0]),
    lambda d, x: d.rotate(1),
    lambda d, x: d.popleft(),
    lambda d, x: d.clear(),
])
def test_changing_a_deque_argument_is_refused(change):
    def f(x, d):
        change(d, x)
        return x * len(d)

    d = collections.deque([1.0, 2.0])
    with pytest.raises(errors.ArgumentChangeError, match="`d`, a Python container"):
        ag.function(f)(X, d)
    assert d == collections.deque([1.0, 2.0])  # (the caller's is left alone)


def test_append_written_in_the_function_is_refused_with_its_line():
    @ag.function
    def f(x, d):
        d.append(x)
        return x * len(d)

    d = collections.deque([np.ones(2)])
    line = f.python_function.__code__.co_firstlineno + 2  # (`d.append(x)`)
    with pytest.raises(errors.ArgumentChangeError,
                       match=rf"by `\.append\(\.\.\.\)` at .*test_guard_deque_arguments.py:{line}\."):
        f(X, d)
    assert len(d) == 1


def test_item_assignment_in_a_nested_deque_is_refused():
    @ag.function
    def f(x, args):
        args["window"][0] = 5.0
        return x

    args = {"window": collections.deque([1.0])}
    with pytest.raises(errors.ArgumentChangeError, match=r"args\['window'\]"):
        f(X, args)
    assert args["window"][0] == 1.0


def test_reading_a_deque_argument_is_fine_and_keyed_by_its_items():
    @ag.function
    def f(x, d):
        return x * len(d) + d[-1]

    np.testing.assert_allclose(f(X, collections.deque([1.0, 2.0])), [4.0, 4.0])
    np.testing.assert_allclose(f(X, collections.deque([1.0, 2.0, 5.0])), [8.0, 8.0])


@pytest.mark.parametrize("change", [
    lambda d: d.append(1.0),
    lambda d: d.appendleft(1.0),
    lambda d: d.pop(),
    lambda d: d.extend([1.0]),
    lambda d: d.rotate(1),
])
def test_a_deque_changed_in_a_staged_branch_it_predates_is_refused(change):
    # (a deque is never staged as a list is: the change would run once, while tracing)
    @ag.function
    def f(x):
        d = collections.deque([0.0])
        if x.sum() > 0:
            change(d)
        return x * len(d)

    with pytest.raises(errors.StagingError, match="Python deque held by `d`"):
        f(np.array([1.0, -1.0, 2.0]))


def test_item_assignment_on_an_appended_deque_in_a_staged_branch_is_refused():
    # (`d[0] = v` on a local the function appends to is `list_setitem`; the
    # old engine set it while tracing both branches: -5 where Python gives -0)
    @ag.function
    def f(x):
        d = collections.deque()
        d.append(0.0)
        if x.sum() > 0:
            d[0] = 5.0
        return x * d[0]

    with pytest.raises(errors.StagingError, match="Python deque held by `d`"):
        f(np.array([-1.0, -2.0]))


def test_append_on_a_deque_in_a_staged_loop_is_refused():
    @ag.function
    def f(x):
        d = collections.deque()
        for i in range(x.shape[0]):
            if x[i] > 0:
                d.append(1.0)
        return x * len(d)

    with pytest.raises(errors.StagingError, match=r"`\.append\(\.\.\.\)` at .* deque"):
        f(np.array([1.0, -1.0, 2.0]))


def test_a_deque_made_in_the_staged_branch_changes_as_in_python():
    @ag.function
    def f(x):
        if x.sum() > 0:
            d = collections.deque([x])
            d.append(x * 2.0)
            y = d.pop() + d.pop()
        else:
            y = x
        return y

    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [3.0, 6.0])
    np.testing.assert_allclose(f(np.array([-1.0, -2.0])), [-1.0, -2.0])
