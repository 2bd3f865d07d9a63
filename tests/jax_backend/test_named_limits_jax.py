"""Refusals under `jax.jit(ag.to_graph(f))` that now name the user's variable.

- `y[i] = v` that a staged statement carries as a part (`store_part` stores
  it back into the traced `y`): the refusal looked for the variables holding
  `y` and `i` by identity among the frame's locals, so a global `Y` was "the
  array" (`the array[i] = v`), and a loop counter `i` equal to another
  (`j`, both 0: small ints are one object) was named `j`.  The names are
  now read from the converted code's pending store_part call.
- len() of a traced single number: the catalog's UnsizedLenError (a
  TypeError, as Python's), naming the variable.
"""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

from autograph import errors  # noqa: E402
from tests.jax_backend.helpers import jitted, line_of  # noqa: E402

X = np.array([0.5, -2.0, 3.0])
Y = None


def zeroes_a_global_row(x):
    global Y
    Y = x * 2
    for i in range(2):
        for j in range(2):
            if x[j] > 0:
                Y[i] = 0.0
    return Y


def zeroes_by_the_outer_counter(x):
    y = x * 2
    for i in range(2):
        for j in range(2):
            if x[j] > 0:
                y[i] = 0.0
    return y


def _refused_part(name, index, location):
    return (f"`{name}[{index}] = v` at {location} assigns to an item of `{name}`, a JAX "
            f"traced value: JAX arrays are values, which cannot change in place. Rebind the "
            f"name to the updated array, `{name} = {name}.at[{index}].set(v)`")


@pytest.mark.parametrize("fn, name", [(zeroes_a_global_row, "Y"),
                                      (zeroes_by_the_outer_counter, "y")])
def test_a_carried_item_assignment_names_the_array_and_its_index(fn, name):
    fn(X.copy())  # (plain Python runs it)
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            _refused_part(name, "i", line_of(fn, "for j in range(2):")))):
        jitted(fn)(X)


def len_of_a_total(x):
    total = np.sum(x)
    return x * len(total)


def test_len_of_a_traced_single_number_names_the_variable():
    with pytest.raises(TypeError):
        len_of_a_total(X)
    with pytest.raises(errors.UnsizedLenError, match=re.escape(
            f"len() of 'total' at {line_of(len_of_a_total, 'len(total)')}: 'total' is a tensor "
            f"of dtype float64 and shape (), a single number, which has no length")):
        jitted(len_of_a_total)(X)
