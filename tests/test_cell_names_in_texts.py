"""Variables named `fscope` or `ag__` inside the expression text that
converted code passes to the runtime for messages (`a and b`, `a or b`):
the message spells the user's name, never the placeholder the transpiler
held it under while the passes ran (test_cell_names.py has the rest)."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def and_with_fscope(x, fscope):
    return (x.sum() > 0 and fscope) or 2.0


def or_with_ag(x, ag__):
    return (x.sum() > 100) or ag__


def spells_the_placeholder_inside_a_string(x, fscope):
    if x.sum() > 0:
        x = x * fscope
    return x, "see fscope_user here", "(ag___user)"


@pytest.mark.parametrize("fn, name", [(and_with_fscope, "fscope"), (or_with_ag, "ag__")])
def test_expression_text_in_messages_spells_the_users_name(fn, name):
    assert fn(np.ones(2), 3.0) == 3.0  # (Python)
    assert ag.to_graph(fn)(np.ones(2), 3.0) == 3.0
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(np.ones(2), 3.0)  # (a bool tensor or a float: refused)
    message = str(raised.value)
    assert "_user" not in message, message
    assert f" {name}`" in message, message
    assert f"{name}_user" not in ag.to_code(fn)


def test_strings_that_contain_a_placeholder_spelling_stay():
    out, *strings = ag.function(spells_the_placeholder_inside_a_string)(np.ones(2), 2.0)
    assert strings == ["see fscope_user here", "(ag___user)"]
    np.testing.assert_array_equal(out, [2.0, 2.0])
    out, *strings = ag.to_graph(spells_the_placeholder_inside_a_string)(np.ones(2), 2.0)
    assert strings == ["see fscope_user here", "(ag___user)"]
