"""`locals()` inside an `if` or a loop that converted code runs as a
generated function (staged, or on Python values while tracing): Python shows
every variable of the function bound there, not only those the generated
function touches (it showed the branch's own, so `len(locals())` in a staged
branch was 0 -- a wrong value, silently)."""

import numpy as np
import pytest

import autograph as ag


def in_a_staged_branch(x):
    y = 1
    if x.sum() > 0:
        z = x * len(locals())
    else:
        z = x * 0
    return z


def in_a_python_branch(x, training):
    y = x * 2
    if training:
        z = y + 1
        seen = sorted(locals())
    else:
        seen = []
    return seen


def in_a_loop_inside_a_branch(x):
    y = 1
    total = x * 0
    i = 0
    if x.sum() > 0:
        for i in range(2):
            total = total + x * len(locals())
    return total


def value_seen(x):
    y, w = 7, 0
    if x.sum() > 0:
        w = 3
        found = x * locals()["y"] + locals()["w"]
    else:
        found = x * 0
    return found


@pytest.mark.parametrize("fn, args", [
    (in_a_staged_branch, (np.ones(2),)), (in_a_python_branch, (np.ones(2), True)),
    (in_a_loop_inside_a_branch, (np.ones(2),)), (value_seen, (np.ones(2),))],
    ids=lambda c: getattr(c, "__name__", ""))
def test_locals_in_a_generated_function_shows_the_functions_variables(fn, args):
    expected = fn(*args)
    np.testing.assert_array_equal(ag.to_graph(fn)(*args), expected)
    np.testing.assert_array_equal(ag.function(fn)(*args), expected)
