"""In-place operators on a numpy array someone else holds, under `jax.jit`.

Python changes such an array in place (`w = W; while ...: w += 1` changes
the global `W`); a JAX tracer's `+=` rebinds `w` alone.  The converters name
the state a staged `if`/loop body changes in place (`inplace=`) and the
runtime refuses it when its numpy array on entry has another holder
(control_flow.refuse_held_in_place); the graph engine refuses the same
programs by itself (graph/tensor.py), so it gets no second check.  A fresh
array changed in place works and matches Python.
"""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)

W = np.zeros(3)


@pytest.fixture(autouse=True)
def _fresh_global():
    W[:] = 0.0
    yield
    W[:] = 0.0


# --- a global -------------------------------------------------------------------

def global_while(n):
    w = W
    i = 0
    while i < n:
        w += 1.0
        i += 1
    return w


def global_for(n):
    w = W
    for _ in range(n):
        w -= 1.0
    return w


def global_if(n):
    w = W
    if n > 0:
        w *= 2.0
        w += 1.0
    return w


def global_item_assignment(n):
    w = W
    i = 0
    while i < n:
        w[0] = 5.0
        w = w + 1.0
        i += 1
    return w


def global_view(n):
    w = W[:2]
    i = 0
    while i < n:
        w += 1.0
        i += 1
    return w


# --- an argument of a converted function, held by its caller --------------------

def add_in_while(w, n):
    i = 0
    while i < n:
        w += 1.0
        i += 1
    return w


def add_in_for(w, n):
    for _ in range(n):
        w += 1.0
    return w


def add_in_if(w, n):
    if n > 0:
        w += 1.0
    return w


def argument_while(n):
    a = np.zeros(3)
    add_in_while(a, n)
    return a


def argument_for(n):
    a = np.zeros(3)
    add_in_for(a, n)
    return a


def argument_if(n):
    a = np.zeros(3)
    add_in_if(a, n)
    return a


# --- another variable, a container item -------------------------------------------

def alias_while(n):
    w = np.zeros(3)
    keep = w
    i = 0
    while i < n:
        w += 1.0
        i += 1
    return keep


def alias_for(n):
    w = np.zeros(3)
    keep = w
    for _ in range(n):
        w += 1.0
    return keep


def alias_if(n):
    w = np.zeros(3)
    keep = w
    if n > 0:
        w += 1.0
    return keep


def item_while(n):
    d = {"w": np.zeros(3)}
    w = d["w"]
    i = 0
    while i < n:
        w += 1.0
        i += 1
    return d["w"]


def item_for(n):
    box = [np.zeros(3)]
    w = box[0]
    for _ in range(n):
        w += 1.0
    return box[0]


def item_if(n):
    d = {"w": np.zeros(3)}
    w = d["w"]
    if n > 0:
        w += 1.0
    else:
        w -= 1.0
    return d["w"]


class Box:
    pass


def attribute_while(n):
    b = Box()
    b.w = W
    i = 0
    while i < n:
        b.w += 1.0
        i += 1
    return b.w


def dict_item_if(n):
    d = {"w": W}
    if n > 0:
        d["w"] += 1.0
    return d["w"]


def attribute_alone(n):
    b = Box()
    b.w = np.zeros(3)
    i = 0
    while i < n:
        b.w += 1.0
        i += 1
    return b.w


@pytest.mark.parametrize("f, part, statement", [
    (attribute_while, "b.w", "while"), (dict_item_if, "d['w']", "if")])
def test_item_or_attribute_state_holding_a_held_array_is_refused_under_jax(f, part, statement):
    with pytest.raises(errors.InPlaceChangeError) as raised:
        _jit(f)(2)
    assert f"`{part}` is changed in place" in str(raised.value)
    assert "by `W`" in str(raised.value)
    assert np.all(W == 0.0)


def test_attribute_state_holding_its_own_array_matches_python():
    np.testing.assert_array_equal(np.asarray(_jit(attribute_alone)(3)), attribute_alone(3))


HELD = [
    (global_while, "W", "while"), (global_for, "W", "for"), (global_if, "W", "if"),
    (global_item_assignment, "W", "while"), (global_view, "W", "while"),
    (argument_while, "a", "while"), (argument_for, "a", "for"), (argument_if, "a", "if"),
    (alias_while, "keep", "while"), (alias_for, "keep", "for"), (alias_if, "keep", "if"),
    (item_while, "d['w']", "while"), (item_for, "box[0]", "for"), (item_if, "d['w']", "if"),
]


def _jit(f):
    return jax.jit(ag.to_graph(f))


@pytest.mark.parametrize("f, holder, statement", HELD, ids=[c[0].__name__ for c in HELD])
def test_held_array_changed_in_place_is_refused_under_jax(f, holder, statement):
    with pytest.raises(errors.InPlaceChangeError) as raised:
        _jit(f)(2)
    message = str(raised.value)
    assert f"by `{holder}`" in message
    assert f"staged `{statement}`" in message
    assert "test_inplace_held.py:" in message
    assert ".copy()" in message  # the fix
    assert np.all(W == 0.0)  # the refusal changed nothing


@pytest.mark.parametrize("f, holder, statement", HELD, ids=[c[0].__name__ for c in HELD])
def test_converted_code_on_plain_values_is_python(f, holder, statement):
    expected = f(2)
    expected_w = W.copy()
    W[:] = 0.0
    got = ag.to_graph(f)(2)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(W, expected_w)
    if f in (global_while, global_for, global_if):
        assert got is W  # changed in place and returned itself, as in Python
        assert np.any(W != 0.0)


@pytest.mark.parametrize("f, holder, statement", HELD, ids=[c[0].__name__ for c in HELD])
def test_graph_engine_refuses_by_itself(f, holder, statement):
    # (a graph tensor refuses item assignment whoever holds it)
    refusal = errors.TensorUsageError if f is global_item_assignment else \
        errors.InPlaceChangeError
    with pytest.raises(refusal) as raised:
        ag.function(f)(np.int64(2))
    message = str(raised.value)
    # the graph engine's own message (graph/tensor.py), not the runtime's check
    assert "is changed in place (an in-place operator" not in message
    assert np.all(W == 0.0)


# --- fresh arrays: changed in place, held by no one else ---------------------------

def fresh_while(x, n):
    acc = np.zeros(3)
    i = 0
    while i < n:
        acc += x
        i += 1
    return acc


def fresh_for(x, n):
    acc = np.ones(3)
    for _ in range(n):
        acc *= x
    return acc


def fresh_if(x, n):
    acc = np.zeros(3)
    if n > 1:
        acc += x
    else:
        acc -= x
    return acc


def fresh_view(x, n):
    acc = np.zeros(6).reshape(2, 3)
    i = 0
    while i < n:
        acc += x
        i += 1
    return acc


def fresh_copy_of_global(x, n):
    w = W.copy()
    i = 0
    while i < n:
        w += x
        i += 1
    return w


def counter_in_place(x, n):
    total = x * 0.0
    count = 0
    while count < n:
        total += x
        count += 1
    return total, count


FRESH = [fresh_while, fresh_for, fresh_if, fresh_view, fresh_copy_of_global, counter_in_place]


@pytest.mark.parametrize("f", FRESH, ids=[f.__name__ for f in FRESH])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_fresh_array_changed_in_place_matches_python(f, n):
    x = np.array([1.0, 2.0, 3.0])
    expected = f(x, n)
    got = _jit(f)(x, n)
    if isinstance(expected, tuple):
        for a, b in zip(got, expected):
            np.testing.assert_allclose(np.asarray(a), b)
    else:
        np.testing.assert_allclose(np.asarray(got), expected)
    assert np.all(W == 0.0)
    np.testing.assert_allclose(ag.to_graph(f)(x, n) if not isinstance(expected, tuple)
                               else ag.to_graph(f)(x, n)[0],
                               expected if not isinstance(expected, tuple) else expected[0])


def test_python_loop_under_jit_changes_the_global_as_python_does():
    # A Python bound: the loop runs in Python while tracing, on the numpy array itself.
    def f(x):
        w = W
        for _ in range(2):
            w += 1.0
        return x + w

    np.testing.assert_allclose(np.asarray(_jit(f)(np.zeros(3))), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(W, [2.0, 2.0, 2.0])


# --- the generated code -------------------------------------------------------------

def test_only_statements_changing_state_in_place_get_the_keyword():
    code = ag.to_code(global_while)
    assert "inplace={'w': 0}" in code
    assert "inplace" not in ag.to_code(counter_in_place).split("total += x")[0]
    assert "inplace={'total': 0}" in ag.to_code(counter_in_place)  # not `count`
    assert "inplace" not in ag.to_code(global_item_assignment).split("while_stmt")[0]
    assert "inplace={'w': 0}" in ag.to_code(global_item_assignment)
