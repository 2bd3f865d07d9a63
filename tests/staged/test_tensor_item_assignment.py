"""`y[i] = v` on a graph tensor: refused, naming the user's variable and
file, with a fix that runs -- straight-line, and inside a staged `if`,
where the branch carries `y[i]` as state and the refusal used to be hidden
behind a second one placed in contextlib (the journal undid a store that had
raised, raising again)."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def straight_line(x):
    y = x + 1
    y[0] = 5.0
    return y


def in_staged_if(x):
    y = x + 1
    if x.sum() > 0:
        y[0] = 5.0
    return y


def suggested_fix(x):
    y = x + 1
    if x.sum() > 0:
        y = np.where(np.arange(len(y)) == 0, 5.0, y)
    return y


@pytest.mark.parametrize("fn", [straight_line, in_staged_if])
def test_item_assignment_is_refused_at_the_users_line(fn):
    with pytest.raises(errors.TensorUsageError) as caught:
        ag.function(fn)(np.ones(3))
    message = str(caught.value)
    assert message.startswith("item assignment `y[...] = v` at ")
    assert f"{__file__}:" in message and "graph tensor 'y'" in message
    assert "contextlib" not in message and caught.value.__context__ is None


def test_the_suggested_fix_runs_staged():
    np.testing.assert_array_equal(ag.function(suggested_fix)(np.ones(3)),
                                  suggested_fix(np.ones(3)))
