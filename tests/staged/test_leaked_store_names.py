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

    n = 0
    while n < x.shape[0] and x[n] > 0:
        add(x[n])
        n += 1
    return total


def _line(fn, marker):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


@pytest.mark.parametrize("fn, target, tensor", [
    (nested_item, "rows[0][0]", "getitem"), (nonlocal_in_loop, "total", "add")])
def test_the_store_is_named_as_written(fn, target, tensor):
    where = f"{__file__}:{_line(fn, '# store line')}"
    with pytest.raises(errors.GraphError, match=re.escape(errors.leaked_store_message(
            target, tensor, where, "returned by the traced function"))):
        ag.function(fn)(X)

