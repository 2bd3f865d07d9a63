"""ag.grad of a function changing its argument in place (`w += 1`): in
Python the caller's array changes; ag.function refuses that, but ag.grad
marks each argument with a `grad.watch` op, which hid the argument from the
check -- the gradient came back and the caller's array silently stayed as
it was.  Now refused as ag.function refuses it (inside a trace too)."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def loss_changing_its_argument(w):
    w += 1  # line 1
    return (w ** 2).sum()


def loss_changing_a_copy(w):
    v = w.copy()
    v += 1
    return (v ** 2).sum()


def test_grad_refuses_an_in_place_change_of_its_argument():
    w = np.arange(4.0)
    loss_changing_its_argument(w)
    assert np.array_equal(w, np.arange(4.0) + 1)  # (Python changes the caller's array)
    line = f"{__file__}:{loss_changing_its_argument.__code__.co_firstlineno + 1}"
    message = errors.in_place_argument_message("w", "w += ...", line)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(message)):
        ag.grad(loss_changing_its_argument)(np.arange(4.0))


def test_grad_inside_a_trace_refuses_it_too():
    @ag.function
    def step(w):
        return ag.grad(loss_changing_its_argument)(w)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape("changes the argument `w`")):
        step(np.arange(4.0))


def test_grad_of_a_copy_changed_in_place_runs():
    w = np.arange(4.0)
    np.testing.assert_array_equal(ag.grad(loss_changing_a_copy)(w), 2 * (w + 1))
