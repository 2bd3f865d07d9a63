"""A staged list holding both Python numbers and numpy values is refused.

Python's list keeps each item's type, and later arithmetic sees it: with
`hist = [0.5]` and np.float64 items appended in a staged loop, `hist[0] *
np.float32(0.1)` is float32 in Python (0.5 is a Python float) and was float64
staged, where every item came back as a numpy value.  Which kind each item is
would be known only when the graph runs, so the list is refused at trace time
naming it, with the fix.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([1.0, 2.0, 3.0])


def literal_then_numpy(x):
    hist = [0.5]
    for v in x:
        hist.append(v * 1.0)  # marker
    return hist[0] * np.float32(0.1)


def python_floats_then_a_numpy_value(x):
    hist = []
    for v in x:
        hist.append(float(v))
    hist.append(x[0])  # marker
    return hist


def one_kind_per_branch(x):
    hist = []
    for v in x:
        if v > 1.5:
            hist.append(float(v))
        else:
            hist.append(v)
    return hist


def _line(fn):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if "# marker" in text)


@pytest.mark.parametrize("fn", [literal_then_numpy, python_floats_then_a_numpy_value])
def test_a_list_of_both_kinds_is_refused_naming_it(fn):
    fn(X)  # (Python runs it)
    with pytest.raises(errors.StagingError, match=re.escape(errors.mixed_list_message(
            "hist", f"{__file__}:{_line(fn)}"))):
        ag.function(fn)(X)


def test_branches_appending_two_kinds_are_refused():
    with pytest.raises(errors.StagingError, match="would hold both Python numbers"):
        ag.function(one_kind_per_branch)(X)


def numpy_throughout(x):
    hist = [np.float64(0.5)]
    for v in x:
        hist.append(v * 1.0)
    return hist[0] * np.float32(0.1), hist


def test_the_fix_one_kind_gives_pythons_values():
    expected, staged = numpy_throughout(X), ag.function(numpy_throughout)(X)
    assert type(staged[0]) is type(expected[0]) and staged[0] == expected[0]
    assert staged[1] == expected[1]
