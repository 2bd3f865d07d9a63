"""numpy's string scalars (np.str_, np.bytes_) as arguments are keyed by
value, as Python's str and bytes are: the traced function gets the string
itself, so a dict lookup or a Python comparison on it does what Python does;
they used to become graph tensors of strings (`TABLE[s]`: KeyError <Tensor>)."""

import numpy as np
import pytest

import autograph as ag

TABLE = {"a": 1.0, "b": 2.0, b"c": 3.0}


def looks_up(x, s):
    return x * TABLE[s]


@pytest.mark.parametrize("keys", [[np.str_("a"), np.str_("b"), np.str_("a")],
                                  [np.bytes_(b"c"), np.str_("a"), np.bytes_(b"c")]])
def test_string_scalars_are_looked_up_by_value(keys):
    staged = ag.function(looks_up)
    x = np.ones(2)
    for key in keys * 2:  # (the second round goes through the fast calls' guards)
        np.testing.assert_array_equal(staged(x, key), looks_up(x, key))
    assert len(staged._concrete) == len(set(keys))  # one graph per value


def test_a_numpy_string_and_the_equal_str_get_graphs_of_their_own():
    seen = []

    def records_the_type(x, s):
        seen.append(type(s))
        return x * TABLE[s]
    staged = ag.function(records_the_type)
    staged(np.ones(2), "a")
    staged(np.ones(2), np.str_("a"))
    assert seen == [str, np.str_]
