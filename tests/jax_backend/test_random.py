"""numpy random draws under jax tracing (autograph/backends/jax.py): XLA
cannot call back into a numpy generator on every run, so a draw is refused
with jax.random as the fix, where it would otherwise become a constant of the
compiled function; outside jax's tracing the converted function is Python."""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402

RNG = np.random.default_rng(0)


def global_draw(x):
    return x + np.random.rand()


def generator_draw(x):
    return x + RNG.normal(size=3)


def staged_size_draw(x):
    return x + RNG.normal(x)


def draw_in_a_staged_branch(x):
    if x.sum() > 0:
        x = x + RNG.random()
    return x


@pytest.mark.parametrize("fn, call", [
    (global_draw, "np.random.rand()"),
    (generator_draw, "Generator.normal()"),
    (staged_size_draw, "Generator.normal()"),
    (draw_in_a_staged_branch, "Generator.random()"),
])
def test_a_numpy_draw_under_jit_is_refused_with_jax_random_as_the_fix(fn, call):
    with pytest.raises(errors.StagingError) as info:
        jax.jit(ag.to_graph(fn))(np.ones(3))
    message = str(info.value)
    assert call in message and "test_random.py:" in message
    assert "'jax'" in message and "jax.random" in message


def test_making_a_generator_under_jit_is_refused():
    def f(x):
        return x + np.random.default_rng().normal()
    with pytest.raises(errors.StagingError, match=r"np.random.default_rng\(\) at .*no seed"):
        jax.jit(ag.to_graph(f))(np.ones(3))


def test_outside_jax_tracing_the_converted_function_draws_as_python():
    converted = ag.to_graph(generator_draw)
    global RNG
    RNG = np.random.default_rng(3)
    expected = generator_draw(np.zeros(3))
    RNG = np.random.default_rng(3)
    np.testing.assert_array_equal(converted(np.zeros(3)), expected)


# --- jax.random keys threaded through staged loops and branches ---------------------------

def walk(key, xs, n):
    total = 0.0
    for i in range(n):  # a staged while over a counter
        key, sub = jax.random.split(key)
        total = total + jax.random.normal(sub)
    for v in xs:  # a scan
        if v > 0:  # a staged if
            key, sub = jax.random.split(key)
            total = total + v * jax.random.uniform(sub)
    while total < 100.0:
        key, sub = jax.random.split(key)
        total = total + 40.0 * jax.random.uniform(sub)
    for _ in range(n):
        last = jax.random.fold_in(key, 7)  # a key first assigned in the loop
    return total, jax.random.key_data(key), jax.random.key_data(last)


@pytest.mark.parametrize("make_key", [jax.random.key, jax.random.PRNGKey],
                         ids=["typed key", "raw key"])
def test_a_key_split_in_staged_loops_and_branches_draws_as_python_does(make_key):
    # A typed key (jax.random.key, whose dtype numpy does not know) was
    # refused as "a Python value that the staged loop changes".
    xs = jax.numpy.array([1.0, -2.0, 3.0])
    expected = walk(make_key(0), xs, 3)
    result = jax.jit(ag.to_graph(walk))(make_key(0), xs, 3)
    np.testing.assert_allclose(result[0], expected[0], rtol=1e-12)
    for got, want in zip(result[1:], expected[1:]):
        np.testing.assert_array_equal(got, want)


def key_made_data(key, n):
    i = 0
    while i < n:
        key = jax.random.key_data(key)
        i += 1
    return i


def test_a_key_the_loop_makes_key_data_is_refused():
    line = key_made_data.__code__.co_firstlineno + 2
    message = errors.loop_dtype_message(
        "key", f"{__file__}:{line}", "while", "a JAX PRNG key",
        "a tensor of dtype uint32 and shape (2,)")
    with pytest.raises(errors.StagingError, match=re.escape(message)):
        jax.jit(ag.to_graph(key_made_data))(jax.random.key(0), 2)
