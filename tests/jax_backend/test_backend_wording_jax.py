"""The runtime's refusals speak the JAX backend's words under `jax.jit`.

Three catalog messages the runtime raises for every backend named the graph
engine's fix: `sum()` of a staged list said "graph tensor" and suggested
`np.sum(np.stack(lst))`, which converted code refuses for a traced value
(it names `jnp.stack`); a numpy array changed in place inside a staged loop
and Python state a staged loop changes suggested an ag.Variable, which a
jax.jit function cannot use; max()/min() of one traced argument, bool() and
math functions of one suggested numpy's functions too.  The backend now gives the words
(Backend.value_noun, array_module, kept_state); each hinted spelling gives
plain Python's result under jax.jit.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import jitted, line_of, same  # noqa: E402

JAX_STATE = ("a jax.jit function keeps no state of its own across calls: pass the state in "
             "as an argument and return its new value (`state, y = step(state, x)`)")


x3 = np.array([1.5, -2.0, 3.25])
m32 = np.arange(6.0).reshape(3, 2)


# --- sum() of a staged list or a traced array --------------------------------------

def summed_list(x):
    doubled = []
    for v in x:
        doubled.append(v * 2)
    return sum(doubled)


def summed_list_as_hinted(x):
    doubled = []
    for v in x:
        doubled.append(v * 2)
    return jnp.sum(jnp.stack(doubled), axis=0)


def summed_rows(x):
    return sum(x)


def summed_rows_as_hinted(x):
    return jnp.sum(x, axis=0)


@pytest.mark.parametrize("fn, hinted, name", [
    (summed_list, summed_list_as_hinted, "doubled"),
    (summed_rows, summed_rows_as_hinted, "x"),
])
@pytest.mark.parametrize("x", [x3, m32], ids=["vector", "matrix"])
def test_sum_of_a_traced_value_names_jax_and_its_hint_works(fn, hinted, name, x):
    message = errors.staged_sum_message(name, line_of(fn, "sum("), "JAX traced value", "jnp")
    assert f"sum() of JAX traced value '{name}'" in message
    assert f"jnp.sum(jnp.stack({name}), axis=0)" in message
    assert f"jnp.sum({name}, axis=0)" in message and "np.sum(np." not in message
    with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
        jitted(fn)(x)
    same(jitted(hinted)(x), fn(x))


def test_the_graph_engine_keeps_its_own_words():
    message = errors.staged_sum_message(
        "doubled", line_of(summed_list, "sum("), "graph tensor", "np")
    with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
        ag.function(summed_list)(x3)


# --- a numpy array changed in place inside a staged loop ---------------------------

MARKS = np.zeros(3)


def marked(x):
    total = x[0] * 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            MARKS[i] = 1.0
        total = total + x[i]
    return total, MARKS


def marked_as_hinted(x, marks):
    total = x[0] * 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            marks = jnp.where(jnp.arange(3) == i, 1.0, marks)
        total = total + x[i]
    return total, marks


def test_numpy_changing_an_array_in_a_staged_loop_gives_the_jax_fix():
    message = errors.in_place_numpy_in_region_message(
        "`MARKS`", line_of(marked, "MARKS[i] = 1.0"), "jnp", JAX_STATE)
    assert "jnp.where/jnp.concatenate" in message and "ag.Variable" not in message
    with pytest.raises(errors.InPlaceChangeError, match="^" + re.escape(message)):
        jitted(marked)(x3)
    assert not MARKS.any()  # (the refusal left the global as it was)
    total, marks = marked(x3)
    expected = total, marks.copy()
    MARKS[:] = 0.0
    for got, want in zip(jitted(marked_as_hinted)(x3, np.zeros(3)), expected):
        same(got, want)
    MARKS[:] = 0.0


# --- Python state a staged loop changes ----------------------------------------------

class Counter:
    def __init__(self):
        self.count = 0


counter = Counter()


def counted(x):
    total = x[0] * 0
    for v in x:
        counter.count += 1
        total = total + v
    return total


def counted_as_hinted(x, count):
    total = x[0] * 0
    for v in x:
        count += 1
        total = total + v
    return total, count


def test_state_a_staged_loop_changes_gives_the_jax_fix():
    message = errors.outer_state_changed_message(
        "`counter.count`", "`for` loop", line_of(counted, "for v in x"), JAX_STATE)
    assert "ag.Variable" not in message
    with pytest.raises(errors.StagingError, match="^" + re.escape(message)):
        jitted(counted)(x3)
    counter.count = 0
    total = counted(x3)
    got_total, got_count = jitted(counted_as_hinted)(x3, 0)
    same(got_total, total)
    assert int(got_count) == counter.count


# --- np.stack / np.concatenate of traced values: refused, naming jax.numpy's call ---------
# (Not run through jax.numpy: its promotion differs from numpy's -- int64 and float32
# give float64 in numpy, float32 in jax.numpy; a Python float is float64 to numpy, weak
# to JAX -- and with x64 off JAX holds no float64.  Where the items' dtypes promote
# differently, the hint gives numpy's dtype: without it, `jnp.stack([a, b])` rounds
# 16777217 to float32.)

ints = np.array([16777217, 2])
floats32 = np.array([0.5, 1.5], np.float32)


def stacked(a, b):
    return np.stack([a, b])


def stacked_as_hinted(a, b):
    return jnp.stack([a, b], dtype=jnp.float64)


def joined(a, b):
    parts = [a, b]
    return np.concatenate(parts)


def joined_as_hinted(a, b):
    parts = [a, b]
    return jnp.concatenate(parts, dtype=jnp.float64)


def _join_refusal(fn, call, hinted, note):
    return errors.traced_to_numpy_message(
        call, line_of(fn, call), "Call jax.numpy's function, which takes traced values: "
        f"`{hinted}`{note}.")


PROMOTED = " (numpy gives float64 for these items, where jax.numpy promotes them to float32"


@pytest.mark.parametrize("fn, hinted, call, spelled", [
    (stacked, stacked_as_hinted, "np.stack([a, b])", "jnp.stack([a, b], dtype=jnp.float64)"),
    (joined, joined_as_hinted, "np.concatenate(parts)",
     "jnp.concatenate(parts, dtype=jnp.float64)"),
])
def test_joining_items_numpy_promotes_otherwise_names_numpys_dtype(fn, hinted, call, spelled):
    message = _join_refusal(fn, call, spelled, PROMOTED + ", so give the dtype)")
    with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
        jitted(fn)(ints, floats32)
    same(jitted(hinted)(ints, floats32), fn(ints, floats32))


def test_joining_items_of_one_dtype_names_the_plain_call():
    message = _join_refusal(stacked, "np.stack([a, b])", "jnp.stack([a, b])", "")
    with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
        jitted(stacked)(floats32, floats32)


def test_joining_with_x64_off_says_float64_needs_x64():
    jax.config.update("jax_enable_x64", False)
    try:
        message = _join_refusal(stacked, "np.stack([a, b])", "jnp.stack([a, b])",
                                PROMOTED + "; JAX holds float64 only with jax_enable_x64 on)")
        with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
            jitted(stacked)(ints.astype(np.int32), floats32)
    finally:
        jax.config.update("jax_enable_x64", True)


# --- an argument changed in place: the fix names jax.numpy's functions ----------------------

def scaled_in_place(w):
    w *= 2.0
    return w


def test_an_argument_changed_in_place_names_jax_numpys_functions():
    with pytest.raises(errors.InPlaceChangeError) as raised:
        jitted(scaled_in_place)(x3.copy())
    message = str(raised.value)
    assert "(jnp.where, jnp.concatenate, `.at[...].set(...)`" in message
    assert "(np.where" not in message


# --- max()/min() of one traced argument, bool(), math functions ------------------------------

def largest(x):
    return max(x)


def largest_as_hinted(x):
    return jnp.max(x)


def largest_listed(x):
    items = []
    for v in x:
        items.append(v * 2)
    return min(items)


def largest_listed_as_hinted(x):
    items = []
    for v in x:
        items.append(v * 2)
    return jnp.min(jnp.stack(items))


@pytest.mark.parametrize("fn, hinted, call, name, spelled", [
    (largest, largest_as_hinted, "max", "x", "jnp.max(x)"),
    (largest_listed, largest_listed_as_hinted, "min", "items", "jnp.min(jnp.stack(items))"),
])
def test_max_of_one_traced_argument_names_jax_numpy(fn, hinted, call, name, spelled):
    message = errors.staged_extreme_message(
        call, name, line_of(fn, f"{call}("), True, "JAX traced value", "jnp",
        fn is largest_listed)
    assert f"{call}() of JAX traced value '{name}'" in message and f"Write {spelled}," in message
    with pytest.raises(errors.TensorUsageError, match="^" + re.escape(message)):
        jitted(fn)(x3)
    same(jitted(hinted)(x3), fn(x3))


def truth(x):
    return bool(x[0])


def exponential(x):
    import math
    return math.exp(x[0])


def test_bool_and_math_of_a_traced_value_name_jax_numpy():
    with pytest.raises(errors.TensorUsageError) as raised:
        jitted(truth)(x3)
    message = str(raised.value)
    assert message.startswith(f"bool() of JAX traced value 'x[0]' at {line_of(truth, 'bool(')}")
    assert "jnp.where / jnp.any / jnp.all" in message
    with pytest.raises(errors.NotStageableError) as raised:
        jitted(exponential)(x3)
    assert "Write jnp.exp(...) (nan where math raises ValueError), which is staged" in str(
        raised.value)


def logarithm(x):
    import math
    return math.log(x[0], 2.0)


def test_a_math_hint_of_several_numpy_calls_names_jax_numpy_in_each():
    with pytest.raises(errors.NotStageableError) as raised:
        jitted(logarithm)(x3)
    assert "jnp.log(x) / jnp.log(base)" in str(raised.value)


def percent_text(x):
    return "%.2f and %s" % (x[0], [x[1]])


def test_percent_formatting_a_traced_value_names_it_as_jax_does():
    message = errors.tensor_text_message(
        "%-formatting", "x[0]", line_of(percent_text, '"%.2f'), None, "JAX traced value")
    assert "outside the ag.function" not in message
    with pytest.raises(errors.TensorTextError, match="^" + re.escape(message)):
        jitted(percent_text)(x3)
