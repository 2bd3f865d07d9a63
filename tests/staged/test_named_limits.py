"""Refusals that now name the user's variable, file:line and a fix that fits.

- len() of a staged single number (a reduction's result, a staged counter):
  Python raises TypeError; staged mode raised numpy's bare "len() of unsized
  object" (runtime/builtins.len_ for converted code, graph/tensor.py's
  __len__ for a method Python calls by itself).
- a staged list read before its first append inside a staged loop: the
  message said `lst[i]` and `ag.set_element_type(lst, ...)` whatever the
  user's list was called, and named list ops (`list_pop`) by their op names.
"""

import inspect
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([3.0, 1.0, 4.0, 1.5])


def _at(fn, text):
    """'file.py:12', the first line of `fn` holding `text`."""
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, source in enumerate(lines) if text in source)
    return f"{inspect.getsourcefile(fn)}:{line}"


def _unsized(name, location, what):
    return (f"len() of '{name}' at {location}: '{name}' is {what}, a single number, which has "
            f"no length (len() of unsized object, numpy's TypeError for a 0-d array; Python's "
            f"for a number). Where '{name}' should be an array, see where it is made (a "
            f"reduction such as np.sum, or an integer index, gives one number); for its count "
            f"of elements, use np.size(...), which is 1 here.")


# --- len() of a single number ---------------------------------------------------------

def len_of_a_total(x):
    total = np.sum(x)
    return x * len(total)


def len_of_a_counter(x):
    n = 0
    for v in x:
        if v > 2:
            n = n + 1
    return x * len(n)


class Holder:
    def __init__(self, value):
        self.value = value

    def __len__(self):  # Python calls it by itself: unconverted
        return len(self.value)


def len_of_an_object_holding_a_total(x):
    return x * len(Holder(np.sum(x)))


@pytest.mark.parametrize("fn, name, text, what", [
    (len_of_a_total, "total", "len(total)", "a tensor of dtype float64 and shape ()"),
    (len_of_a_counter, "n", "len(n)", "a staged Python int"),
    (len_of_an_object_holding_a_total, "self.value", "len(self.value)",
     "a tensor of dtype float64 and shape ()"),
])
def test_len_of_a_single_number_names_the_variable(fn, name, text, what):
    with pytest.raises(TypeError) as plain:
        fn(X)
    where = _at(Holder.__len__ if name == "self.value" else fn, text)
    with pytest.raises(errors.UnsizedLenError, match=re.escape(
            _unsized(name, where, what))) as staged:
        ag.function(fn)(X)
    assert isinstance(staged.value, type(plain.value))  # (Python's TypeError, still)


def len_of_a_row(x):
    m = np.outer(x, x)
    return x * len(m[0])


def test_len_of_an_array_is_still_its_length():
    np.testing.assert_array_equal(ag.function(len_of_a_row)(X), len_of_a_row(X))


# --- a staged list read before its first append ------------------------------------------

def _unknown_items(use, name, location):
    return (f"{use} at {location}: the item dtype and shape of the staged list '{name}' are "
            f"not known here, as nothing was appended to it before this use while tracing (a "
            f"staged loop body reads it before its append: the body is traced once, in "
            f"order). Declare them before the loop: ag.set_element_type({name}, dtype, "
            f"shape), e.g. ag.set_element_type({name}, np.float64, ()) for scalar items.")


def pops_before_appending(x):
    pending = []
    for v in x:
        while pending:
            pending.pop()
        pending.append(v)
    return len(pending)


def sets_before_appending(x):
    buf = []
    for v in x:
        if len(buf) > 0:
            buf[0] = v
        else:
            buf.append(v)
    return len(buf)


def peeks_before_appending(x):
    stack = []
    for v in x:
        while stack and stack[-1] < v:
            stack.pop()
        stack.append(v)
    return len(stack)


def declared_peeks_before_appending(x):
    stack = []
    ag.set_element_type(stack, np.float64, ())
    for v in x:
        while stack and stack[-1] < v:
            stack.pop()
        stack.append(v)
    return len(stack)


@pytest.mark.parametrize("fn, use, name, line", [
    (pops_before_appending, "pending.pop()", "pending", "pending.pop()"),
    (sets_before_appending, "buf[0] = ...", "buf", "buf[0] = v"),
    (peeks_before_appending, "stack[-1]", "stack", "while stack and"),
])
def test_a_list_read_before_its_first_append_is_named(fn, use, name, line):
    fn(X)  # (plain Python runs it)
    with pytest.raises(errors.GraphError, match=re.escape(
            _unknown_items(use, name, _at(fn, line)))):
        ag.function(fn)(X)


def test_declaring_the_items_as_the_message_says_gives_pythons_result():
    assert ag.function(declared_peeks_before_appending)(X) == peeks_before_appending(X)
