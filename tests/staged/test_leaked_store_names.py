"""A tensor a staged branch or loop body stores outside the state it carries
(an item of a nested container, a `nonlocal` a helper assigns) is named by the
user's spelling of the store, not by the internal tensor's name.

The graph engine said "graph tensor 'getitem' (made at ...) is returned by the
traced function"; the message now says `rows[0][0]` / `total` and the fix.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([1.0, 2.0, -1.0])


def nested_item(x):
    rows = [[0.0, 1.0], [2.0, 3.0]]
    if x[0] > 0:
        rows[0][0] = x[0]  # store line
    return rows[0][0]


def nonlocal_in_loop(x):
    total = x[0]

    def add(v):
        nonlocal total
        total = total + v  # store line

    adders = [add]  # (a helper only called by name is staged: test_closure_patterns.py)
    n = 0
    while n < x.shape[0] and x[n] > 0:
        adders[0](x[n])
        n += 1
    return total


def _line(fn, marker):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def deep_item(x):
    grid = [[[0.0, 1.0]], [[2.0, 3.0]]]
    if x[0] > 0:
        grid[0][0][0] = x[0]  # store line
    return grid[0][0][0]


def test_a_store_below_what_the_staged_region_checks_is_named_as_written():
    # (three levels down: past runtime/staging.py's walk of the state a staged
    # branch changes, so the engine's leak check is what finds it)
    where = f"{__file__}:{_line(deep_item, '# store line')}"
    with pytest.raises(errors.GraphError, match=re.escape(errors.leaked_store_message(
            "grid[0][0][0]", "getitem", where, "returned by the traced function"))):
        ag.function(deep_item)(X)


@pytest.mark.parametrize("fn, target", [(nested_item, "`rows[0][0]`"),
                                        (nonlocal_in_loop, "variable 'total'")])
def test_the_store_is_named_as_written(fn, target):
    # (found when the staged branch or loop body has been traced: the change of
    # state from before it, runtime/staging.py `_refuse_changed`)
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(X)
    message = str(raised.value)
    assert message.startswith(target) and "is changed inside the staged" in message
    assert "'getitem'" not in message and "'add'" not in message
