"""np.broadcast_to gives a read-only view: numpy raises "output array is
read-only" for `b += 1` on it (or on a view of it).  The graph took it for a
view no one else holds and rebound `b`, returning a value where Python
raises.  Now staged mode raises numpy's ValueError, naming the variable, the
broadcast_to line and the fix; a copy of the broadcast stays writeable."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.arange(3.0)


def broadcast_changed(x, n):
    b = np.broadcast_to(x * 2, (2, 3))  # line 1
    b += 1  # line 2
    return b


def broadcast_changed_in_a_loop(x, n):
    b = np.broadcast_to(x * 0, (2, 3))  # line 1
    for _ in range(n):
        b += 1  # line 3
    return b


def row_of_a_broadcast_changed(x, n):
    r = np.broadcast_to(x * 2, (2, 3))[0]  # line 1
    r += 1  # line 2
    return r


@pytest.mark.parametrize("fn, name, made, changed", [
    (broadcast_changed, "b", 1, 2),
    (broadcast_changed_in_a_loop, "b", 1, 3),
    (row_of_a_broadcast_changed, "r", 1, 2),
], ids=lambda v: getattr(v, "__name__", ""))
def test_changing_a_broadcast_raises_numpys_error(fn, name, made, changed):
    with pytest.raises(ValueError, match="output array is read-only"):
        fn(X.copy(), 2)
    first = fn.__code__.co_firstlineno
    message = errors.graph_op_message(
        "+=", f"output array is read-only: `{name}` holds the read-only view np.broadcast_to "
        f"made at {__file__}:{first + made} (or a view of it); take a copy to change it "
        f"(`np.broadcast_to(...).copy()`), or write `{name} = {name} + ...` for a new array",
        f"{__file__}:{first + changed}")
    with pytest.raises(errors.GraphValueError, match=re.escape(message)):
        ag.function(fn)(X, np.int64(2))


def broadcast_copied(x, n):
    b = np.broadcast_to(x * 2, (2, 3)).copy()
    b += 1
    return b


def test_a_copy_of_a_broadcast_changes_as_in_python():
    np.testing.assert_array_equal(ag.function(broadcast_copied)(X, np.int64(2)),
                                  broadcast_copied(X, 2))
