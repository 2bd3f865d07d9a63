"""0-d numpy arrays changed in place under `jax.jit` (autograph/backends/jax.py,
"in-place operators").

A 0-d tracer is a numpy scalar or a Python number in Python, which `s += x`
rebinds (promoting), or a 0-d numpy array, which it changes in place under
every name holding it, keeping its dtype.  Where the backend knows it is a
0-d array -- an argument whose caller passed one, a 0-d numpy array the
function holds (made there, a global), and what changing one in place gives
-- it is an array: a change another holder would see is refused naming the
holder, and the result keeps the array's dtype.  Before, the change rebound
the name: the global kept its old value, a float32 accumulator became
float64, an int array took a float.  Every case is compared with the same
function run as plain Python.
"""

import copy
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import first_line, jitted, line_of, same  # noqa: E402


x2 = np.array([0.5, 2.0])
W0 = np.array(0.0)


@pytest.fixture(autouse=True)
def _fresh_global():
    W0[...] = 0.0
    yield
    W0[...] = 0.0


# --- kept as arrays: the result is Python's, dtype included ------------------------------

def float32_in_place(x):
    w = np.array(1.0, np.float32)
    w += x[0]
    w *= x[1]
    return w


def float32_accumulated_in_loop(x):
    w = np.zeros((), np.float32)
    for v in x:
        w += v
    return w


def float32_in_a_branch(x):
    w = np.zeros((), np.float32)
    if x[0] > 0:
        w += x[0]
    return w


def float32_in_a_while(x):
    w = np.ones((), np.float32)
    while w < 10:
        w *= x[1]
    return w


def counted_in_int32(x):
    w = np.zeros((), np.int32)
    for v in x:
        if v > 0:
            w += 1
    return w


@pytest.mark.parametrize("fn", [float32_in_place, float32_accumulated_in_loop,
                                float32_in_a_branch, float32_in_a_while, counted_in_int32])
def test_a_zero_d_array_changed_in_place_keeps_its_dtype(fn):
    same(jitted(fn)(x2), fn(x2.copy()))


def int_array_takes_a_float(x):
    w = np.array(1)
    w += x[0]
    return w


def test_a_float_added_in_place_to_an_int_zero_d_array_is_refused_as_numpy_refuses_it():
    with pytest.raises(TypeError, match="Cannot cast ufunc"):  # Python
        int_array_takes_a_float(x2)
    with pytest.raises(errors.GraphTypeError, match=re.escape(errors.in_place_cast_message(
            "w", "+=", np.dtype(np.float64), np.dtype(np.int64),
            line_of(int_array_takes_a_float, "w += x[0]")))):
        jitted(int_array_takes_a_float)(x2)


# --- a scalar is rebound, as Python rebinds it -------------------------------------------

def added_to_argument(s, x):
    s += x[0]
    return s


@pytest.mark.parametrize("s", [1.0, np.float64(1.0), np.float32(1.0), np.int64(1)],
                         ids=["float", "float64", "float32", "int64"])
def test_a_scalar_argument_changed_in_place_is_rebound(s):
    expected = added_to_argument(s, x2)
    got = jitted(added_to_argument)(s, x2)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
    assert np.asarray(got).dtype == np.result_type(expected)


def test_a_jax_array_argument_changed_in_place_is_rebound():
    s = jnp.asarray(1.0)
    same(jitted(added_to_argument)(s, x2), added_to_argument(s, x2))


def copied_then_changed(s, x):
    s = s.copy()
    s += x[0]
    return s


def test_a_copy_of_a_zero_d_argument_is_the_functions_own():
    s = np.array(1.0)
    same(jitted(copied_then_changed)(s, x2), copied_then_changed(s, x2))
    assert s == 1.0


# --- refused: another holder would see the change ----------------------------------------

def global_alias(x):
    w = W0
    w += x[0]
    return W0 * 1


def item_of_an_argument(d, x):
    s = d["s"]
    s += x[0]
    return s


def _argument_refusal(fn, name, line_text, holder="the caller's array"):
    return errors.in_place_traced_message(
        name, f"{name} += ...", line_of(fn, line_text), holder,
        f"an argument of {fn.__name__} at {first_line(fn)}", "argument", "jax")


def test_a_zero_d_array_argument_changed_in_place_is_refused():
    s = np.array(1.0)
    added_to_argument(s, x2)
    assert s == 1.5  # Python: the caller's array changed
    s = np.array(1.0)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            _argument_refusal(added_to_argument, "s", "s += x[0]"))):
        jitted(added_to_argument)(s, x2)
    assert s == 1.0


def test_a_zero_d_global_changed_through_an_alias_is_refused():
    assert global_alias(x2) == 0.5  # Python: the global changed
    W0[...] = 0.0
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(global_alias)(x2)
    assert str(raised.value).startswith(
        f"`w += ...` at {line_of(global_alias, 'w += x[0]')} changes `w` in place, and `W0` (a global")
    assert W0 == 0.0


def test_a_zero_d_array_in_an_argument_dict_changed_in_place_is_refused():
    d = {"s": np.array(1.0)}
    item_of_an_argument(d, x2)
    assert d["s"] == 1.5  # Python: the dict's array changed
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(item_of_an_argument)({"s": np.array(1.0)}, x2)
    assert str(raised.value).startswith(
        f"`s += ...` at {line_of(item_of_an_argument, 's += x[0]')} changes `s` in place, "
        "and `d['s']` (in item_of_an_argument at ")


def accumulated_into_argument(s, x):
    for v in x:
        s += v
    return s


def test_a_zero_d_array_argument_changed_in_a_staged_loop_is_refused():
    s = np.array(1.0)
    accumulated_into_argument(s, x2)
    assert s == 3.5  # Python: the caller's array changed
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(
            errors.in_place_held_state_message(
                "s", "`for` loop", line_of(accumulated_into_argument, "for v in x:"),
                "the caller's array",
                f"an argument of accumulated_into_argument at "
                f"{first_line(accumulated_into_argument)}", "jax"))):
        jitted(accumulated_into_argument)(np.array(1.0), x2)


def test_a_scalar_argument_accumulated_in_a_staged_loop_is_rebound():
    for s in (1.0, np.float64(1.0)):
        got = jitted(accumulated_into_argument)(copy.copy(s), x2)
        assert float(got) == accumulated_into_argument(s, x2)


def changed_through_another_name(s, x):
    t = s
    t += x[0]
    return s


def test_a_zero_d_array_argument_changed_through_another_name_is_refused():
    """(It returned the old `s`: Python returns the changed array.)"""
    assert changed_through_another_name(np.array(1.0), x2) == 1.5  # Python
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(changed_through_another_name)(np.array(1.0), x2)
    assert str(raised.value).startswith(
        f"`t += ...` at {line_of(changed_through_another_name, 't += x[0]')} changes `t` in "
        "place, and `s` (in changed_through_another_name at ")


def test_a_scalar_argument_changed_through_another_name_is_rebound():
    for s in (1.0, np.float64(1.0)):
        got = jitted(changed_through_another_name)(s, x2)
        assert float(got) == changed_through_another_name(s, x2) == 1.0


# --- under jax.grad: the tracer is grad's, not jit's -------------------------------------
# (Eager `jax.grad` holds the caller's array only as the primal of its tracer, a
# view JAX takes of it; `jax.jit(jax.grad(f))` holds jit's tracer there.  The
# change was not refused: the caller's array kept its old value.)

def scaled_argument(s, x):
    s *= 3.0
    return s * x[0]


_GRADS = {"grad": lambda f: jax.grad(f),
          "jit(grad)": lambda f: jax.jit(jax.grad(f)),
          "grad(jit)": lambda f: jax.grad(jax.jit(f)),
          "grad(grad)": lambda f: jax.grad(jax.grad(lambda s, x: f(s, x)))}


@pytest.mark.parametrize("how", _GRADS)
def test_a_zero_d_array_argument_changed_in_place_under_grad_is_refused(how):
    s = np.array(1.0)
    scaled_argument(s, x2)
    assert s == 3.0  # Python: the caller's array changed
    s = np.array(1.0)
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(errors.in_place_traced_message(
            "s", "s *= ...", line_of(scaled_argument, "s *= 3.0"), "the caller's array",
            f"an argument of scaled_argument at {first_line(scaled_argument)}", "argument",
            "jax"))):
        _GRADS[how](ag.to_graph(scaled_argument))(s, x2)
    assert s == 1.0


def scaled_second_argument(x, s):
    s *= 3.0
    return s * x[0]


@pytest.mark.parametrize("how", ["grad", "jit(grad)"])
def test_a_zero_d_array_argument_by_argnums_changed_under_grad_is_refused(how):
    wrap = {"grad": jax.grad, "jit(grad)": lambda f, **k: jax.jit(jax.grad(f, **k))}[how]
    with pytest.raises(errors.InPlaceChangeError, match=re.escape(errors.in_place_traced_message(
            "s", "s *= ...", line_of(scaled_second_argument, "s *= 3.0"), "the caller's array",
            f"an argument of scaled_second_argument at {first_line(scaled_second_argument)}",
            "argument", "jax"))):
        wrap(ag.to_graph(scaled_second_argument), argnums=1)(x2, np.array(1.0))


@pytest.mark.parametrize("how", _GRADS)
@pytest.mark.parametrize("s", [1.0, np.float64(1.0)], ids=["float", "float64"])
def test_a_scalar_argument_changed_in_place_under_grad_is_rebound(how, s):
    got = _GRADS[how](ag.to_graph(scaled_argument))(s, x2)
    expected = _GRADS[how](scaled_argument)(s, x2)  # (a scalar: no in-place change to stage)
    same(got, expected)

