"""In-place numpy changes of arrays held by attributes, items, globals and
closures inside a staged `if` or loop (issue 8).

Two mechanisms meet here:

- A global object (`box.w += 1` with `box` a global) is not state of the
  staged statement: the body runs `box.w += 1` as plain Python, so numpy
  would change the array once, while tracing, where Python changes it on
  every iteration (a silently wrong value before).  runtime/staging.py makes
  the arrays the traced code reads (its globals and closure cells, and the
  items and attributes they hold) read-only while a staged body is traced,
  and the change is refused, naming the holder as the user spells it and
  the line.
- An attribute of a local object (`b = Box(); b.w = ...; b.w += 1`) is
  carried as state through a generated local: it runs (and matches Python)
  when nobody else holds the array, and a refusal that remains (another
  variable holds the array) names `b.w`, not the generated local.

Each program runs as plain Python, under `ag.function` and under
`jax.jit(ag.to_graph(...))`.
"""

import re

import numpy as np
import pytest

import autograph as ag

N = np.int64(2)
FILE = r"\S*test_inplace_attributes\.py"


class Box:
    pass


def _line_of(fn, text):
    """The file line of the first line of `fn`'s source containing `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _refused(run, fn, holder, text):
    """`run` raises InPlaceChangeError naming `holder` (as the user spells it)
    and the line of `fn` holding `text`."""
    with pytest.raises(ag.errors.InPlaceChangeError) as info:
        run()
    message = str(info.value)
    assert f"`{holder}" in message, message
    assert re.search(rf"{FILE}:{_line_of(fn, text)}\b", message), message
    assert "_w`" not in message and "object>" not in message, message


def _jax():
    return pytest.importorskip("jax")


# --- 1. a global's attribute, changed in place in a staged loop / if -------------------

W = np.zeros(3)
box = Box()
box.w = W


def global_attribute_loop(n):
    i = 0
    while i < n:
        box.w += 1.0
        i += 1
    return box.w


def global_attribute_if(x):
    if x > 0:
        box.w += 1.0
    return box.w


@pytest.fixture
def fresh_box():
    W[:] = 0
    box.w = W
    yield
    W[:] = 0
    box.w = W


def test_plain_python_changes_the_global_array_every_iteration(fresh_box):
    np.testing.assert_array_equal(global_attribute_loop(2), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(W, [2.0, 2.0, 2.0])
    assert box.w is W


def test_graph_refuses_global_attribute_changed_in_staged_loop(fresh_box):
    _refused(lambda: ag.function(global_attribute_loop)(N),
             global_attribute_loop, "box.w", "box.w += 1.0")
    np.testing.assert_array_equal(W, [0.0, 0.0, 0.0])  # (not changed once, while tracing)
    assert W.flags.writeable  # (read-only only while the body was traced)


def test_graph_refuses_global_attribute_changed_in_staged_if(fresh_box):
    _refused(lambda: ag.function(global_attribute_if)(np.float64(1.0)),
             global_attribute_if, "box.w", "box.w += 1.0")
    np.testing.assert_array_equal(W, [0.0, 0.0, 0.0])


def test_jax_refuses_global_attribute_changed_in_staged_loop(fresh_box):
    jax = _jax()
    _refused(lambda: jax.jit(ag.to_graph(global_attribute_loop))(2),
             global_attribute_loop, "box.w", "box.w += 1.0")
    _refused(lambda: jax.jit(ag.to_graph(global_attribute_if))(1.0),
             global_attribute_if, "box.w", "box.w += 1.0")
    np.testing.assert_array_equal(W, [0.0, 0.0, 0.0])


def test_python_loop_on_global_attribute_still_runs(fresh_box):
    """A loop with a Python bound runs in Python: the change is Python's."""
    def python_loop(x):
        for _ in range(2):
            box.w += 1.0
        return box.w + x

    np.testing.assert_array_equal(ag.function(python_loop)(np.zeros(3)), [2.0, 2.0, 2.0])


# --- a global list item, a global array, a closure's object ---------------------------

LAYERS = [np.zeros(3)]
TABLE = {"w": np.zeros(3)}
NESTED = Box()
NESTED.inner = Box()
NESTED.inner.w = np.zeros(3)


def global_list_item(n):
    i = 0
    while i < n:
        LAYERS[0] += 1.0
        i += 1
    return LAYERS[0]


def global_dict_item(x):
    if x > 0:
        TABLE["w"][0] = 5.0
    return TABLE["w"]


def nested_attribute(n):
    i = 0
    while i < n:
        NESTED.inner.w += 1.0
        i += 1
    return NESTED.inner.w


def make_closure():
    c = Box()
    c.w = np.zeros(3)

    def closure_attribute(n):
        i = 0
        while i < n:
            c.w += 1.0
            i += 1
        return c.w
    return closure_attribute, c


@pytest.mark.parametrize("fn, holder, text", [
    (global_list_item, "LAYERS[0]", "LAYERS[0] += 1.0"),
    (nested_attribute, "NESTED.inner.w", "NESTED.inner.w += 1.0"),
])
def test_graph_and_jax_refuse_other_global_holders(fn, holder, text):
    before = [LAYERS[0].copy(), NESTED.inner.w.copy()]
    _refused(lambda: ag.function(fn)(N), fn, holder, text)
    jax = _jax()
    _refused(lambda: jax.jit(ag.to_graph(fn))(2), fn, holder, text)
    np.testing.assert_array_equal(LAYERS[0], before[0])
    np.testing.assert_array_equal(NESTED.inner.w, before[1])


def test_global_dict_item_assignment_in_staged_if_is_refused():
    _refused(lambda: ag.function(global_dict_item)(np.float64(1.0)),
             global_dict_item, "TABLE['w']", 'TABLE["w"][0] = 5.0')
    np.testing.assert_array_equal(TABLE["w"], [0.0, 0.0, 0.0])


def test_closure_object_attribute_refused_in_graph_and_jax():
    fn, c = make_closure()
    np.testing.assert_array_equal(fn(2), [2.0, 2.0, 2.0])  # plain Python
    c.w = np.zeros(3)
    _refused(lambda: ag.function(fn)(N), fn, "c.w", "c.w += 1.0")
    jax = _jax()
    _refused(lambda: jax.jit(ag.to_graph(fn))(2), fn, "c.w", "c.w += 1.0")
    np.testing.assert_array_equal(c.w, [0.0, 0.0, 0.0])


# --- 2. a local object's attribute, carried as state ----------------------------------


def local_attribute_loop(n):
    b = Box()
    b.w = np.zeros(3)
    i = 0
    while i < n:
        b.w += 1
        i += 1
    return b.w


def local_attribute_if(x):
    b = Box()
    b.w = np.zeros(3)
    if x > 0:
        b.w += 1
    else:
        b.w -= 1
    return b.w


def local_dict_item_loop(n):
    d = {"w": np.zeros(3)}
    i = 0
    while i < n:
        d["w"] += 1
        i += 1
    return d["w"]


@pytest.mark.parametrize("fn, arg, expected", [
    (local_attribute_loop, 2, [2.0, 2.0, 2.0]),
    (local_attribute_loop, 0, [0.0, 0.0, 0.0]),
    (local_attribute_if, 1.0, [1.0, 1.0, 1.0]),
    (local_attribute_if, -1.0, [-1.0, -1.0, -1.0]),
    (local_dict_item_loop, 3, [3.0, 3.0, 3.0]),
])
def test_local_part_changed_in_place_runs_as_python(fn, arg, expected):
    np.testing.assert_array_equal(fn(arg), expected)  # plain Python
    np.testing.assert_array_equal(ag.function(fn)(np.asarray(arg)), expected)
    jax = _jax()
    np.testing.assert_allclose(np.asarray(jax.jit(ag.to_graph(fn))(arg)), expected)


def local_attribute_also_held(n):
    b = Box()
    b.w = np.zeros(3)
    z = b.w
    i = 0
    while i < n:
        b.w += 1
        i += 1
    return b.w + z


def test_local_part_held_by_another_variable_is_refused_naming_the_part():
    np.testing.assert_array_equal(local_attribute_also_held(2), [4.0, 4.0, 4.0])
    with pytest.raises(ag.errors.InPlaceChangeError) as info:
        ag.function(local_attribute_also_held)(N)
    message = str(info.value)
    assert "`b.w += ...`" in message and "`z`" in message, message
    assert re.search(rf"{FILE}:{_line_of(local_attribute_also_held, 'b.w += 1')}\b",
                     message), message
    assert "b_w" not in message and "object>" not in message, message


def test_jax_local_part_held_by_another_variable_is_refused_naming_the_part():
    jax = _jax()
    with pytest.raises(ag.errors.InPlaceChangeError) as info:
        jax.jit(ag.to_graph(local_attribute_also_held))(2)
    message = str(info.value)
    assert "`b.w`" in message and "b_w" not in message, message
    assert re.search(rf"{FILE}:\d+", message), message


def argument_attribute_loop(b, n):
    i = 0
    while i < n:
        b.w += 1
        i += 1
    return b.w


def test_part_of_an_object_from_outside_stays_refused():
    """The caller's object keeps its array in Python (changed in place); the
    graph would rebind `b.w` to a new value: still refused, naming `b.w`."""
    b = Box()
    b.w = np.zeros(3)
    with pytest.raises(ag.errors.InPlaceChangeError) as info:
        ag.function(argument_attribute_loop)(b, N)
    message = str(info.value)
    assert "`b.w += ...`" in message and "b_w" not in message, message
    assert re.search(rf"{FILE}:{_line_of(argument_attribute_loop, 'b.w += 1')}\b",
                     message), message
    assert type(b.w) is np.ndarray
    np.testing.assert_array_equal(b.w, np.zeros(3))
