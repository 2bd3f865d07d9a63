"""A trace that leaves one of its graph tensors in Python state outliving it
(`self.w = ...`, `CACHE[k] = ...`, `HISTORY.append(...)`, `global g`, a
nonlocal cell) is refused when the trace ends (guards.leaked_tensors):
Python would update that state on every call, the graph only once, at
tracing.  Each case first shows what plain Python does over three calls."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def calls(fn, *state):
    return [fn(*state, np.full(2, float(i))) for i in (1, 2, 3)]


class Model:
    def __init__(self):
        self.w = np.zeros(2)

    def step(self, x):
        self.w = self.w + x
        return self.w


def add_to_attribute(model, x):
    model.w = model.w + x
    return model.w


def test_attribute_of_an_argument():
    model = Model()
    assert calls(add_to_attribute, model)[-1].tolist() == [6.0, 6.0]  # Python: a running sum
    staged = ag.function(add_to_attribute)
    with pytest.raises(errors.TraceLeakError, match=r"model\.w") as info:
        calls(staged, Model())
    assert "ag.Variable" in str(info.value) and "test_trace_leaks.py" in str(info.value)


def test_attribute_of_self_in_a_method():
    model = Model()
    calls(model.step)
    assert model.w.tolist() == [6.0, 6.0]
    other = Model()
    with pytest.raises(errors.TraceLeakError, match=r"self\.w"):
        calls(ag.function(other.step))


MODEL = Model()


def through_a_global_object(x):
    MODEL.w = MODEL.w + x
    return x


def test_attribute_of_an_object_a_global_holds():
    with pytest.raises(errors.TraceLeakError, match=r"MODEL\.w"):
        calls(ag.function(through_a_global_object))


CACHE = {}


def cache_last(x):
    y = x * 2
    CACHE["last"] = y
    return y


def test_item_of_a_global_dict():
    CACHE.clear()
    calls(cache_last)
    assert CACHE["last"].tolist() == [6.0, 6.0]
    CACHE.clear()
    with pytest.raises(errors.TraceLeakError, match=r"CACHE\['last'\]"):
        calls(ag.function(cache_last))
    CACHE.clear()


HISTORY = []


def log_history(x):
    y = x + 1
    HISTORY.append(y)
    return y


def test_append_to_a_global_list():
    HISTORY[:] = [np.zeros(2)] * 3
    calls(log_history)
    assert len(HISTORY) == 6
    HISTORY[:] = [np.zeros(2)] * 3
    with pytest.raises(errors.TraceLeakError, match=r"HISTORY\[3\]"):
        calls(ag.function(log_history))
    HISTORY.clear()


LAST = None


def rebind_global(x):
    global LAST
    LAST = x * 3
    return x


def test_global_rebound():
    calls(rebind_global)
    assert LAST.tolist() == [9.0, 9.0]
    with pytest.raises(errors.TraceLeakError, match="LAST"):
        calls(ag.function(rebind_global))


def test_nonlocal_cell():
    def make():
        total = np.zeros(2)

        def add(x):
            nonlocal total
            total = total + x
            return total
        return add

    assert calls(make())[-1].tolist() == [6.0, 6.0]
    with pytest.raises(errors.TraceLeakError, match="total"):
        calls(ag.function(make()))


def test_under_a_staged_if():
    def branchy(model, x):
        if np.sum(x) > 0:
            model.w = model.w + x
        return x

    model = Model()
    calls(branchy, model)
    assert model.w.tolist() == [6.0, 6.0]
    with pytest.raises(errors.TraceLeakError, match=r"model\.w"):
        calls(ag.function(branchy), Model())


def test_in_a_staged_loop():
    def loop(x):
        i = 0
        while np.sum(x) > i:
            CACHE["loop"] = x * i
            i += 1
        return x

    CACHE.clear()
    # (found as soon as the loop body has been traced: a change of Python state
    # the loop does not carry, runtime/staging.py `_refuse_changed`)
    with pytest.raises(errors.StagingError, match=r"`CACHE\['loop'\]` is changed inside the "
                       r"staged `while` loop"):
        calls(ag.function(loop))
    CACHE.clear()


def test_inner_function_leaks_through_an_outer_trace():
    inner = ag.function(cache_last)

    def outer(x):
        return inner(x) + 1

    CACHE.clear()
    with pytest.raises(errors.TraceLeakError, match=r"CACHE\['last'\]"):
        calls(ag.function(outer))
    CACHE.clear()


def test_autograph_false_leak_is_refused_too():
    with pytest.raises(errors.TraceLeakError, match=r"CACHE\['last'\]"):
        calls(ag.function(cache_last, autograph=False))
    CACHE.clear()


# --- what is not refused ------------------------------------------------------------


def restored(model, x):
    saved = model.w
    model.w = model.w + x
    y = model.w * 2
    model.w = saved
    return y


def test_state_restored_before_the_trace_ends():
    model = Model()
    expected = calls(restored, model)
    got = calls(ag.function(restored), model)
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]


def test_locals_closures_and_objects_made_while_tracing():
    class Accumulator:
        def __init__(self):
            self.total = 0.0

        def add(self, v):
            self.total = self.total + v

    def uses_locals(x):
        y = x * 2

        def helper():
            return y + 1
        acc = Accumulator()
        acc.add(x)
        acc.add(y)
        return helper() + acc.total

    expected = calls(uses_locals)
    got = calls(ag.function(uses_locals))
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]


def default_of_a_function_made_while_tracing(x):
    s = 0.0
    for i in range(len(x)):
        def shift(v, w=x[i]):  # (the late-binding idiom, binding a graph value)
            return v + w
        s = shift(s) + (lambda v, w=x * 2: v * w)(1.0)[0]
    return s


def default_of_an_escaping_function(x):
    def shift(v, w=x * 2):
        return v + w
    HISTORY.append(shift)
    return shift(x)


def test_defaults_of_a_function_made_while_tracing_die_with_it():
    # the converted function kept the original (and so its defaults, graph
    # values) alive in the converted-callee table: refused as a leak
    expected = calls(default_of_a_function_made_while_tracing)
    got = calls(ag.function(default_of_a_function_made_while_tracing))
    assert got == expected
    HISTORY.clear()
    with pytest.raises(errors.TraceLeakError, match="`w`"):  # one that outlives the call is not
        calls(ag.function(default_of_an_escaping_function))
    HISTORY.clear()


def test_variable_keeps_state():
    class Counter:
        def __init__(self):
            self.w = ag.Variable(np.zeros(2))

        @ag.function
        def step(self, x):
            self.w.assign(self.w + x)
            return self.w.read_value()

    counter = Counter()
    assert [r.tolist() for r in calls(counter.step)][-1] == [6.0, 6.0]


def test_numbers_and_arrays_written_to_state_are_fine():
    COUNT = {"n": 0}

    def count(x):
        COUNT["n"] += 1
        return x

    calls(ag.function(count))
    # (a counter the trace bumps in place counts as Python's calls do: each call
    # traces again, as `self.n += 1`; guards.py)
    assert COUNT["n"] == 3


def test_jax_reports_a_leaked_tracer_itself():
    """Under jax.jit(ag.to_graph(f)) the same program leaves a JAX tracer in
    CACHE; JAX raises its own error when it is used after the trace."""
    jax = pytest.importorskip("jax")
    CACHE.clear()
    jitted = jax.jit(ag.to_graph(cache_last))
    jitted(np.ones(2))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.numpy.add(CACHE["last"], 1.0)
    CACHE.clear()


class State:
    def __init__(self):
        self.total = np.zeros(2)


STATE = State()


def update(state, x):
    state.total = state.total + x


def calls_a_helper_that_stores(x):
    update(STATE, x)
    return x


def test_store_made_by_a_converted_helper():
    STATE.total = np.zeros(2)
    calls(calls_a_helper_that_stores)
    assert STATE.total.tolist() == [6.0, 6.0]
    STATE.total = np.zeros(2)
    with pytest.raises(errors.TraceLeakError, match=r"STATE\.total"):
        calls(ag.function(calls_a_helper_that_stores))
    STATE.total = np.zeros(2)


def test_module_attribute():
    import types
    import sys

    module = types.ModuleType("leaky_settings")
    module.LAST = None
    sys.modules["leaky_settings"] = module
    namespace = {"leaky_settings": module}
    exec("def store(x):\n    leaky_settings.LAST = x * 2\n    return x\n", namespace)
    try:
        with pytest.raises(errors.TraceLeakError, match=r"leaky_settings\.LAST"):
            calls(ag.function(namespace["store"], autograph=False))
    finally:
        del sys.modules["leaky_settings"]
