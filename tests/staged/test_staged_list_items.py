"""A list a staged loop grows holds one array per item: items Python's list
would hold as something else (a tuple, a list, a dict, a string, an object)
are refused, where they used to be stacked into an array or held as an
opaque constant (a dict came back holding the trace's tensors)."""

import traceback

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([0.5, -1.5, 2.0, 3.0])
N = np.int64(3)


def pairs(x, n):
    rows = []
    for i in range(n):
        rows.append((x[i], x[i] + 1))
    return rows


def nested(x, n):
    rows = []
    for i in range(n):
        row = []
        for j in range(2):  # (a Python loop: row is a Python list)
            row.append(x[i] * j)
        rows.append(row)
    return rows


def records(x, n):
    rows = []
    for i in range(n):
        rows.append({"value": x[i]})
    return rows


def labels(x, n):
    names = []
    for i in range(n):
        names.append("step")
    return names


def assigned(x, n):
    rows = [x[0]]
    for i in range(n):
        rows.append(x[i])
        rows[0] = (x[i], x[i])
    return rows


@pytest.mark.parametrize("fn, kind, line", [
    (pairs, "tuple", "rows.append((x[i], x[i] + 1))"),
    (nested, "list", "rows.append(row)"),
    (records, "dict", 'rows.append({"value": x[i]})'),
    (labels, "str", 'names.append("step")'),
    (assigned, "tuple", "rows[0] = (x[i], x[i])"),
])
def test_an_item_a_staged_list_cannot_hold_as_it_is_is_refused(fn, kind, line):
    fn(X, 3)  # (Python runs it)
    with pytest.raises(errors.StagingError) as raised:
        ag.function(fn)(X, N)
    message = str(raised.value)
    assert f"puts a {kind} into a list that a staged loop" in message
    assert f"{__file__}:" in message
    assert "Keep one list per field" in message
    last = traceback.extract_tb(raised.value.__traceback__)[-1]
    assert (last.filename, last.line) == (__file__, line)


def numbers(x, n):
    out = []
    for i in range(n):
        out.append(x[i])
        out.append(np.float64(i))
        out.append(x[: i + 1].sum())
    return out


def test_numbers_and_numpy_values_are_still_held():
    got = ag.function(numbers)(X, N)
    want = numbers(X, 3)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w) and g == w


def nones(x, n):
    out = []
    for _ in range(n):
        out.append(None)
    return out


def test_none_and_other_objects_are_held_as_they_are():
    assert ag.function(nones)(X, N) == nones(X, 3) == [None] * 3
