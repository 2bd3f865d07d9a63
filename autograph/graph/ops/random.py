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


DRAW = core.register("random.draw", _draw_kernel, _draw_rule, stateful=True, effect=True)


# --- a draw numpy gives as a Python number --------------------------------------------
# `np.random.rand()` is a Python float, and numpy types a Python number by the
# array it meets (NEP 50: `x_f32 + np.random.rand()` is float32, `x_f32 > 0.1`
# compares in float32), where a float64 tensor would make float64.  Such a draw
# is a PythonNumber: met by an operand of another dtype in an operator or
# ufunc, it is first cast as numpy casts the Python number (exact for floats:
# one rounding either way); for ints and bools, where numpy would check the
# range instead, a difference is refused.  Python arithmetic with Python
# numbers (`np.random.rand() * 2`) keeps a Python number, so the result stays one.

_PYTHON_NUMBERS = (bool, int, float, complex)
_ARITHMETIC = (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
               ("truediv", np.true_divide), ("floordiv", np.floor_divide),
               ("mod", np.remainder), ("pow", np.power), ("and", np.bitwise_and),
               ("or", np.bitwise_or), ("xor", np.bitwise_xor), ("lshift", np.left_shift),
               ("rshift", np.right_shift))
_COMPARISONS = (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal))


class PythonNumber(Tensor):
    """A 0-d tensor standing for a Python number: see above."""

    __slots__ = ()

    def _like(self, tensor, relax=False, result=None):
        return as_python_number(tensor)  # (captured into a branch or loop body)

    def _as_met_by(self, other):
        """Self as numpy converts a Python number meeting `other`."""
        dtype = getattr(other, "dtype", None)
        if dtype is None or isinstance(other, PythonNumber) or not isinstance(dtype, np.dtype):
            return self
        number = self.dtype.type(0).item()
        weak = np.result_type(np.ones((), dtype), number)
        if weak == np.result_type(dtype, self.dtype):
            return self
        if self.dtype.kind in "fc" and weak.kind in "fc":
            return _ops_shaping().astype(self, weak)
        raise errors.GraphTypeError(errors.random_python_number_message(
            type(number).__name__, str(dtype), core.user_location()))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and len(inputs) == 2:
            a, b = inputs
            inputs = (a._as_met_by(b) if isinstance(a, PythonNumber) else a,
                      b._as_met_by(a) if isinstance(b, PythonNumber) else b)
        return Tensor.__array_ufunc__(self, ufunc, method, *inputs, **kwargs)


def _ops_shaping():
    from autograph.graph.ops import shaping  # (shaping builds on this package's base)
    return shaping


def as_python_number(tensor):
    if isinstance(tensor, Tensor) and type(tensor) in (Tensor, PythonNumber) \
            and tensor.static_shape == ():
        tensor.__class__ = PythonNumber
    return tensor


def _operator(ufunc, keeps_number, reflected):
    def apply(self, other):
        operand = self._as_met_by(other)
        result = ufunc(other, operand) if reflected else ufunc(operand, other)
        if keeps_number and (type(other) in _PYTHON_NUMBERS or isinstance(other, PythonNumber)):
            return as_python_number(result)
        return result
    return apply


for _name, _ufunc in _ARITHMETIC:
    setattr(PythonNumber, f"__{_name}__", _operator(_ufunc, True, False))
    setattr(PythonNumber, f"__r{_name}__", _operator(_ufunc, True, True))
for _name, _ufunc in _COMPARISONS:
    setattr(PythonNumber, f"__{_name}__", _operator(_ufunc, False, False))
for _name, _ufunc in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute)):
    setattr(PythonNumber, f"__{_name}__",
            (lambda u: lambda self: as_python_number(u(self)))(_ufunc))


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
    return twin(*args, **kwargs)


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
    number = type(examples[0]) in _PYTHON_NUMBERS
    examples = [np.asarray(e) for e in examples]
    first = examples[0]
    for other in examples[1:]:
        if other.ndim != first.ndim or other.dtype != first.dtype:
            raise errors.GraphValueError(errors.random_draw_shape_message(
                call_text, core.user_location(),
                "its rank or dtype depends on the values of staged arguments"))
        return tuple(a if a == b else None for a, b in zip(first.shape, other.shape)), \
            first.dtype, number
    return first.shape, first.dtype, number


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
    shape, dtype, number = _infer(method, arguments, staged, call_text)
    attrs = {"method": method, "arguments": arguments, "dtype": dtype, "shape": shape}
    result = base.record(DRAW, tuple(staged), attrs, graph=graph,
                         name=getattr(method, "__name__", None))[0]
    return as_python_number(result) if number else result
