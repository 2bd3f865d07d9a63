"""A refusal raised inside a `try` is not hidden by the error its `finally`
then raises.

Tracing stops at the refusal (here: `str()` of a staged value), so the
`finally` runs on a body that never finished and fails in turn (the list the
body was to fill is empty).  Python puts the `finally`'s error on top, and the
user saw "IndexError: list index out of range", with the reason only in the
chained context.  ag.function now raises the refusal, with a note naming the
error that followed.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def text_then_finally(x):
    log = []
    try:
        s = str(x)  # refused: a staged value has no text while tracing
        log.append(s)
    finally:
        first = log[0]
    return first


def user_error_in_finally(x):
    try:
        y = x + 1.0
    finally:
        raise KeyError("the user's own")
    return y


def test_the_refusal_is_raised_with_a_note_about_the_finally():
    with pytest.raises(errors.TensorTextError, match=r"str\(\) of staged value 'x'") as info:
        ag.function(text_then_finally)(np.float64(2.0))
    notes = "\n".join(getattr(info.value, "__notes__", ()))
    assert "IndexError: list index out of range" in notes


def test_an_error_with_no_refusal_behind_it_is_left_as_python_raises_it():
    with pytest.raises(KeyError, match="the user's own"):
        ag.function(user_error_in_finally)(np.float64(2.0))


# A closure reading `s` makes the converted body assign the function's own `s`
# (`nonlocal`): the loop body, stopped by its refusal, left its tensor there,
# and the `finally` met it outside the loop ("assigned graph tensor ... used
# outside the branch or loop body"), an error that hid the refusal.
def loop_dtype_refusal_then_finally_reads_the_body_value(x, n):
    s = np.int64(0)

    def shown():
        return s * 1

    try:
        for i in range(n):
            s = s + x[i].astype(np.float32)
    finally:
        s = s + 1
    return s, shown()


def branch_dtype_refusal_then_finally_reads_the_branch_value(x, a):
    t = a + 0.5

    def scaled(z):
        return z * t

    try:
        if a > 0:
            t = a * 2.0
            s = x.astype(np.float32)
        else:
            t = a * 3.0
            s = x
    finally:
        t = t + 1.0
    return s, scaled(t)


def refusal_then_two_nested_finallies_read_the_body_value(x, n):
    s = np.int64(0)

    def shown():
        return s * 1

    try:
        for i in range(n):
            s = s + x[i].astype(np.float32)
    finally:
        try:
            t = s + 1
        finally:
            s = s + 2
    return s, t, shown()


@pytest.mark.parametrize("fn, args, refusal", [
    (refusal_then_two_nested_finallies_read_the_body_value,
     (np.arange(3.0), np.int64(3)), "variable 's' changes dtype in the staged `for` loop"),
    (loop_dtype_refusal_then_finally_reads_the_body_value,
     (np.arange(3.0), np.int64(3)), "variable 's' changes dtype in the staged `for` loop"),
    (branch_dtype_refusal_then_finally_reads_the_branch_value,
     (np.arange(2.0), np.float64(2.0)),
     "variable 's' has a different dtype in the two branches of the staged `if`"),
])
def test_a_refusal_is_not_hidden_by_the_leaked_body_value_its_finally_met(fn, args, refusal):
    fn(*args)  # plain Python runs it
    with pytest.raises(errors.StagingError, match=re.escape(refusal)) as info:
        ag.function(fn)(*args)
    assert not isinstance(info.value, errors.LeakedTensorError)
    notes = "\n".join(getattr(info.value, "__notes__", ()))
    assert "LeakedTensorError" in notes and "outside the branch or loop body" in notes
