"""An assignment expression in the test of a staged `if` binds its name before
either branch runs: a name read only after that binding is not loop state
(it was refused as 'carried by the staged loop, no value before it')."""

import numpy as np
import pytest

import autograph as ag


def walrus_in_if(xs):
    n = 0.0
    for v in xs:
        if (w := v * 2) > 2:
            n = n + w
    return n


def walrus_in_if_else(xs):
    n = 0.0
    for v in xs:
        if (w := v * 2) > 2:
            n = n + w
        else:
            n = n - w
    return n


@pytest.mark.parametrize("fn", [walrus_in_if, walrus_in_if_else])
@pytest.mark.parametrize("xs", [np.arange(4.0), np.zeros(0)])
def test_a_walrus_in_a_staged_if_test_is_not_loop_state(fn, xs):
    assert ag.function(fn)(xs) == fn(xs)
