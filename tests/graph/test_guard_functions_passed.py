"""A function the traced code hands to another callable (`map(helper, xs)`,
`functools.reduce(add, xs)`, `sorted(xs, key=rank)`), or the constructor of
a class it instantiates, runs unconverted while tracing: what it reads is
baked into the graph, so a later change of that state traces again, as for
a function the code calls itself (runtime/call.py
`_telling_callable_arguments`, converters/call_trees.py, graph/guards.py
`_makers`)."""

import dataclasses
import functools

import numpy as np
import pytest

import autograph as ag

SCALE = 2.0


def scaled(x):
    return x * SCALE


def add_scaled(a, b):
    return a + b * SCALE


class Config:
    activation = staticmethod(scaled)


CONFIG = Config()


def through_map(x):
    return np.sum(np.stack(list(map(scaled, [x, x + 1.0]))))


def through_an_attribute_in_map(x):
    return np.sum(np.stack(list(map(CONFIG.activation, [x, x]))))


def through_filter(x):
    kept = list(filter(lambda v: v is not None, [scaled(x), None]))
    return kept[0]


def through_sorted(x):
    return sorted([x, x], key=lambda v: 0)[0] + np.sum(np.stack(sorted([scaled(x)], key=id)))


def rank(item):
    return item[0] if SCALE < 3 else -item[0]


def through_a_named_key(x):
    pairs = [(1, x), (2, x * 2.0)]
    first = sorted(pairs, key=rank)[0][1]
    pairs.sort(key=rank)
    return first + pairs[-1][1] * 10.0


def through_reduce(x):
    return functools.reduce(add_scaled, [x, x, x])


def through_a_partial_in_map(x):
    return list(map(functools.partial(add_scaled, x), [x]))[0]


@pytest.mark.parametrize("fn", [through_map, through_an_attribute_in_map, through_filter,
                                through_sorted, through_a_named_key, through_reduce,
                                through_a_partial_in_map],
                         ids=lambda f: f.__name__)
def test_a_change_of_what_a_passed_function_read_traces_again(fn):
    _follows_scale(fn)


def _follows_scale(fn):
    """ag.function(fn) gives fn's result after each change of SCALE."""
    global SCALE
    x = np.array([1.0, 2.0])
    staged = ag.function(fn)
    try:
        for scale in (2.0, 5.0, 5.0, 0.5):
            SCALE = scale
            np.testing.assert_array_equal(staged(x), fn(x))
    finally:
        SCALE = 2.0


def test_plain_python_mode_calls_the_builtins_as_python_does():
    def f(xs):
        return list(map(abs, xs)), list(filter(None, xs)), sorted(xs, key=abs, reverse=True)
    xs = [3, -1, 0, -7]
    assert ag.to_graph(f)(xs) == f(xs)
    assert "ag__.converted(map, fscope)" in ag.to_code(f)


def test_a_partial_made_while_tracing_that_binds_a_tensor_is_no_leak():
    # (it dies with the trace, as a closure made there does; it was taken for
    # state outliving the call, TraceLeakError "`0` holds graph tensor 'x'")
    def g(x):
        bound = functools.partial(add_scaled, x)
        return bound(x) + list(map(functools.partial(add_scaled, b=x), [x]))[0]
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(ag.function(g)(x), g(x))


class Dense:
    def __init__(self):
        self.w = SCALE

    def __call__(self, x):
        return x * self.w


class Wider(Dense):
    def __init__(self):
        super().__init__()
        self.w = self.w * 2.0


class Settings:
    def __new__(cls):
        made = super().__new__(cls)
        made.offset = SCALE + 1.0
        return made


@dataclasses.dataclass
class Scaled:
    a: float = 1.0

    def __post_init__(self):
        self.a = self.a * SCALE


class Scope:
    def __enter__(self):
        return SCALE

    def __exit__(self, *exception):
        return False


class Pair:
    def __iter__(self):
        return iter([SCALE, SCALE + 1.0])


def made_while_tracing(x):
    total = Dense()(x) + Wider()(x) + Settings().offset + x * Scaled().a
    with Scope() as scale:  # (Python calls __enter__ unseen)
        total = total * scale
    for v in Pair():
        total = total + v
    return total


def test_what_a_class_made_while_tracing_read_in_its_constructor_is_watched():
    _follows_scale(made_while_tracing)


class _Helper:
    def __init__(self, v):
        self.v = v
        self.step = 0


class _Model:
    def __init__(self):
        self.step = 0
        self.w = np.ones(2)


MODEL = _Model()


def test_what_a_constructor_sets_is_no_read_of_the_trace():
    # (a constructor's `self.step = 0` named `step`, which was then watched on
    # every object: MODEL.step changing at each call traced again each time)
    traces = []

    def f(x):
        traces.append(1)
        return _Helper(x).v * MODEL.w

    staged = ag.function(f)
    for _ in range(4):
        MODEL.step += 1
        staged(np.array([1.0, 2.0]))
    assert len(traces) == 1


class _Scaled:
    @property
    def s(self):
        return SCALE


_THROUGH_A_PARTIAL = functools.partial(lambda p, x: x * p.s, _Scaled())


def test_a_getter_reached_through_a_partial_argument_is_watched():
    _follows_scale(lambda x: _THROUGH_A_PARTIAL(x))


def test_a_closure_over_a_tensor_given_to_ag_grad_is_no_leak():
    def make(w):
        return lambda v: np.sum(np.sin(v * w))

    def f(x):
        w = x * 2
        return ag.grad(make(w))(x) + ag.grad(functools.partial(
            lambda ws, v: np.sum(np.sin(v * ws[0])), [w]))(x)

    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(ag.function(f)(x), f(x), rtol=1e-12)
