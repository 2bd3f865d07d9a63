"""A numpy random draw that autograph cannot see -- ag.function(f,
autograph=False), or a function autograph does not convert -- runs once,
while tracing, and its numbers would be graph constants: the same "random"
numbers on every call.  The trace compares the generators' states before
and after (guards.random_states) and refuses it; staged draws (converted
code, runtime/random.py) draw from a copy while tracing and still work."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

RNG = np.random.default_rng(0)
LEGACY = np.random.RandomState(0)


def legacy_noise(x):
    return x + np.random.rand(2)


def global_generator_noise(x):
    return x + RNG.normal(size=2)


def legacy_object_noise(x):
    return x + LEGACY.uniform(size=2)


@pytest.mark.parametrize("fn, named", [
    (legacy_noise, "numpy's global random state"),
    (global_generator_noise, "global 'RNG'"),
    (legacy_object_noise, "global 'LEGACY'"),
])
def test_autograph_false_draw_is_refused(fn, named):
    first, second = fn(np.zeros(2)), fn(np.zeros(2))
    assert not np.array_equal(first, second)  # Python: new numbers on every call
    staged = ag.function(fn, autograph=False)
    with pytest.raises(errors.BakedRandomDrawError, match=named) as info:
        staged(np.zeros(2))
    assert "test_trace_random.py" in str(info.value) and "argument" in str(info.value)


def test_generator_passed_as_an_argument():
    def draw(x, rng):
        return x + rng.normal(size=2)

    with pytest.raises(errors.BakedRandomDrawError, match="argument"):
        ag.function(draw, autograph=False)(np.zeros(2), np.random.default_rng(1))


def test_generator_held_by_an_attribute():
    class Noisy:
        def __init__(self):
            self.rng = np.random.default_rng(2)

        def __call__(self, x):
            return x + self.rng.normal(size=2)

    noisy = Noisy()
    with pytest.raises(errors.BakedRandomDrawError, match="rng"):
        ag.function(noisy.__call__, autograph=False)(np.zeros(2))


def unconverted_helper(n):
    return np.random.normal(size=n)


unconverted_helper.__ag_do_not_convert__ = True  # (autograph leaves it as it is: runtime/call.py)


def calls_an_unconverted_helper(x):
    return x + unconverted_helper(2)


def test_draw_in_an_unconverted_helper_is_refused():
    with pytest.raises(errors.BakedRandomDrawError, match="numpy's global random state"):
        ag.function(calls_an_unconverted_helper)(np.zeros(2))


def test_draw_in_a_do_not_convert_helper_is_refused():
    @ag.do_not_convert
    def helper(n):
        return RNG.uniform(size=n)

    def f(x):
        return x + helper(2)

    with pytest.raises(errors.BakedRandomDrawError, match="global 'RNG'"):
        ag.function(f)(np.zeros(2))


# --- staged draws are not refused ----------------------------------------------------


def staged_draws(x):
    return x + np.random.rand(2) + RNG.normal(size=2) + LEGACY.uniform(size=2)


def test_staged_draws_run_on_every_call_as_numpy_does():
    state, rng_state = np.random.get_state(), RNG.bit_generator.state
    legacy_state = LEGACY.get_state()
    expected = [staged_draws(np.zeros(2)) for _ in range(3)]
    np.random.set_state(state)
    RNG.bit_generator.state = rng_state
    LEGACY.set_state(legacy_state)
    staged = ag.function(staged_draws)
    got = [staged(np.zeros(2)) for _ in range(3)]
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]


def test_reading_state_without_drawing_is_not_refused():
    def f(x):
        return x * 2

    np.random.rand()  # (between traces: no draw inside)
    assert ag.function(f, autograph=False)(np.ones(2)).tolist() == [2.0, 2.0]


def test_a_draw_that_only_takes_the_cached_normal_is_refused():
    """The legacy normal makes two numbers at a time and keeps one: the next
    draw takes it without moving the bit generator, so the comparison
    includes the cached one (RandomState.get_state(legacy=False))."""
    np.random.seed(3)
    np.random.normal()  # (now one is cached)
    moved_before = np.random.mtrand._rand._bit_generator.state["state"]["pos"]

    def cached_normal(x):
        return x + np.random.normal()

    with pytest.raises(errors.BakedRandomDrawError, match="numpy's global random state"):
        ag.function(cached_normal, autograph=False)(np.zeros(2))
    assert np.random.mtrand._rand._bit_generator.state["state"]["pos"] == moved_before
