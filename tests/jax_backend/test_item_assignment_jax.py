"""Item assignment and numpy functions on traced values in converted code
under `jax.jit` (autograph/backends/jax.py, "item assignment and numpy's
conversions").

`y[i] = v` on a traced `y`, a traced value stored into a numpy array or a
list (or used as its index), and a numpy function given a traced value
(`np.clip(y, 0, 1, out=y)`) raised JAX's own TypeErrors, which name neither
the user's variable nor a fix that fits.  Each is a catalog error naming the
statement, file:line and the JAX spelling; each program runs as plain
Python, and the spelling the error suggests gives Python's result under
jax.jit.  Code autograph did not convert keeps JAX's errors.
"""

import re

import numpy as np
import pytest
from numpy.linalg import norm

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import jitted, line_of, same  # noqa: E402


x3 = np.array([0.5, -2.0, 3.0])
m23 = np.arange(6.0).reshape(2, 3)


# --- `y[i] = v` on a traced y ------------------------------------------------------------

def running_max(x):
    y = x * 1
    for i in range(1, 3):
        y[i] = max(y[i - 1], y[i])
    return y


def running_max_as_hinted(x):
    y = x * 1
    for i in range(1, 3):
        y = y.at[i].set(max(y[i - 1], y[i]))
    return y


def bumped(x):
    y = x * 2
    y[1:] += x[0]
    return y


def bumped_as_hinted(x):
    y = x * 2
    y = y.at[1:].add(x[0])
    return y


def halved_item(m):
    y = m + 1
    y[0, 1] //= 2
    return y


def halved_item_as_hinted(m):
    y = m + 1
    y = y.at[0, 1].set(y[0, 1] // 2)
    return y


@pytest.mark.parametrize("fn, hinted, arg, statement, update", [
    (running_max, running_max_as_hinted, x3, "y[i] = max(y[i - 1], y[i])",
     "y = y.at[i].set(max(y[i - 1], y[i]))"),
    (bumped, bumped_as_hinted, x3, "y[1:] += x[0]", "y = y.at[1:].add(x[0])"),
    (halved_item, halved_item_as_hinted, m23, "y[0, 1] //= 2", "y = y.at[0, 1].set(y[0, 1] // 2)"),
])
def test_item_assignment_on_a_traced_array_is_refused_naming_the_at_update(
        fn, hinted, arg, statement, update):
    expected = fn(arg.copy())  # Python: the item changes
    with pytest.raises(errors.TensorUsageError) as caught:
        jitted(fn)(arg)
    assert str(caught.value).startswith(errors.traced_item_assignment_message(
        statement, "y", update, line_of(fn, statement)))
    assert isinstance(caught.value, TypeError)  # (as JAX's own error is)
    same(jitted(hinted)(arg), expected)  # the suggested spelling gives Python's result


def test_item_assignment_in_code_autograph_did_not_convert_keeps_jaxs_error():
    with pytest.raises(TypeError, match=re.escape("JAX arrays are immutable")):
        jax.jit(bumped)(x3)


# --- a traced value stored into a numpy array or a list ------------------------------------

def first_into_int_array(x):
    y = np.zeros(3, np.int64)
    y[0] = x[1]
    return y


def tail_into_array(x):
    y = np.zeros(3)
    y[1:] = x[1:]
    return y


def tail_as_hinted(x):
    y = np.zeros(3)
    y = jnp.asarray(y).at[1:].set(x[1:])
    return y


def first_into_float_array(x):
    y = np.zeros(3)
    y[0] = x[1]
    return y


def at_the_largest(x):
    y = np.zeros(3)
    i = jnp.argmax(x)
    y[i] = 5.0
    return y


def at_the_largest_as_hinted(x):
    y = np.zeros(3)
    i = jnp.argmax(x)
    y = jnp.asarray(y).at[i].set(5.0)
    return y


def list_at_the_largest(x):
    lst = [0.0, 1.0, 2.0]
    i = jnp.argmax(x)
    lst[i] = 5.0
    return lst


@pytest.mark.parametrize("fn, statement, name, container, part, update, error", [
    (first_into_int_array, "y[0] = x[1]", "y", "a numpy array", "the value",
     "y = jnp.asarray(y).at[0].set(x[1])", errors.TensorIntoArrayError),
    (tail_into_array, "y[1:] = x[1:]", "y", "a numpy array", "the value",
     "y = jnp.asarray(y).at[1:].set(x[1:])", errors.TensorIntoArrayError),
    (at_the_largest, "y[i] = 5.0", "y", "a numpy array", "the index",
     "y = jnp.asarray(y).at[i].set(5.0)", errors.TensorIntoArrayError),
    (list_at_the_largest, "lst[i] = 5.0", "lst", "a Python list", "the index",
     "lst = jnp.asarray(lst).at[i].set(5.0)", errors.TensorUsageError),
])
def test_traced_value_or_index_stored_into_numpy_or_a_list_is_refused(
        fn, statement, name, container, part, update, error):
    fn(x3)  # Python: runs
    with pytest.raises(error, match=re.escape(errors.traced_into_container_message(
            statement, name, container, part, update, line_of(fn, statement)))):
        jitted(fn)(x3)


@pytest.mark.parametrize("fn, hinted", [(tail_into_array, tail_as_hinted),
                                        (at_the_largest, at_the_largest_as_hinted)])
def test_the_suggested_spelling_gives_pythons_result(fn, hinted):
    same(jitted(hinted)(x3), fn(x3))


def test_a_float_stored_into_a_numpy_array_names_the_fix_as_numpys_cause():
    """numpy replaces any error float() raises for a sequence-like value (a
    tracer has __len__ and __getitem__) with its own ValueError 'setting an
    array element with a sequence', chaining ours as the cause: no code of
    autograph's sits between numpy and the caller of jax.jit to raise it
    itself (the graph engine translates at its function's boundary)."""
    first_into_float_array(x3)  # Python: runs
    with pytest.raises(ValueError, match="setting an array element with a sequence") as caught:
        jitted(first_into_float_array)(x3)
    cause = caught.value.__cause__
    assert type(cause) is errors.TensorIntoArrayError
    assert str(cause) == errors.traced_into_container_message(
        "y[0] = x[1]", "y", "a numpy array", "the value", "y = jnp.asarray(y).at[0].set(x[1])",
        line_of(first_into_float_array, "y[0] = x[1]"))


# --- numpy functions given a traced value -------------------------------------------------

def clipped_in_place(x):
    y = x * 2
    np.clip(y, 0, 1, out=y)
    return y


def clipped_as_hinted(x):
    y = x * 2
    y = jnp.clip(y, 0, 1)
    return y


def exp_of_traced(x):
    return np.exp(x) + 1


def norm_of_traced(x):
    return np.linalg.norm(x)


def imported_norm_of_traced(x):
    return norm(x)


@pytest.mark.parametrize("fn, call, instead", [
    (clipped_in_place, "np.clip(y, 0, 1, out=y)",
     "Call jax.numpy's function, which takes traced values: `jnp.clip(y, 0, 1)`; it has no "
     "out=, so rebind the name to its result instead (`y = jnp.clip(y, 0, 1)`; other names "
     "holding the old array keep its old numbers)."),
    (exp_of_traced, "np.exp(x)",
     "Call jax.numpy's function, which takes traced values: `jnp.exp(x)`."),
    (norm_of_traced, "np.linalg.norm(x)",
     "Call jax.numpy's function, which takes traced values: `jnp.linalg.norm(x)`."),
    (imported_norm_of_traced, "norm(x)",  # (its module's path in jax.numpy)
     "Call jax.numpy's function, which takes traced values: `jnp.linalg.norm(x)`."),
])
def test_a_numpy_function_given_a_traced_value_names_the_jnp_spelling(fn, call, instead):
    fn(x3.copy())  # Python: runs
    with pytest.raises(errors.TensorUsageError, match=re.escape(errors.traced_to_numpy_message(
            call, line_of(fn, call), instead))):
        jitted(fn)(x3)


def test_np_clip_out_as_hinted_gives_pythons_result():
    same(jitted(clipped_as_hinted)(x3), clipped_in_place(x3.copy()))


def test_a_numpy_function_in_code_autograph_did_not_convert_keeps_jaxs_error():
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(clipped_in_place)(x3)


# --- inside a staged `if`: the statement carries `y[i]` as a part of its state -----------

def positives_kept(x, n):
    y = x * 0
    for i in range(n):
        if x[i] > 0:
            y[i] = x[i]
    return y


def positives_kept_as_hinted(x, n):
    y = x * 0
    for i in range(n):
        if x[i] > 0:
            y = y.at[i].set(x[i])
    return y


def test_item_assignment_in_a_staged_if_is_refused_at_the_if_as_the_graph_engine_does():
    """(The staged `if` stores the part `y[i]` back into the traced `y` first,
    from the runtime's store_part: JAX's own error came through.)"""
    expected = positives_kept(x3.copy(), 3)  # Python
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            errors.traced_item_assignment_message(
                "y[i] = v", "y", "y = y.at[i].set(v)", line_of(positives_kept, "if x[i] > 0:")))):
        jitted(positives_kept)(x3, 3)
    same(jitted(positives_kept_as_hinted)(x3, 3), expected)


# --- numpy changing a numpy array in place with a traced value ----------------------------

def copied_into(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return y


def put_into(x):
    y = np.zeros(3)
    y.put([0], x[:1])
    return y


def filled(x):
    y = np.zeros(3)
    y.fill(x[0])
    return y


def _writes_into(name):
    return (f"It writes into `{name}` in place, which would need the numbers now: build the "
            f"new array with jax.numpy and rebind the name (`{name} = jnp.asarray({name})"
            ".at[...].set(...)`, jnp.where, jnp.broadcast_to); other names holding the old "
            "array keep its old numbers.")


@pytest.mark.parametrize("fn, call", [(copied_into, "np.copyto(y, x)"),
                                      (put_into, "y.put([0], x[:1])")])
def test_numpy_writing_a_traced_value_into_an_array_is_refused_naming_the_array(fn, call):
    fn(x3)  # Python: runs
    with pytest.raises(errors.TensorUsageError, match=re.escape(errors.traced_to_numpy_message(
            call, line_of(fn, call), _writes_into("y")))):
        jitted(fn)(x3)


def test_fill_with_a_traced_value_names_the_fix_as_numpys_cause():
    """(numpy's fill replaces float()'s error with its own ValueError, as a
    store at one index does: test_a_float_stored_into_a_numpy_array_...)"""
    filled(x3)  # Python: runs
    with pytest.raises(ValueError, match="setting an array element with a sequence") as caught:
        jitted(filled)(x3)
    assert str(caught.value.__cause__) == errors.traced_to_numpy_message(
        "y.fill(x[0])", line_of(filled, "y.fill(x[0])"), _writes_into("y"))
