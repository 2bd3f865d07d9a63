"""A variable a staged branch leaves unbound because it jumped (`return`,
`break`, `continue` before the assignment) travels as a stand-in; only a
`finally` body reads it without the jump's guard.  Python raises
UnboundLocalError there on the path that jumped: so does the graph, when it
runs that path (runtime.special_values.ld), and the other path is unchanged."""

import numpy as np
import pytest

import autograph as ag


def reads_in_finally(x):
    try:
        if x > 0:
            return x
        y = x * 2
    finally:
        z = y
    return z


def flag_named_like_a_generated_one(x):
    if x > 0:
        break_ = True
    else:
        break_ = False
        y = x * 3
    return y + 1, break_


def test_a_variable_named_like_a_flag_is_an_ordinary_variable():
    """(The runtime no longer tells jump flags by name: the converter names
    them.)  `y`, undefined in one branch, is refused as for any flag name."""
    with pytest.raises(ag.errors.StagingError, match="variable 'y' is undefined in a branch"):
        ag.function(flag_named_like_a_generated_one)(np.float64(1.0))


@pytest.mark.parametrize("fn", [reads_in_finally])
def test_the_path_that_left_it_unbound_raises_as_python_does(fn):
    staged = ag.function(fn)
    with pytest.raises(UnboundLocalError) as plain:
        fn(np.float64(1.0))
    with pytest.raises(UnboundLocalError) as graph:
        staged(np.float64(1.0))
    assert str(graph.value) == str(plain.value)
    expected = fn(np.float64(-1.0))  # the path that assigns it
    np.testing.assert_equal(staged(np.float64(-1.0)), expected)
