"""An in-place change of an array an argument container holds (`for a in
xs: a += 1`, `w = d['w']; w -= g`): refused, as for an argument itself --
but the message named the graph's placeholder, `xs_0` / `d_w`, a name the
user never wrote, and told them to write `xs_0 = xs_0 + ...`.  Now it names
the variable changed and the argument's item as written (`xs[0]`)."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(3.0)


def items_of_a_list_argument(xs):
    for a in xs:
        a += 1  # line 2
    return xs


def item_of_a_dict_argument(d):
    w = d["w"]
    w -= 1  # line 2
    return w


def dict_argument_item_changed(d):
    d["w"] -= 1  # line 1
    return d["w"]


@pytest.mark.parametrize("fn, arg, expected, offset", [
    (items_of_a_list_argument, [X, X], errors.in_place_argument_part_message(
        "a", "xs[0]", "a += ...", "{line}"), 2),
    (item_of_a_dict_argument, {"w": X}, errors.in_place_argument_part_message(
        "w", "d['w']", "w -= ...", "{line}"), 2),
    (dict_argument_item_changed, {"w": X}, errors.in_place_argument_message(
        "d['w']", "d['w'] -= ...", "{line}"), 1),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_changed_argument_item_is_named_as_written(fn, arg, expected, offset):
    line = f"{__file__}:{fn.__code__.co_firstlineno + offset}"
    with pytest.raises(errors.InPlaceChangeError,
                       match=re.escape(expected.replace("{line}", line))):
        ag.function(fn)(arg)
