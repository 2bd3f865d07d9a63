"""The random draw op: a draw from a numpy generator that lives outside the graph.

    y = x + rng.normal(size=n)          # traced, n a staged int
    ->  normal = random.draw(n, method=<Generator.normal>, arguments=(size=n), ...)
        y = np.add(x, normal)

Its kernel calls the same bound method (`rng.normal`, or `np.random.rand` of
numpy's global RandomState) with the run-time values of its staged arguments,
every time the graph runs: the generator's stream is consumed in program
order, as eager numpy consumes it, so a seeded run gives the same bits.  It
is stateful (core.register), so the optimiser never folds, merges, reorders
or drops it, even when nothing reads its value (an unused draw still
advances the stream in Python).  Tracing never draws from the real stream:
the output's shape and dtype come from calling the method on a deep copy of
the generator with stand-in values.  A graph holding it cannot be saved (it
refers to a live Python generator: graph/saving.py refuses it).
"""

import copy

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base
from autograph.graph.tensor import Tensor


def _draw_kernel(*staged, method, arguments, dtype, shape):
    args, kwargs = arguments([_scalar(v) for v in staged])
    result = method(*args, **kwargs)
    # a draw without `size` is a Python float or int: the numpy scalar the graph typed
    return result if type(result) is np.ndarray else dtype.type(result)


def _draw_rule(*staged, method, arguments, dtype, shape):
    return [(shape, dtype)]


DRAW = core.register("random.draw", _draw_kernel, _draw_rule, stateful=True)


def _is_staged(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor")  # (ag.Variable)


def _stand_in(tensor, unknown, fill):
    if not tensor.static_shape:
        return tensor.dtype.type(fill)
    shape = tuple(unknown if d is None else d for d in tensor.static_shape)
    return np.full(shape, fill, tensor.dtype)


def _scalar(value):
    """A 0-d array as the numpy scalar eager code holds there (numpy's
    `permutation(n)` takes an int, not a 0-d array)."""
    return value[()] if type(value) is np.ndarray and value.ndim == 0 else value


def _example(method, rebuild, values):
    """What the method returns for `values`, drawn from a copy of its generator."""
    twin = getattr(copy.deepcopy(method.__self__), method.__name__)
    args, kwargs = rebuild(values)
    return np.asarray(twin(*args, **kwargs))


def _infer(method, rebuild, staged, call_text):
    """(shape, dtype) of the draw: one example without staged arguments; else
    two, with stand-ins of different values and unknown dims (1s, then 2s),
    and each dim that differs between them is unknown (a size given by a
    staged value)."""
    fills = ((1, 1), (2, 2)) if staged else ((1, 1),)
    try:
        examples = [_example(method, rebuild, [_stand_in(t, unknown, fill) for t in staged])
                    for unknown, fill in fills]
    except Exception as e:  # numpy refused the stand-ins
        raise errors.GraphValueError(errors.random_draw_shape_message(
            call_text, core.user_location(), f"{type(e).__name__}: {e}")) from e
    first = examples[0]
    for other in examples[1:]:
        if other.ndim != first.ndim or other.dtype != first.dtype:
            raise errors.GraphValueError(errors.random_draw_shape_message(
                call_text, core.user_location(),
                "its rank or dtype depends on the values of staged arguments"))
        return tuple(a if a == b else None for a, b in zip(first.shape, other.shape)), \
            first.dtype
    return first.shape, first.dtype


class _Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class _Arguments:
    """The call's (args, kwargs) from the run-time values of its staged leaves;
    shown in listings as the arguments, staged ones by their tensor's name."""

    __slots__ = ("rebuild", "fixed", "positions", "names")

    def __init__(self, rebuild, fixed, positions, names):
        self.rebuild, self.fixed, self.positions, self.names = rebuild, fixed, positions, names

    def __call__(self, staged_values):
        leaves = list(self.fixed)  # (no tensors kept alive: their places are None)
        for i, value in zip(self.positions, staged_values):
            leaves[i] = value
        return self.rebuild(leaves)

    def __repr__(self):
        args, kwargs = self([_Named(n) for n in self.names])
        return "(" + ", ".join([repr(a) for a in args]
                               + [f"{k}={v!r}" for k, v in kwargs.items()]) + ")"


def draw(method, values, rebuild, call_text):
    """Records `method(*args, **kwargs)`, where `rebuild(values)` gives
    (args, kwargs) from the flat argument leaves `values` (some staged), so
    that it runs on every call of the graph; returns its output Tensor."""
    graph = base.graph_for(values)
    positions = [i for i, v in enumerate(values) if _is_staged(v)]
    staged = [base.resolve(graph, values[i]) for i in positions]
    arguments = _Arguments(rebuild, [None if _is_staged(v) else v for v in values], positions,
                           [t.name for t in staged])
    shape, dtype = _infer(method, arguments, staged, call_text)
    attrs = {"method": method, "arguments": arguments, "dtype": dtype, "shape": shape}
    return base.record(DRAW, tuple(staged), attrs, graph=graph,
                       name=getattr(method, "__name__", None))[0]
