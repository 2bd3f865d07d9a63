"""Messages about jumps and staged lists name what the user wrote (issue 8,
items 9 and 10): no generated flag (`retval_`, `<value of `and`>`), no
internal repr (`<TensorList ...>`)."""

import numpy as np
import pytest

import autograph as ag
from autograph.runtime import registry

INTERNAL = ("retval_", "do_return", "break_", "<value of", "TensorList", "loop_cond")


def _message(fn, *args):
    with pytest.raises(ag.AutoGraphError) as caught:
        ag.function(fn)(*args)
    text = str(caught.value)
    assert not any(word in text for word in INTERNAL), text
    return text


def while_with_break_on_an_array_test(a):
    i = 0
    while a > i:  # two values: not a single truth value
        if i > 3:
            break
        i += 1
    return i


WHILE_LINE = while_with_break_on_an_array_test.__code__.co_firstlineno + 2


def return_of_two_dtypes(xs):
    for v in xs:
        k = 0
        while k < v:
            k += 1
            if k > 2:
                return k
    return 0.5


def list_staged_in_one_branch(x, n):
    acc = []
    if x > 0:
        for _ in range(n):
            acc.append(x)
    return len(acc)


def lists_of_two_dtypes(x, n):
    acc = []
    if x > 0:
        for _ in range(n):
            acc.append(x)
    else:
        for _ in range(n):
            acc.append(x.astype(np.float32))
    return len(acc)


def test_a_while_test_joined_with_a_break_flag_is_named_as_the_test():
    text = _message(while_with_break_on_an_array_test, np.array([5, 6]))
    assert "the test of the staged `while` loop at" in text
    assert f"test_jump_messages.py:{WHILE_LINE}" in text
    assert "shape (2,)" in text and "np.all(...) or np.any(...)" in text


def test_a_while_test_of_a_run_time_length_joined_with_a_break_flag():
    # (its static shape is read: user code's .shape would stage its dims)
    f = ag.function(while_with_break_on_an_array_test)
    with pytest.raises(ag.AutoGraphError) as caught:
        f.get_concrete_function(ag.TensorSpec((None,), np.int64))
    text = str(caught.value)
    assert not any(word in text for word in INTERNAL), text
    assert "the test of the staged `while` loop at" in text
    assert f"test_jump_messages.py:{WHILE_LINE}" in text and "shape (?,)" in text


def test_a_while_test_joined_with_a_break_flag_under_jax():
    jax = pytest.importorskip("jax", exc_type=ImportError)
    with pytest.raises(ag.AutoGraphError, match=r"the test of the staged `while` loop at "
                       rf".*test_jump_messages\.py:{WHILE_LINE} .*shape \(2,\)"):
        jax.jit(ag.to_graph(while_with_break_on_an_array_test))(np.array([5, 6]))


def test_a_return_value_is_called_the_returned_value():
    text = _message(return_of_two_dtypes, np.array([1.0, 5.0]))
    assert text.startswith("variable 'the returned value' is the Python float 0.5 in the "
                           "true branch") and "and a staged Python int in the false" in text


def test_a_staged_list_is_described_not_shown_by_its_repr():
    text = _message(lists_of_two_dtypes, np.float64(1.0), np.int64(3))
    assert ("true branch: a staged list of float64 items; false branch: a staged list of "
            "float32 items") in text


def test_a_list_staged_in_one_branch_is_staged_on_both_sides():
    for x in (np.float64(1.0), np.float64(-1.0)):
        assert ag.function(list_staged_in_one_branch)(x, np.int64(3)) == \
            list_staged_in_one_branch(x, 3)


def test_while_test_is_the_test_on_python_values():
    converted = ag.to_graph(while_with_break_on_an_array_test)
    with registry.staging("test: the converted body"):
        assert converted(7) == 4
        assert converted(2) == 2


def conditional_expression_of_two_kinds(x):
    return 1 if x > 0 else "a"


def test_a_conditional_expression_is_named_by_its_condition():
    text = _message(conditional_expression_of_two_kinds, np.float64(1.0))
    assert text.startswith("variable 'the value of `... if x > 0 else ...`' gets a different "
                           "Python value")
