"""Where branch or loop results nest differently, the refusal names the part
that differs and what it is on each side (it said "another nesting" for
both), and a list that a staged `if` fills with items of two dtypes says so
(a float32 item on one path, a float64 one on the other; it said "another
nesting" too, once an inner `if` had made the list a staged list)."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X = np.array([1.0, 2.0])
A = np.float32(0.5)


def float64_then_float32_in_an_elif(x, a):
    acc = []
    if x[0] > 0:
        acc.append(np.float64(1.5))
    elif x[1] > 0:
        acc.append(a)
    return len(acc)


def two_dtypes_in_one_branch(x, a):
    acc = []
    if x[0] > 0:
        acc.append(np.float64(1.5))
        acc.append(a)
    elif x[1] > 0:
        acc.append(a)
    return len(acc)


def longer_tuple_in_a_branch(x, a):
    pair = (a, a)
    if x[0] > 0:
        pair = (a, a, a)
    return pair[0]


def another_key_in_a_branch(x, a):
    d = {'k': a}
    if x[0] > 0:
        d = {'k': a, 'm': a}
    return d['k']


def longer_inner_list_in_a_branch(x, a):
    rows = [[a], [a]]
    if x[0] > 0:
        rows = [[a], [a, a]]
    return rows[0][0]


def longer_inner_list_in_a_loop(x, a):
    rows = [a, [a]]
    for v in x:
        rows = [a, [a, a]]
    return rows[0]


def _line(fn, offset):
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}"


@pytest.mark.parametrize("fn, expected", [
    (float64_then_float32_in_an_elif, lambda fn: (
        f"variable 'acc' is a list that the staged `if` at {_line(fn, 2)} fills with items of "
        "different dtypes or ranks (true branch: float64 items; false branch: float32 items)"
        ", and the staged list it becomes holds items of one dtype and rank. Give every "
        "item appended to acc the same dtype, e.g. cast one side with np.float64(...) or "
        ".astype(np.float64).")),
    (two_dtypes_in_one_branch, lambda fn: (
        f"variable 'acc' is a list that the staged `if` at {_line(fn, 2)} fills with items of "
        "different dtypes or ranks (true branch: float64 and float32 items; false branch: "
        "float32 items)")),
    (longer_tuple_in_a_branch, lambda fn: (
        f"variable 'pair' has a different structure in the two branches of the staged `if` "
        f"at {_line(fn, 2)} (true branch: tuple of length 3; false branch: tuple of length "
        "2)")),
    (another_key_in_a_branch, lambda fn: (
        f"variable 'd' has a different structure in the two branches of the staged `if` "
        f"at {_line(fn, 2)} (true branch: dict with keys [\"'k'\", \"'m'\"]; false branch: "
        "dict with keys [\"'k'\"])")),
    (longer_inner_list_in_a_branch, lambda fn: (
        f"variable 'rows[1]' has a different structure in the two branches of the staged "
        f"`if` at {_line(fn, 2)} (true branch: list of length 2; false branch: list of "
        "length 1)")),
    (longer_inner_list_in_a_loop, lambda fn: (
        f"variable 'rows[1]' changes structure in the staged `for` loop at {_line(fn, 2)} "
        "(before the loop: list of length 1; after one iteration: list of length 2)")),
], ids=lambda p: getattr(p, "__name__", ""))
def test_the_refusal_names_the_part_that_differs(fn, expected):
    fn(X, A)  # plain Python runs it
    with pytest.raises(errors.StagingError, match=re.escape(expected(fn))):
        ag.function(fn)(X, A)


def test_one_dtype_on_both_paths_is_staged():
    def fn(x, a):
        acc = []
        if x[0] > 0:
            acc.append(np.float32(1.5))
        elif x[1] > 0:
            acc.append(a)
        return len(acc)

    for x in (X, -X, np.array([-1.0, 1.0])):
        assert ag.function(fn)(x, A) == fn(x, A)


def appends_two_dtypes_in_a_loop(x):
    acc = []
    for v in x:
        acc.append(v)
        acc.append(np.float64(1.5))
    return len(acc)


def test_an_item_of_another_dtype_appended_to_a_staged_list_says_how_to_cast():
    x = np.arange(3, dtype=np.float32)
    appends_two_dtypes_in_a_loop(x)  # plain Python runs it
    expected = ("`acc.append(...)`: the staged list holds float32 items, the value is float64; "
                "give every item one dtype (cast this one with .astype(np.float32), or the "
                f"others) (at {_line(appends_two_dtypes_in_a_loop, 4)})")
    with pytest.raises(errors.GraphError, match=re.escape(expected)):
        ag.function(appends_two_dtypes_in_a_loop)(x)


def monotonic_stack(x):
    stack = []
    for v in x:
        while stack and stack[-1] > v:
            stack.pop()
        stack.append(v)
    return len(stack)


def declared_monotonic_stack(x):
    stack = []
    ag.set_element_type(stack, np.float64, ())
    for v in x:
        while stack and stack[-1] > v:
            stack.pop()
        stack.append(v)
    return len(stack)


def test_reading_a_staged_list_before_its_first_append_says_to_declare_it():
    x = np.array([1.5, -2.25, 3.75, 2.5])
    monotonic_stack(x)  # plain Python runs it
    expected = (
        f"stack[-1] at {_line(monotonic_stack, 3)}: the item dtype and shape of the staged "
        "list 'stack' are not known here, as nothing was appended to it before this use while "
        "tracing (a staged loop body reads it before its append: the body is traced once, in "
        "order). Declare them before the loop: ag.set_element_type(stack, dtype, shape), e.g. "
        "ag.set_element_type(stack, np.float64, ()) for scalar items.")
    with pytest.raises(errors.GraphError, match=re.escape(expected)):
        ag.function(monotonic_stack)(x)
    assert ag.function(declared_monotonic_stack)(x) == declared_monotonic_stack(x)
