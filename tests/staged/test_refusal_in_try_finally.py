"""A refusal raised inside a `try` is not hidden by the error its `finally`
then raises.

Tracing stops at the refusal (here: `str()` of a staged value), so the
`finally` runs on a body that never finished and fails in turn (the list the
body was to fill is empty).  Python puts the `finally`'s error on top, and the
user saw "IndexError: list index out of range", with the reason only in the
chained context.  ag.function now raises the refusal, with a note naming the
error that followed.
"""

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
