"""A message about a graph tensor no variable of the user's holds names it by
the expression the user's line hands it to (`the value in `x.sum()`` of
`int(x.sum())`),
not by its op's name (`less`, `absolute`), which the user never wrote; the
iterable of a comprehension is named by the enclosing function's variable."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([0.5, -1.5, 2.0])


def sorts(x):
    total = x.sum()
    return sorted([total, x[0]])


def to_complex(x):
    return complex(abs(x[0]) * 2)


def comprehends(x):
    y = x * 2
    return [v for v in y]


def as_int(x):
    return int(x.sum())


def indexes(x):
    return [1, 2][x.sum() > 0]


def comprehends_an_expression(x):
    return [v for v in x * 2]


def item_of(x):
    return x.sum().item(0) + 1


def rounds(x):
    return round(abs(x[0]), 1)  # (of a float(...): Python's round, staged)


@pytest.mark.parametrize("fn, named", [
    (sorts, "bool() of graph tensor 'the value in `[total, x[0]]`'"),
    (to_complex, "complex() of graph tensor 'the value in `abs(x[0]) * 2`'"),
    (as_int, "int() of graph tensor 'the value in `x.sum()`'"),
    (indexes, "use as a Python index or size of graph tensor 'the value in `x.sum() > 0`'"),
    (comprehends_an_expression, "iter() of graph tensor 'the value in `x * 2`'"),
    (item_of, ".item() of graph tensor 'the value in `x.sum()`'"),
    (comprehends, "iter() of graph tensor 'y'"),
    (rounds, "round(..., ndigits) of graph tensor 'the value in `round(abs(x[0]), 1)`'"),
])
def test_a_tensor_no_variable_holds_is_named_by_the_users_expression(fn, named):
    with pytest.raises(errors.TensorUsageError) as raised:
        ag.function(fn)(X)
    message = str(raised.value)
    assert message.startswith(named + f" at {__file__}:"), message
    assert not re.search(r"'(less|absolute|multiply|weak_cast)'", message)


def test_the_fix_of_round_does_not_spell_a_description_as_code():
    with pytest.raises(errors.TensorUsageError) as raised:
        ag.function(rounds)(X)
    assert "np.round(..., 1)" in str(raised.value)
