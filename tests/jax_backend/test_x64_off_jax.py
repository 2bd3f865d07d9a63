"""The JAX backend with JAX's default x64 off (the other JAX tests turn it
on): a Python int is an int32 there.  `range()`'s bounds were made int64
weak values, a dtype the mode does not have, and JAX warned ('Explicitly
requested dtype int64 ... truncated to int32') on every staged `for i in
range(n)`, a warning about code the user never wrote."""

import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)

import autograph as ag  # noqa: E402


@pytest.fixture(autouse=True)
def _x64_off():
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    yield
    jax.config.update("jax_enable_x64", before)


def weighted_by_counter(x, n):
    s = x[0] * 0
    for i in range(n):
        s = s + x[i] * i
    return s


def last_counter(n):
    last = 0
    for i in range(1, n):
        last = i
    return last


@pytest.mark.parametrize("fn, args", [
    (weighted_by_counter, (np.arange(4, dtype=np.int32), np.int32(3))),
    (weighted_by_counter, (np.ones(4, np.float32), 3)),
    (weighted_by_counter, (np.ones(4, np.float32), np.uint8(3))),
    (last_counter, (np.int32(5),)),
])
def test_a_staged_range_loop_with_x64_off_warns_nothing_and_gives_pythons_value(fn, args):
    expected = fn(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = jax.jit(ag.to_graph(fn))(*args)
    assert got == expected
    # (with x64 off a Python int is JAX's int32)
    assert np.asarray(got).dtype == (np.int32 if type(expected) is int else expected.dtype)
