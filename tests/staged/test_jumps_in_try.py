"""`return` / `break` / `continue` inside `try`/`finally` and `with`, under a
staged condition (issue 8, item 5).

Python runs the `finally` body and `__exit__` whatever the jump; converted
code lowers the jump into its flag (converters/support/jumps.py), the
`finally` body and `__exit__` still run (while tracing: once, as ordinary
code over staged values), and what follows the jump inside the `try` runs
under the flag.  Each shape runs plain, converted (`ag.to_graph`, on plain
values, with its converted body) and staged (`ag.function`, and under
`jax.jit` where jax is installed), and the results must agree.
"""

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import registry


def _plain_converted_staged(fn, *args):
    expected = fn(*args)
    with registry.staging("test: the converted body"):
        converted = ag.to_graph(fn)(*args)
    staged = ag.function(fn)(*args)
    for actual in (converted, staged):
        assert not hasattr(actual, "graph"), f"a graph tensor came back: {actual!r}"
        np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))
        assert np.asarray(actual).dtype == np.asarray(expected).dtype
    return staged


def _under_jax(fn, *args):
    jax = pytest.importorskip("jax", exc_type=ImportError)
    jax.config.update("jax_enable_x64", True)
    return np.asarray(jax.jit(ag.to_graph(fn))(*args))


class Recorder:
    """A context manager that records its enter/exit calls."""

    def __init__(self):
        self.calls = []

    def __enter__(self):
        self.calls.append("enter")
        return self

    def __exit__(self, *exc):
        self.calls.append("exit" if exc[0] is None else f"exit {exc[0].__name__}")
        return False


# --- return ----------------------------------------------------------------------------

def return_in_try_with_finally(x):
    total = x * 0.0
    try:
        if x > 0:
            return x * 2.0
        fresh = x + 1.0  # first assigned after the jump: dead on the returning path
        total = total + fresh
    finally:
        total = total + 100.0  # runs on both paths, over staged values
    return total + fresh


def return_in_nested_try_and_with(x, rec):
    t = x * 0.0
    with rec:
        try:
            try:
                if x > 1:
                    return t - 1.0
                t = t + x
                if x > 0:
                    return t * 10.0
                after = t + 3.0
            finally:
                t = t + 0.5
        finally:
            t = t + 0.25
    return after + t


def return_in_with(x, rec):
    with rec:
        if x > 0:
            return x
        y = x - 1.0
    return y * 10.0


@pytest.mark.parametrize("x", [3.0, -1.0, 0.0])
def test_return_in_try_under_a_staged_if_runs_finally(x):
    _plain_converted_staged(return_in_try_with_finally, np.float64(x))


@pytest.mark.parametrize("x", [3.0, 0.5, -2.0])
def test_return_in_nested_try_and_with(x):
    plain, traced = Recorder(), Recorder()
    expected = return_in_nested_try_and_with(np.float64(x), plain)
    f = ag.function(return_in_nested_try_and_with)
    np.testing.assert_array_equal(f(np.float64(x), traced), expected)
    # __exit__ ran once, at tracing: the staged return does not skip it
    assert plain.calls == traced.calls == ["enter", "exit"]
    with registry.staging("test: the converted body"):
        converted = Recorder()
        assert ag.to_graph(return_in_nested_try_and_with)(np.float64(x), converted) == expected
    assert converted.calls == ["enter", "exit"]


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_return_in_with_calls_exit(x):
    plain, traced = Recorder(), Recorder()
    expected = return_in_with(np.float64(x), plain)
    np.testing.assert_array_equal(ag.function(return_in_with)(np.float64(x), traced), expected)
    assert plain.calls == traced.calls == ["enter", "exit"]


# --- break / continue -------------------------------------------------------------------

def break_in_try_finally_in_while(n):
    i = n * 0
    finals = n * 0
    while i < n:
        try:
            if i > 3:
                break
            i += 1
        finally:
            finals += 1
    return i * 100 + finals


def continue_in_try_finally_in_for(xs):
    total = 0.0
    finals = 0.0
    for v in xs:
        try:
            if v < 0:
                continue
            total += v
        finally:
            finals += 1.0
    return total * 100.0 + finals


def break_and_continue_in_with_in_for(xs, rec):
    total = 0.0
    for v in xs:
        with rec:
            if v < 0:
                continue
            if v > 10:
                break
            kept = v * 2.0
            total += kept
    return total


@pytest.mark.parametrize("n", [0, 2, 9])
def test_break_in_try_finally_in_a_staged_while(n):
    _plain_converted_staged(break_in_try_finally_in_while, np.int64(n))


@pytest.mark.parametrize("xs", [[1.0, -2.0, 3.0], [], [-1.0, -1.0]])
def test_continue_in_try_finally_in_a_staged_for(xs):
    _plain_converted_staged(continue_in_try_finally_in_for, np.array(xs))


@pytest.mark.parametrize("xs", [[1.0, -2.0, 3.0, 20.0, 4.0], [], [-1.0]])
def test_break_and_continue_in_with_in_a_staged_for(xs):
    expected = break_and_continue_in_with_in_for(np.array(xs), Recorder())
    traced = Recorder()
    staged = ag.function(break_and_continue_in_with_in_for)(np.array(xs), traced)
    np.testing.assert_array_equal(staged, expected)
    assert traced.calls == ["enter", "exit"]  # the body was traced once


# --- under jax.jit ----------------------------------------------------------------------

@pytest.mark.parametrize("x", [3.0, -1.0])
def test_return_in_try_under_jax(x):
    np.testing.assert_array_equal(_under_jax(return_in_try_with_finally, np.float64(x)),
                                  return_in_try_with_finally(np.float64(x)))


@pytest.mark.parametrize("n", [2, 9])
def test_break_in_try_finally_under_jax(n):
    np.testing.assert_array_equal(_under_jax(break_in_try_finally_in_while, np.int64(n)),
                                  break_in_try_finally_in_while(np.int64(n)))


# --- a `return` in `finally` wins ---------------------------------------------------------

def return_in_finally_wins(x):
    try:
        if x > 0:
            return x * 2.0
        y = x + 1.0
    finally:
        if x > 5:
            return x * 100.0  # wins over the pending return
    return y


def return_in_finally_after_break(xs):
    total = 0.0
    for v in xs:
        try:
            if v > 2:
                break
            total += v
        finally:
            if v > 10:
                return total * 1000.0
    return total


def python_raise_discarded_by_finally(x, n):
    try:
        if n > 3:
            raise ValueError("discarded")
        y = x + 1.0
    finally:
        if n > 1:
            return x * 0.0
    return y


@pytest.mark.parametrize("x", [1.0, -1.0, 7.0])
def test_return_in_finally_wins_over_a_staged_return(x):
    _plain_converted_staged(return_in_finally_wins, np.float64(x))
    np.testing.assert_array_equal(_under_jax(return_in_finally_wins, np.float64(x)),
                                  return_in_finally_wins(np.float64(x)))


@pytest.mark.parametrize("xs", [[1.0, 2.0, 3.0], [1.0, 20.0, 3.0], []])
def test_return_in_finally_after_a_staged_break(xs):
    _plain_converted_staged(return_in_finally_after_break, np.array(xs))


@pytest.mark.parametrize("n", [0, 2, 5])
def test_a_python_exception_discarded_by_return_in_finally(n):
    _plain_converted_staged(python_raise_discarded_by_finally, np.float64(2.0), n)


def staged_raise_under_finally_return(x):
    try:
        if x < 0:
            raise ValueError("negative")
    finally:
        return x


def staged_return_in_finally_over_python_raise(x, n):
    try:
        if n > 0:
            raise ValueError("raised while tracing")
    finally:
        if x > 0:
            return x
    return -x


def test_a_staged_raise_in_a_try_whose_finally_returns_is_refused():
    """The graph would raise it after the `finally` body; Python discards it."""
    with pytest.raises(ag.AutoGraphError, match=r"the staged `raise` at .*test_jumps_in_try\.py:"
                       r"\d+ is inside a `try` whose `finally` body leaves with `return`, `break` or "
                       r"`continue`.*Move the jump out of the `finally` body"):
        ag.function(staged_raise_under_finally_return)(np.float64(1.0))
    assert ag.to_graph(staged_raise_under_finally_return)(-1.0) == -1.0  # Python: discarded


def test_a_staged_return_in_finally_over_an_exception_raised_while_tracing_is_refused():
    f = ag.function(staged_return_in_finally_over_python_raise)
    with pytest.raises(ag.AutoGraphError, match=r"the `try` body raised while tracing, and its "
                       r"`finally` body leaves with `return` at .*test_jumps_in_try\.py:\d+ only "
                       r"under a staged condition"):
        f(np.float64(1.0), 1)
    for x in (1.0, -1.0):  # nothing raised: staged as usual
        assert f(np.float64(x), 0) == staged_return_in_finally_over_python_raise(x, 0)


# --- `break` / `continue` in `finally` win too ------------------------------------------

def break_in_finally_cancels_return(xs):
    total = 0.0
    for v in xs:
        try:
            if v > 5:
                return v * 1000.0  # cancelled when the `finally` breaks
            total += v
        finally:
            if v > 2:
                break
    return total


def continue_in_finally_cancels_break(xs):
    total = 0.0
    for v in xs:
        try:
            if v > 5:
                break  # cancelled when the `finally` continues
            total += v
        finally:
            if v < 8:
                continue
        total -= 100.0
    return total


@pytest.mark.parametrize("xs", [[1.0, 7.0, 2.0], [1.0, 3.0, 9.0], [1.0, 2.0], []])
def test_break_in_finally_cancels_a_staged_return(xs):
    _plain_converted_staged(break_in_finally_cancels_return, np.array(xs))


@pytest.mark.parametrize("xs", [[1.0, 7.0, 2.0], [1.0, 9.0, 2.0], [9.0], []])
def test_continue_in_finally_cancels_a_staged_break(xs):
    _plain_converted_staged(continue_in_finally_cancels_break, np.array(xs))
    np.testing.assert_array_equal(_under_jax(continue_in_finally_cancels_break, np.array(xs)),
                                  continue_in_finally_cancels_break(np.array(xs)))


# --- a refusal inside a `try` body is not hidden by its `finally` body ------------------

def refused_inside_try(s, t, a):
    d = {"k": a}
    acc = []
    try:
        if s > t:
            acc.append(d["k"])
            d["k"] = d["k"] + s
        else:
            acc.append(d["k"].astype(np.float32))  # items of two dtypes: refused
            d["k"] = d["k"] + s
    finally:
        d["k"] = d["k"] + -0.75  # runs as the refusal passes, on the value before the `if`
    return d["k"], len(acc)


def test_a_refusal_in_a_try_body_is_not_hidden_by_the_finally_body():
    """The branch that failed leaves no value of its own in `d['k']`, so the
    `finally` body runs on the value from before the `if` and the refusal
    itself reaches the user (before: a GraphError about a tensor outside its
    graph, raised by the `finally` body)."""
    with pytest.raises(ag.AutoGraphError, match=r"^variable 'acc\[0\]' has a different dtype"):
        ag.function(refused_inside_try)(np.float64(0.0), np.float64(1.0), np.float64(0.5))


def assigned_after_a_return_in_finally(x):
    try:
        y = x * 2.0
    finally:
        if x > 0:
            return y
        z = y - 1.0  # dead on the path that returned
    return z


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_a_variable_assigned_after_a_staged_return_in_finally(x):
    _plain_converted_staged(assigned_after_a_return_in_finally, np.float64(x))
