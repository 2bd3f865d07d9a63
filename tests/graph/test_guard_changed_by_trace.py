"""A trace that changes state it reads (`self.step += 1; return x * self.step`)
baked in the value it computed; the graph stands for calls that find the
state as the trace found it.  Its guards watch the value from BEFORE the
trace (guards.as_found_before), so the next call, which finds the new one,
traces again and makes the change again: the values and the state are
Python's on every call (a counter kept in Python retraces each call, and
the retracing warning says why; an ag.Variable traces once)."""

import collections
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph import errors

STEPS = 0


class Trainer:
    def __init__(self):
        self.step = 0

    def train_step(self, x):
        self.step += 1
        return x * self.step


def bump_global(x):
    global STEPS
    STEPS += 1
    return x * STEPS


class Model:
    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x * self.calls


MODEL = Model()


def through_a_global_model(x):
    return MODEL(x) + 1


def _four_calls(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.RetracingWarning)
        return [float(fn(*args, np.ones(2))[0]) for _ in range(4)]


def test_a_method_bumping_its_counter_gives_pythons_values():
    python, staged = Trainer(), Trainer()
    want = _four_calls(Trainer.train_step, python)
    assert _four_calls(ag.function(Trainer.train_step), staged) == want == [1, 2, 3, 4]
    assert staged.step == python.step == 4


def test_a_global_counter_gives_pythons_values():
    global STEPS
    STEPS = 0
    want = _four_calls(bump_global)
    STEPS = 0
    assert _four_calls(ag.function(bump_global)) == want == [1, 2, 3, 4]
    assert STEPS == 4


def test_a_counter_of_an_object_the_trace_calls_gives_pythons_values():
    MODEL.calls = 0
    want = _four_calls(through_a_global_model)
    MODEL.calls = 0
    assert _four_calls(ag.function(through_a_global_model)) == want == [2, 3, 4, 5]
    assert MODEL.calls == 4


def test_the_retracing_warning_says_the_trace_changes_the_state():
    staged = ag.function(Trainer.train_step)
    trainer = Trainer()
    with pytest.warns(errors.RetracingWarning) as caught:
        for _ in range(12):
            staged(trainer, np.ones(2))
    message = str(caught[0].message)
    assert "each trace changes its attribute 'step', which the graph read" in message
    assert "ag.Variable" in message


class Layer:
    def __init__(self):
        self.built = False

    def __call__(self, x):
        if not self.built:  # (built on the first call, as Keras-style layers are)
            self.w = np.full(x.shape[-1], 2.0)
            self.built = True
        return x * self.w


def test_state_made_once_on_the_first_call_traces_at_most_twice():
    layer = Layer()
    staged = ag.function(Layer.__call__)
    values = [staged(layer, np.ones(2)).tolist() for _ in range(5)]
    assert values == [[2.0, 2.0]] * 5
    assert staged.experimental_get_tracing_count() <= 2


class VariableTrainer:
    def __init__(self):
        self.step = ag.Variable(np.int64(0))

    def train_step(self, x):
        self.step.assign_add(1)
        return x * self.step.read_value()


def test_a_counter_in_a_variable_traces_once():
    trainer = VariableTrainer()
    staged = ag.function(VariableTrainer.train_step)
    assert [float(staged(trainer, np.ones(2))[0]) for _ in range(4)] == [1, 2, 3, 4]
    assert staged.experimental_get_tracing_count() == 1


class Recording:
    def __init__(self):
        self.w = np.ones(3)
        self.input_shape = None
        self.scratch = np.zeros(3)

    def __call__(self, x):
        self.input_shape = x.shape  # (an equal new tuple each trace)
        self.scratch = np.zeros(3)  # (an equal new array each trace)
        return x @ self.w + self.scratch.sum()


RECORDING = Recording()


def records(x):
    return RECORDING(x)


def test_state_the_trace_sets_to_an_equal_new_value_does_not_retrace_every_call():
    staged = ag.function(records)
    with warnings.catch_warnings():
        warnings.simplefilter("error", errors.RetracingWarning)
        for _ in range(12):
            np.testing.assert_array_equal(staged(np.ones((2, 3))), [3.0, 3.0])
    assert staged.experimental_get_tracing_count() <= 2
    assert RECORDING.input_shape == (2, 3)


class Options:
    scale = 3.0


class Remade:
    def __call__(self, x):
        self.opts = Options()  # (a new, equal object each trace)
        self.parts = (np.tanh,)
        return self.parts[0](x) * self.opts.scale


REMADE = Remade()


def remade(x):
    return REMADE(x)


def test_an_equal_object_the_trace_makes_again_does_not_retrace_every_call():
    staged = ag.function(remade)
    for _ in range(10):
        staged(np.ones(2))
    assert staged.experimental_get_tracing_count() <= 2


class SlottedWithDict:
    __slots__ = ("k", "__dict__")

    def __init__(self, k):
        self.k = k


class SwapsACounter:
    def __init__(self):
        self.d = collections.Counter(a=1)

    def __call__(self, x):
        y = x * self.d["a"]
        self.d = collections.Counter(a=self.d["a"] + 1)  # (a new object: not equal)
        return y


class SwapsASlottedObject:
    def __init__(self):
        self.o = SlottedWithDict(1)

    def __call__(self, x):
        y = x * self.o.k
        self.o = SlottedWithDict(self.o.k + 1)  # (its slot holds the count)
        return y


@pytest.mark.parametrize("owner", [SwapsACounter, SwapsASlottedObject])
def test_a_replaced_object_whose_state_dict_does_not_show_is_a_change(owner):
    staged = ag.function(owner().__call__)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", errors.RetracingWarning)
        assert [float(staged(np.ones(1))[0]) for _ in range(3)] == [1.0, 2.0, 3.0]


Shape = collections.namedtuple("Shape", "a b")


class RemadeTuple:
    def __call__(self, x):
        self.shape = Shape(2, 3)  # (an equal namedtuple each trace)
        return x * self.shape.a


REMADE_TUPLE = RemadeTuple()


def remade_tuple(x):
    return REMADE_TUPLE(x)


def test_an_equal_namedtuple_made_again_does_not_retrace_every_call():
    staged = ag.function(remade_tuple)
    for _ in range(6):
        staged(np.ones(2))
    assert staged.experimental_get_tracing_count() <= 2
