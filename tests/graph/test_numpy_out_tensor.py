"""`w -= t` on a numpy array with a graph tensor operand names the variable.

numpy runs `w -= t` as np.subtract(w, t, out=(w,)); the graph engine said only
"np.subtract(..., out=...) is not supported on graph tensors".  The refusal now
names `w`, the line and the rewrite.
"""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def subtract_in_place(x):
    w = np.ones(3)
    t = x * 2.0
    w -= t  # line marker
    return w


def add_into(x):
    acc = np.zeros(3)
    np.add(acc, x * 2.0, out=acc)
    return acc


def test_in_place_operator_names_the_array():
    line = subtract_in_place.__code__.co_firstlineno + 3
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            errors.numpy_out_tensor_message("w", "subtract", f"{__file__}:{line}"))):
        ag.function(subtract_in_place)(np.float64(1.5))


def test_out_argument_names_the_array():
    with pytest.raises(errors.InPlaceChangeError, match="into 'acc' in place"):
        ag.function(add_into)(np.float64(1.5))


def test_the_rewrite_the_message_gives_works():
    def rewritten(x):
        w = np.ones(3)
        t = x * 2.0
        w = w - t
        return w
    np.testing.assert_array_equal(ag.function(rewritten)(np.float64(1.5)), np.full(3, -2.0))


# --- `y[i] = t` into a numpy array -----------------------------------------------------------

def item_into_array(x):
    y = np.zeros(3)
    t = x * 2.0
    y[0] = t  # line marker
    return y


def test_item_assignment_of_a_tensor_into_a_numpy_array_names_it():
    line = item_into_array.__code__.co_firstlineno + 3
    with pytest.raises(errors.TensorIntoArrayError, match=re.escape(
            errors.tensor_into_array_message("y[0]", "t", f"{__file__}:{line}"))) as info:
        ag.function(item_into_array)(np.float64(1.5))
    assert isinstance(info.value, ValueError)  # (numpy's own error was a ValueError)


def item_into_array_on_one_line(x):
    t = x * 2; y = np.zeros(3); y[0] = t; return y  # noqa: E702


def test_item_assignment_among_statements_on_one_line_names_it():
    line = item_into_array_on_one_line.__code__.co_firstlineno + 1
    with pytest.raises(errors.TensorIntoArrayError, match=re.escape(
            errors.tensor_into_array_message("y[0]", "t", f"{__file__}:{line}"))):
        ag.function(item_into_array_on_one_line)(np.float64(1.5))


def min_into_int_table(x):
    table = np.zeros(3, dtype=np.int64)
    for i in range(3):
        table[i] = min(x[i], 5)  # an edit-distance table's fill
    return table


def flag_into_bool_array(x):
    seen = np.zeros(2, dtype=bool)
    seen[1] = x[0] > 0
    return seen


def test_item_assignment_into_an_int_or_bool_array_names_the_store_not_an_int_call():
    # numpy asks the tensor's int() / bool() for such an array: the refusal named
    # an int() the user never wrote ("int() of graph tensor 'the_value_of_min'")
    for function, target, value, offset in (
            (min_into_int_table, "table[i]", "min(x[i], 5)", 3),
            (flag_into_bool_array, "seen[1]", "x[0] > 0", 2)):
        line = function.__code__.co_firstlineno + offset
        with pytest.raises(errors.TensorIntoArrayError, match=re.escape(
                errors.tensor_into_array_message(target, value, f"{__file__}:{line}"))):
            ag.function(function)(np.array([1, 7, 3]))


def sequence_into_item(x):
    y = np.zeros(3)
    y[0] = [1.0, 2.0]  # numpy's own error, in Python too
    return y + x


def test_numpys_own_sequence_error_is_left_alone():
    with pytest.raises(ValueError, match="setting an array element with a sequence") as info:
        ag.function(sequence_into_item)(np.float64(1.5))
    assert not isinstance(info.value, errors.AutoGraphError)


def list_item_at_a_staged_index(ws, n):
    ws = list(ws)
    for i in range(n):
        ws[i] = ws[i] * 2
    return ws


def test_a_list_indexed_in_a_staged_loop_is_no_numpy_array():
    # (not TensorIntoArrayError: `ws` is a Python list; and the hint is for
    # converted code, though the loop body's generated function closes over
    # nothing of the runtime)
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            "use as a Python index or size of graph tensor 'i'")) as info:
        ag.function(list_item_at_a_staged_index)([np.ones(2), np.ones(2)], np.int64(2))
    assert "The function is converted" in str(info.value)
