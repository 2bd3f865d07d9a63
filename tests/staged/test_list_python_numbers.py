"""A staged list (built by a staged loop) of Python numbers -- `float(loss)`,
a counter, a literal -- gives Python numbers back, as Python's list does:
returned and printed as ints and floats, and read back (`lst[i]`,
`lst.pop()`, `for v in lst`) as values numpy types as Python numbers
(`hist[1] * x_f32` is float32) (graph/ops/lists.py `element_python`)."""

import contextlib
import io
import math
import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

X32 = np.array([1.0, -2.0, 3.0], np.float32)
N = np.int64(3)  # a staged trip count: the lists below are staged lists


def training_history(x, n):
    hist = []
    loss = np.float32(1.0)
    for _ in range(n):
        loss = loss * 0.5 + x[0]
        hist.append(float(loss))
    return hist, loss


def counters(x, n):
    ks = []
    k = 0
    for i in range(n):
        if x[i] > 0:
            k += 1
        ks.append(k)
    return ks


def literals(x, n):
    items = []
    for i in range(n):
        items.append(0.5)
        items.append(x[i])  # a numpy float64: not a Python number
    return items


def indexed(x, n):
    halves = []
    for i in range(n):
        halves.append(float(i) / 3)
    return halves[1] * x, halves.pop() * x, halves[-1] * x


def iterated(x, n):
    thirds = []
    for i in range(n):
        thirds.append(float(i) / 3)
    total = 0.0
    scaled = x * 0
    for t in thirds:
        total = total + t
        scaled = scaled + t * x
    return total, scaled, total * x


def printed(x, n):
    ks, values = [], []
    for i in range(n):
        ks.append(i * 2)
        values.append(float(x[i]))
    print(ks, values)
    return len(ks)


def _same(staged, expected):
    if isinstance(expected, (list, tuple)):
        assert type(staged) is type(expected) and len(staged) == len(expected)
        for s, e in zip(staged, expected):
            _same(s, e)
        return
    assert type(staged) is type(expected), (staged, expected)
    assert np.asarray(staged).dtype == np.asarray(expected).dtype
    assert np.asarray(staged).tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("fn", [training_history, counters, indexed, iterated],
                         ids=lambda f: f.__name__)
def test_items_are_pythons(fn):
    _same(ag.function(fn)(X32, N), fn(X32, N))


def test_a_mixed_list_is_refused():
    # (the items' kinds would be told apart only at run time: it was returned
    # as numpy values, where Python's list holds 0.5 and np.float64 items)
    x = X32.astype(np.float64)
    with pytest.raises(errors.StagingError, match=re.escape(errors.mixed_list_message(
            "items", f"{__file__}:{literals.__code__.co_firstlineno + 4}"))):
        ag.function(literals)(x, N)


def test_printed_list_shows_python_numbers():
    outputs = []
    for fn in (printed, ag.function(printed)):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            fn(X32.astype(np.float64), N)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] == "[0, 2, 4] [1.0, -2.0, 3.0]\n"


def test_saved_and_loaded_list_keeps_python_numbers(tmp_path):
    staged = ag.function(counters)
    staged(X32, N)
    staged.save(str(tmp_path / "counters"))
    loaded = ag.load(str(tmp_path / "counters"))
    _same(loaded(X32, N), counters(X32, N))


def mixed_in_a_branch(x, n):
    lst = []
    for i in range(n):
        if x[i] > 0:
            lst.append(float(x[i]))
        else:
            lst.append(x[i])
    return lst[0] * x


def mixed_in_the_loop(x, n):
    lst = []
    for i in range(n):
        lst.append(float(x[i]))
        lst.append(x[i])
    total = x * 0
    for v in lst:
        total = total + v
    return total


@pytest.mark.parametrize("fn", [mixed_in_a_branch, mixed_in_the_loop])
def test_a_list_mixed_in_a_branch_or_loop_is_refused(fn):
    # (it was read back as numpy values: `lst[0] * x_f32` float64 where a
    # Python float gives float32)
    x = X32.astype(np.float64)
    with pytest.raises(errors.StagingError, match="would hold both Python numbers"):
        ag.function(fn)(x, N)


def int_then_float_literals(x, n):
    ks = []
    for i in range(n):
        ks.append(i)
        ks.append(0.5)
    return ks


def declared_int64_gets_a_float(x, n):
    ks = []
    ag.set_element_type(ks, np.int64, ())
    for _ in range(n):
        ks.append(0.5)
    return ks


def bools_then_an_int(x, n):
    flags = []
    for i in range(n):
        flags.append(x[i] > 0)
        flags.append(2)
    return flags


def declared_float32_gets_a_half(x, n):
    halves = []
    ag.set_element_type(halves, np.float32, ())
    for i in range(n):
        halves.append(x[i])
        halves.append(0.5)  # (exact in float32, but a Python float in Python's list)
    return halves


def declared_float32_gets_a_tenth(x, n):
    hist = []
    ag.set_element_type(hist, np.float32, ())
    for _ in range(n):
        hist.append(0.1)
    return hist


@pytest.mark.parametrize("fn, literal, stored", [
    (int_then_float_literals, "float 0.5", "int64"),
    (declared_int64_gets_a_float, "float 0.5", "int64"),
    (bools_then_an_int, "int 2", "bool"),
    (declared_float32_gets_a_tenth, "float 0.1", "float32"),
    (declared_float32_gets_a_half, "float 0.5", "float32"),
], ids=lambda v: getattr(v, "__name__", None))
def test_a_literal_the_list_would_store_changed_is_refused(fn, literal, stored):
    # (they were cast into the list's dtype: 0.5 became 0, 2 became True)
    with pytest.raises(errors.StagingError) as caught:
        ag.function(fn)(X32, N)
    message = str(caught.value)
    assert f"the Python {literal} is appended at {__file__}:" in message
    assert f"to a staged list of {stored}" in message


def literals_of_the_lists_type(x, n):
    ints, floats, flags = [], [], []
    for i in range(n):
        ints.append(i)
        ints.append(7)
        floats.append(float(x[i]))
        floats.append(0.25)
        floats.append(math.nan)
        flags.append(i > 0)  # (a Python bool, as True is: one kind)
        flags.append(True)
    return ints, floats, flags


def test_literals_of_the_lists_type_are_appended_as_they_are():
    staged, expected = ag.function(literals_of_the_lists_type)(X32, N), \
        literals_of_the_lists_type(X32, N)
    assert staged[0] == expected[0] and all(type(v) is int for v in staged[0])
    assert [repr(v) for v in staged[1]] == [repr(v) for v in expected[1]]  # (nan too)
    assert staged[2] == expected[2] and all(type(v) is bool for v in staged[2])


def declared_int32_gets_python_ints(x, n):
    big = []
    ag.set_element_type(big, np.int32, ())
    for _ in range(n):
        big.append(2000000000)
    return big[0] + big[1]  # (Python: 4000000000; int32 would wrap)


def test_a_literal_into_a_list_declared_narrower_is_refused():
    with pytest.raises(errors.StagingError, match=r"the Python int 2000000000 is appended "
                       r"at .* to a staged list of int32"):
        ag.function(declared_int32_gets_python_ints)(X32, N)
