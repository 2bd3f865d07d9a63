"""numpy random draws under jax tracing (autograph/backends/jax.py): XLA
cannot call back into a numpy generator on every run, so a draw is refused
with jax.random as the fix, where it would otherwise become a constant of the
compiled function; outside jax's tracing the converted function is Python."""

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
