"""In-place operators outside a staged `if`/loop under `jax.jit`: aliases,
views, arguments and outside arrays (autograph/backends/jax.py, "in-place
operators").

A tracer is a value: `y += 1` rebinds `y`, and `w -= t` on a numpy array `w`
rebinds `w` too, where Python changes the numpy array under every name that
holds it.  Where another holder would see the change (another variable, a
container item, a view, the caller, a global, an object that outlives the
call) the change is refused with a catalog error naming it; where none does,
the result is Python's, with numpy's in-place dtype and shape rules.  Every
case is compared with the same function run as plain Python on numpy arrays.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import jitted, line_of  # noqa: E402


W = np.ones(3)
x3 = np.array([1.0, 2.0, 3.0])


@pytest.fixture(autouse=True)
def _fresh_global():
    W[:] = 1.0
    yield
    W[:] = 1.0


# --- refused: another holder would see the change ---------------------------------

def global_alias(x):
    w = W
    w -= x
    return W.sum()


def closure_alias():
    held = np.ones(3)

    def f(x):
        w = held
        w -= x
        return held.sum()
    return f, held


def view_of_argument(x):
    y = x[1:]
    y += 1
    return x


def row_of_argument(x, i):
    row = x[i]
    row *= 2
    return x


def rows_of_argument(x):
    for row in x:
        row += 1
    return x


def listed_then_changed(x):
    y = x * 2
    lst = [y]
    y += 1
    return lst[0]


def alias_of_argument(a):
    b = a
    b += 1
    return a


def alias_of_fresh(a):
    a = a * 1
    b = a
    b += 1
    return a


def view_of_fresh(a):
    y = a * 1
    v = y[1:]
    v += 1
    return y


def view_taken_before(x):
    y = x * 1
    z = y.T
    y += 1
    return z


def reshaped_view(x):
    y = x * 1
    z = y.reshape(3, 1)
    z *= 2
    return y


def argument_changed(x):
    x += 1
    return x


def helper_changes_callers_array(x):
    def helper(w):
        w += 1
        return None
    y = x * 2
    helper(y)
    return y


class Model:
    def __init__(self):
        self.w = np.ones(3)

    def step(self, g):
        self.w -= 0.1 * g
        return self.w.sum()

    def step_if(self, g, c):
        if c > 0:
            self.w -= 0.1 * g
        return self.w.sum()

    def step_for(self, g, n):
        for _ in range(n):
            self.w -= 0.1 * g
        return self.w.sum()


STATE = {"w": np.ones(3)}


def dict_entry(g):
    STATE["w"] += g
    return STATE["w"].sum()


def view_then_changed_in_if(x, n):
    y = x * 1
    v = y[:2]
    if n > 0:
        y += 1
    return v


def argument_changed_in_if(x, n):
    if n > 0:
        x += 1
    return x


def alias_changed_in_for(x, n):
    b = x * 1
    a = b
    for _ in range(n):
        b += 1
    return a


def view_changed_in_while(x, n):
    y = x * 1
    i = 0
    while i < n:
        r = y[0]
        r += 1
        i += 1
    return y


def _refusal(fn, args, changed, symbol, holder, relation_text, line_text, where=None):
    """Plain Python, then jax.jit: refused with the catalog message naming
    `changed`, its line and `holder`; the refusal changed no outside array."""
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(fn)(*args)
    message = str(raised.value)
    location = line_of(where or fn, line_text)
    assert message.startswith(f"`{changed} {symbol} ...` at {location} changes `{changed}` "
                              f"in place, and ")
    assert re.search(re.escape(relation_text), message), message
    assert re.search(re.escape(f"`{changed} = {changed} {symbol[:-1]} ...`"), message)
    assert holder in message
    return message


def _python_changes(fn, args):
    """Plain Python's result, and which arguments it changed (the case is real)."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*copies)
    return [not np.array_equal(a, c) for a, c in zip(args, copies)
            if isinstance(a, np.ndarray)]


CASES = [  # fn, args, changed, symbol, holder, relation, line
    (global_alias, (x3,), "w", "-=", "`W`", "holds the same array", "w -= x"),
    (view_of_argument, (x3,), "y", "+=", "`x`", "`y` is a numpy view of `x`", "y += 1"),
    (row_of_argument, (np.ones((2, 3)), 1), "row", "*=", "`x`", "`row` is a numpy view of `x`",
     "row *= 2"),
    (rows_of_argument, (np.ones((2, 3)),), "row", "+=", "`x`", "`row` is a numpy view of `x`",
     "row += 1"),
    (listed_then_changed, (x3,), "y", "+=", "`lst[0]`", "holds the same array", "y += 1"),
    (alias_of_argument, (x3,), "b", "+=", "`a`", "holds the same array", "b += 1"),
    (alias_of_fresh, (x3,), "b", "+=", "`a`", "holds the same array", "b += 1"),
    (view_of_fresh, (x3,), "v", "+=", "`y`", "`v` is a numpy view of `y`", "v += 1"),
    (view_taken_before, (np.ones((2, 3)),), "y", "+=", "`z`",
     "is a numpy view of `y`, taken before", "y += 1"),
    (reshaped_view, (x3,), "z", "*=", "`y`", "`z` is a numpy view of `y`", "z *= 2"),
    (argument_changed, (x3,), "x", "+=", "the caller's array",
     "`x` holds the caller's array", "x += 1"),
    (dict_entry, (x3,), "STATE['w']", "+=", "STATE['w']",
     "belongs to an object the traced code did not make", "STATE[\"w\"] += g"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0].__name__ for c in CASES])
def test_in_place_change_another_holder_sees_is_refused(case):
    fn, args, changed, symbol, holder, relation, line = case
    before = STATE["w"].copy()
    _refusal(fn, args, changed, symbol, holder, relation, line)
    assert np.all(W == 1.0) and np.array_equal(STATE["w"], before)  # nothing changed


def test_refused_cases_differ_from_rebinding_in_python():
    # plain Python: the other holder sees the change, so the result rebinding
    # gives (jax.numpy's meaning, `y = y + 1`, what jax.jit gave before) is wrong
    assert global_alias(x3) == (1.0 - x3).sum() != W.size
    a = x3.copy()
    assert np.array_equal(view_of_argument(a), [1.0, 3.0, 4.0]) and a[1] == 3.0
    assert np.array_equal(alias_of_fresh(x3), x3 + 1)
    assert np.array_equal(listed_then_changed(x3), x3 * 2 + 1)
    rows = np.ones((2, 3))
    assert np.array_equal(rows_of_argument(rows), np.full((2, 3), 2.0))
    assert np.array_equal(view_taken_before(np.ones((2, 3))), np.full((3, 2), 2.0))
    b = x3.copy()
    argument_changed(b)
    assert np.array_equal(b, x3 + 1)  # the caller's array


def test_closure_array_changed_through_an_alias_is_refused():
    f, held = closure_alias()
    _refusal(f, (x3,), "w", "-=", "`held`", "holds the same array", "w -= x",
             where=closure_alias)
    assert np.all(held == 1.0)


def test_helper_changing_its_callers_array_is_refused():
    _refusal(helper_changes_callers_array, (x3,), "w", "+=", "`y`", "holds the same array",
             "w += 1")
    assert np.array_equal(helper_changes_callers_array(x3), x3 * 2 + 1)  # Python


def test_attribute_of_an_object_outside_is_refused():
    step = Model().step  # (only the bound method holds the model)
    _refusal(step, (x3,), "self.w", "-=", "self.w",
             "belongs to an object the traced code did not make", "self.w -= 0.1 * g",
             where=Model.step)
    assert np.all(step.__self__.w == 1.0)  # no tracer stored in the model
    m = Model()  # held by a variable too: that holder is named
    _refusal(m.step, (x3,), "self.w", "-=", "`m.w`", "holds the same array",
             "self.w -= 0.1 * g", where=Model.step)
    assert np.all(m.w == 1.0)
    expected = Model()
    assert expected.step(x3) == (1.0 - 0.1 * x3).sum()  # Python changes the model's array


@pytest.mark.parametrize("method, args, statement", [
    ("step_if", (x3, 1), "`if`"), ("step_for", (x3, 2), "`for` loop")])
def test_attribute_of_an_object_outside_changed_in_a_staged_statement_is_refused(
        method, args, statement):
    m = Model()
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(getattr(m, method))(*args)
    message = str(raised.value)
    assert message.startswith("`self.w` is changed in place (an in-place operator such as "
                              f"`+=`, an item assignment or `out=`) inside the staged {statement}")
    assert "also held by `m.w`" in message
    assert np.all(m.w == 1.0)


@pytest.mark.parametrize("fn, args, name, holder, statement", [
    (view_then_changed_in_if, (x3, 1), "y", "`v`", "`if`"),
    (argument_changed_in_if, (x3, 1), "x", "the caller's array", "`if`"),
    (alias_changed_in_for, (x3, 2), "b", "`a`", "`for` loop"),
])
def test_traced_state_held_elsewhere_changed_in_a_staged_statement_is_refused(
        fn, args, name, holder, statement):
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(fn)(*args)
    message = str(raised.value)
    assert message.startswith(
        f"`{name}` is changed in place (an in-place operator such as `+=`, an item assignment "
        f"or `out=`) inside the staged {statement} at ")
    assert f"also held by {holder} (" in message
    if holder == "the caller's array":
        assert message.endswith("and return it (the caller rebinds its variable).")


def test_view_changed_in_a_staged_loop_body_is_refused():
    _refusal(view_changed_in_while, (np.ones((2, 3)), 2), "r", "+=", "`y`",
             "`r` is a numpy view of `y`", "r += 1")


# --- exact: nobody else holds the array ---------------------------------------------

def fresh_traced(x):
    y = x * 2
    y += 1
    y *= x
    return y


def narrower_dtype(x):
    y = x.astype(np.float32)
    y += x
    return y


def fresh_numpy_float32(x):
    acc = np.zeros(3, np.float32)
    acc += x
    return acc


def fresh_numpy_int(x):
    acc = np.zeros(3, np.int32)
    acc += (x > 1)
    return acc


def scalar_alias(x):
    s = x.sum()
    t = s
    s += 1
    return t, s


def fancy_index_copy(x):
    y = x * 1
    z = y[np.array([0, 1])]
    z += 1
    return y, z


@pytest.mark.parametrize("fn", [fresh_traced, narrower_dtype, fresh_numpy_float32,
                                fresh_numpy_int, scalar_alias, fancy_index_copy])
def test_unshared_in_place_change_matches_python(fn):
    expected = fn(x3.copy())
    got = jitted(fn)(x3)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        g = np.asarray(g)
        np.testing.assert_array_equal(g, e)
        assert g.dtype == np.asarray(e).dtype


def int_plus_float(x):
    y = (x * 2).astype(np.int64)
    y += x
    return y


def numpy_int_plus_float(x):
    acc = np.zeros(3, np.int64)
    acc += x
    return acc


def growing(x):
    acc = np.zeros(3)
    acc += np.ones((2, 1)) * x
    return acc


@pytest.mark.parametrize("fn, name, symbol, result, dtype", [
    (int_plus_float, "y", "+=", "float64", "int64"),
    (numpy_int_plus_float, "acc", "+=", "float64", "int64")])
def test_in_place_cast_numpy_refuses_is_refused(fn, name, symbol, result, dtype):
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        fn(x3)  # plain Python: numpy's UFuncTypeError
    with pytest.raises(errors.GraphTypeError, match=re.escape(
            f"{symbol} at {line_of(fn, f'{name} +=')}: numpy cannot cast the result ({result}) "
            f"into `{name}` ({dtype}) with casting rule 'same_kind'; write "
            f"`{name} = {name} + ...` for a new array")):
        jitted(fn)(x3)


def test_in_place_result_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="non-broadcastable output"):
        growing(x3)
    with pytest.raises(errors.GraphValueError, match=re.escape(
            f"+= at {line_of(growing, 'acc +=')}: the result has shape (2, 3), `acc` has (3,): "
            "numpy cannot write it into the array in place (non-broadcastable output operand)")):
        jitted(growing)(x3)


def test_code_autograph_did_not_convert_keeps_jax_operators():
    @ag.do_not_convert
    def plain(a):
        b = a
        b += 1
        return a

    def f(x):
        return plain(x)
    np.testing.assert_array_equal(np.asarray(jitted(f)(x3)), x3)  # JAX's own meaning there


@pytest.mark.parametrize("method, args, statement", [
    ("step_if", (x3, 1), "`if`"), ("step_for", (x3, 2), "`for` loop")])
def test_attribute_of_an_object_only_the_method_holds_changed_in_a_staged_statement_is_refused(
        method, args, statement):
    step = getattr(Model(), method)  # (no variable holds the model: it outlives the call)
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(step)(*args)
    message = str(raised.value)
    assert message.startswith("`self.w` is changed in place (an in-place operator such as "
                              f"`+=`, an item assignment or `out=`) inside the staged {statement}")
    assert "also held by `self.w` (in " in message
    assert np.all(step.__self__.w == 1.0)  # no tracer stored in the model
    python = getattr(Model(), method)
    assert python(*args) != 3.0  # Python changes the model's array


def nested_argument(params):
    w = params["layers"][0]
    params = None
    w -= 1.0
    return w


def test_array_of_a_nested_argument_changed_in_place_is_refused():
    params = {"layers": [np.ones(3), np.ones(2)]}
    _refusal(nested_argument, (params,), "w", "-=", "the caller's array",
             "`w` holds the caller's array (an argument of nested_argument at", "w -= 1.0")
    plain = {"layers": [np.ones(3), np.ones(2)]}
    nested_argument(plain)
    assert np.all(plain["layers"][0] == 0.0)  # Python changes the caller's array


# --- JAX gives some new arrays back as the traced operand itself --------------------
# (`x.astype(x.dtype)`, `+x`, `jnp.asarray(x)`): in Python they are new arrays, so
# changing them in place is not refused; np.asarray(x) and a reshape are x (or a
# view of it) in numpy, so changing those is.

def astype_same_dtype(x):
    y = x.astype(np.float64)
    y += 1
    return x, y


def unary_plus(x):
    y = +x
    y *= 2
    return x, y


def jnp_asarray(x):
    y = jnp.asarray(x)
    y += 1
    return x, y


def jnp_asarray_rebinding_the_argument(x):
    x = jnp.asarray(x)
    x += 1
    return x


def copy_then_alias(x):
    y = x.astype(np.float64)
    z = y
    y += 1
    return z


def numpy_asarray(x):
    y = np.asarray(x)
    y += 1
    return x


def reshape_same_shape(x):
    y = x.reshape(3)
    y += 1
    return x


jnp = pytest.importorskip("jax.numpy")


@pytest.mark.parametrize("fn", [astype_same_dtype, unary_plus, jnp_asarray,
                                jnp_asarray_rebinding_the_argument])
def test_new_array_jax_gives_back_as_its_operand_is_not_refused(fn):
    a = x3.copy()
    expected = fn(a)
    assert np.array_equal(a, x3)  # Python changed a new array, not the argument
    got = jitted(fn)(x3)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


@pytest.mark.parametrize("fn, holder, line", [
    (copy_then_alias, "`z`", "y += 1"), (numpy_asarray, "`x`", "y += 1"),
    (reshape_same_shape, "`x`", "y += 1")])
def test_same_array_after_a_call_that_keeps_it_is_refused(fn, holder, line):
    _refusal(fn, (x3,), "y", "+=", holder, "holds the same array", line)
    a = x3.copy()
    assert not np.array_equal(np.asarray(fn(a)), x3)  # Python: the holder sees the change


def item_of_a_traced_array(x):
    y = x * 1
    y[0] += 1
    return y


def test_in_place_item_of_a_traced_array_is_refused_naming_the_at_update():
    np.testing.assert_array_equal(item_of_a_traced_array(np.ones((2, 3)))[0], 2.0)  # Python
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            errors.traced_item_assignment_message(
                "y[0] += 1", "y", "y = y.at[0].add(1)",
                line_of(item_of_a_traced_array, "y[0] += 1")))):
        jitted(item_of_a_traced_array)(np.ones((2, 3)))


class Box:
    pass


def local_dict_entry(x):
    d = {"w": x * 1}
    d["w"] += 1
    return d["w"]


def local_object_attribute(x):
    b = Box()
    b.w = x * 2
    b.w -= x
    return b.w


def local_list_of_fresh_arrays(x):
    ws = [x * 1, x * 2]
    for w in ws:
        w *= 3
    return ws[0] + ws[1]


@pytest.mark.parametrize("fn", [local_dict_entry, local_object_attribute])
def test_part_of_an_object_the_function_made_matches_python(fn):
    np.testing.assert_array_equal(np.asarray(jitted(fn)(x3)), fn(x3.copy()))


def test_python_loop_over_a_list_of_arrays_changed_in_place_is_refused():
    # Python changes the list's arrays through `w`; a rebinding would not
    assert np.array_equal(local_list_of_fresh_arrays(x3), x3 * 9)
    _refusal(local_list_of_fresh_arrays, (x3,), "w", "*=", "`ws[0]`", "holds the same array",
             "w *= 3")
