"""Python side effects run once per trace (docs/ARCHITECTURE.md §6): every staged loop
body and branch is traced exactly once, also when the trace reveals a
`return`, a break/continue flag or a promoted Python number."""

import re
import threading

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from autograph.backends import graph as graph_backend

LOG = []


def _trace_once(fn, *args):
    """Runs ag.function(fn) twice; returns (result, LOG entries per trace)."""
    LOG.clear()
    staged = ag.function(fn)
    result = staged(*args)
    traced = list(LOG)
    again = staged(*args)  # same signature: the graph runs, no Python
    assert LOG == traced
    np.testing.assert_array_equal(again, result)
    return result, traced


def return_in_loop(x):
    for v in x:
        LOG.append("body")
        print("tracing body")
        if v > 2:
            return v
    return x[0]


def return_tuple_in_while(x):
    i = 0
    while i < x:
        LOG.append("body")
        if i * 2 > x:
            return i, i * 0.5
        i += 1
    return -1, 0.0


def break_and_continue(x):
    total = 0
    for v in x:
        LOG.append("body")
        if v == 1:
            LOG.append("continue")
            continue
        if v > 3:
            LOG.append("break")
            break
        total += v
    return total


def promotion(x):
    s = 0
    for v in x:
        LOG.append("body")
        print("tracing body")
        s += v * 0.5
    return s


def weak_promotion(step, n):
    s = 0
    for _ in range(n):
        LOG.append("body")
        s += step
    return s


def chained_promotion(x):
    a = 0
    b = 0
    for v in x:
        LOG.append("body")
        b = b + a
        a = a + v * 0.5
    return a, b


def nested_loops_with_return(x):
    s = 0.0
    for v in x:
        LOG.append("outer")
        for w in x:
            LOG.append("inner")
            if v * w > 6:
                return v * w * 0.5
            s += w * 0.25
    return s


def nested_promotion(x):
    s = 0
    for v in x:
        LOG.append("outer")
        for w in x:
            LOG.append("inner")
            s += w * 0.25
    return s


def nested_promotion_from_float(x):
    s = 0.0
    for v in x:
        LOG.append("outer")
        for w in x:
            LOG.append("inner")
            if v * w > 6:
                return v * w * 0.5
            s += w * 0.25
    return s


def cond_with_return_in_one_branch(x):
    if x > 0:
        LOG.append("true")
        return x * 2
    LOG.append("after")
    return -x


def cond_in_loop_with_promotion(x):
    s = 0
    for v in x:
        LOG.append("body")
        if v > 1:
            LOG.append("true")
            s = s + v * 0.5
        else:
            LOG.append("false")
            s = s + 0.0
    return s


@pytest.mark.parametrize("fn, args, expected_log", [
    (return_in_loop, (np.arange(5),), ["body"]),
    (return_tuple_in_while, (np.int64(7),), ["body"]),
    (break_and_continue, (np.arange(6),), ["body", "continue", "break"]),
    (promotion, (np.arange(3),), ["body"]),
    (weak_promotion, (np.float32(1.5), np.int64(4)), ["body"]),
    (chained_promotion, (np.arange(4),), ["body"]),
    (nested_loops_with_return, (np.arange(4),), ["outer", "inner"]),
    (nested_promotion, (np.arange(4),), ["outer", "inner"]),
    (nested_promotion_from_float, (np.arange(4),), ["outer", "inner"]),
    (cond_with_return_in_one_branch, (np.int64(3),), ["true", "after"]),
    (cond_with_return_in_one_branch, (np.int64(-3),), ["true", "after"]),
    (cond_in_loop_with_promotion, (np.arange(4),), ["body", "true", "false"]),
], ids=lambda v: getattr(v, "__name__", None))
def test_side_effects_run_once_per_trace_and_results_match_python(fn, args, expected_log):
    result, traced = _trace_once(fn, *args)
    assert traced == expected_log
    expected = fn(*args)
    if isinstance(expected, tuple):
        for got, want in zip(result, expected):
            np.testing.assert_allclose(got, want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
    else:
        np.testing.assert_allclose(result, expected)
        assert np.asarray(result).dtype == np.asarray(expected).dtype


def test_python_print_in_a_staged_body_is_staged_and_the_body_traced_once(capsys):
    """The body is traced once (LOG), and a print of Python values inside it
    is staged: it prints on every iteration of every call, as Python does."""
    for fn in (return_in_loop, promotion):
        fn(np.arange(5))
        expected = capsys.readouterr().out.count("tracing body")
        LOG.clear()
        staged = ag.function(fn)
        staged(np.arange(5))
        staged(np.arange(5))
        assert LOG == ["body"]
        assert capsys.readouterr().out.count("tracing body") == 2 * expected


def test_a_new_signature_traces_again_once():
    LOG.clear()
    staged = ag.function(promotion)
    staged(np.arange(3))
    staged(np.arange(3.0))
    assert LOG == ["body", "body"]


def test_promoted_python_number_keeps_numpy_weak_typing():
    result, _ = _trace_once(weak_promotion, np.float32(1.5), np.int64(4))
    assert result.dtype == np.float32 and result == np.float32(6.0)


def test_promotion_a_nested_loop_cannot_carry_names_the_variable():
    def inner_loop_keeps_int(x):
        s = 0
        for v in x:
            t = s
            for w in x:
                t = np.int64(1)
            s = s + v * 0.5 + t
        return s

    with pytest.raises(errors.StagingError, match=re.escape(
            "variable 's' starts as the Python int 0 before the staged `for` loop at ")):
        ag.function(inner_loop_keeps_int)(np.arange(3))


def test_no_per_trace_state_on_the_backend_singleton():
    assert vars(graph_backend.BACKEND) == {}


def test_concurrent_traces_each_run_the_body_once():
    counts = []

    def traced(x):
        for v in x:
            counts.append(threading.get_ident())
            if v > 2:
                return v * 1.0
        return x[0] * 1.0

    threads = [threading.Thread(target=lambda: ag.function(traced)(np.arange(5)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counts) == 4 and sorted(counts) == sorted(t.ident for t in threads)
