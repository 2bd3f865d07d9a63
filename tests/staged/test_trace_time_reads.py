"""Values Python's code reads anew on every call, which a trace would read
once and bake into the graph as constants: a draw from Python's `random`
module (never staged; numpy's draws are) and a clock of the `time` module.
Both are refused while tracing, with the fix; plain Python mode runs them."""

import datetime
import random
import time

import numpy as np
import pytest

import autograph as ag
from autograph import errors

RNG = random.Random(0)
NUMPY_RNG = np.random.default_rng(0)


def module_draw(x):
    return x * random.random()


def instance_draw(x):
    return x * RNG.gauss(0.0, 1.0)


def local_seeded_draw(x):
    rng = random.Random(42)  # (made by the call, seeded: the same number every call)
    return x * rng.random()


def test_a_seeded_random_made_inside_gives_pythons_value():
    staged = ag.function(local_seeded_draw)
    assert staged(np.ones(1))[0] == staged(np.ones(1))[0] == local_seeded_draw(np.ones(1))[0]


@pytest.mark.parametrize("fn, call", [(module_draw, "random.random()")])
def test_a_draw_from_pythons_random_module_is_refused_at_the_users_line(fn, call):
    with pytest.raises(errors.BakedRandomDrawError) as raised:
        ag.function(fn)(np.ones(2))
    message = str(raised.value)
    assert message.startswith(f"{call} at {__file__}:{fn.__code__.co_firstlineno + 1} draws "
                              "from Python's random module while the function is traced")
    assert "np.random.default_rng(seed)" in message


@pytest.mark.parametrize("fn, what", [
    (module_draw, "Python's global random state"), (instance_draw, "the generator in global 'RNG'")])
def test_a_draw_autograph_did_not_see_is_found_by_the_state_when_the_trace_ends(fn, what):
    with pytest.raises(errors.BakedRandomDrawError) as raised:
        ag.function(fn, autograph=False)(np.ones(2))
    message = str(raised.value)
    assert what in message and "Python's random module runs only while tracing" in message


def test_under_jax_a_draw_from_pythons_random_module_is_refused_too():
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    with pytest.raises(errors.BakedRandomDrawError, match=r"^random\.random\(\) at "):
        jax.jit(ag.to_graph(module_draw))(np.ones(2))


def numpy_draw(x):
    return x * NUMPY_RNG.random()


def test_a_numpy_draw_is_staged_a_new_one_per_call():
    staged = ag.function(numpy_draw)
    assert staged(np.ones(1))[0] != staged(np.ones(1))[0]


def timed(x):
    start = time.perf_counter()
    y = x * 2
    return y, time.perf_counter() - start


def test_a_clock_read_while_tracing_is_refused_at_the_users_line():
    with pytest.raises(errors.NotStageableError) as raised:
        ag.function(timed)(np.ones(2))
    message = str(raised.value)
    line = timed.__code__.co_firstlineno + 1
    assert message.startswith(f"time.perf_counter() at {__file__}:{line} reads the clock")
    assert "Time the call of the ag.function from outside it" in message


def test_plain_python_mode_reads_the_clock_and_draws():
    y, elapsed = ag.to_graph(timed)(np.ones(2))
    assert type(elapsed) is float and elapsed >= 0
    random.seed(3)
    want = module_draw(np.ones(1))
    random.seed(3)
    np.testing.assert_array_equal(ag.to_graph(module_draw)(np.ones(1)), want)


def test_under_jax_the_clock_is_refused_too():
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    with pytest.raises(errors.NotStageableError, match=r"^time\.perf_counter\(\) at "):
        jax.jit(ag.to_graph(timed))(np.ones(2))


def dated(x):
    return x + datetime.datetime.now().second


def test_datetime_now_while_tracing_is_refused_and_runs_in_plain_mode():
    with pytest.raises(errors.NotStageableError, match=r"^datetime\.now\(\) at "):
        ag.function(dated)(np.ones(2))
    assert ag.to_graph(dated)(np.zeros(1))[0] in range(60)
