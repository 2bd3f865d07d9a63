"""`ag.Variable`: numpy state that lives across calls of an ag.function.

Outside tracing a Variable is a small mutable box around an array.  While
tracing, `read_value()` (and any use in an expression) records a read op and
`assign*` record write ops; both are stateful, so they run in program order
on every call: `v.assign(2.0); return v + 1` returns 3.0, always.
"""

import itertools

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base, state
from autograph.graph.tensor import Tensor

_names = itertools.count()


class Variable:
    __array_priority__ = 1001  # above Tensor: `tensor + var` reads the variable
    # While ag.grad(..., wrt=[v]) traces its function, reads of v give this
    # tensor (made once, before the function runs), so the gradient of every
    # read -- in loop bodies and branches too -- flows to one place.
    _watched = None

    def __init__(self, value, dtype=None, name=None):
        if isinstance(value, (Tensor, Variable)):
            raise errors.GraphError(
                "ag.Variable needs a concrete initial value (a numpy array or Python "
                f"number), got {value!r}. Create variables outside ag.function.")
        self._value = np.array(value, dtype=dtype)
        self.dtype = self._value.dtype
        self.shape = self._value.shape
        self.name = name or f"Variable_{next(_names)}"

    def __repr__(self):
        return f"<ag.Variable '{self.name}' shape={self.shape} dtype={self.dtype}>"

    __hash__ = object.__hash__

    @property
    def ndim(self):
        return len(self.shape)

    def _store(self, value):
        # Always a new array: a view of the old value stays what it was, and a
        # caller's array assigned here can't change the variable afterwards.
        new = np.array(value, dtype=self.dtype)
        if new.shape != self.shape:
            raise errors.GraphError(f"cannot assign a value of shape {new.shape} to "
                                    f"variable '{self.name}' of shape {self.shape}")
        self._value = new

    def _as_graph_tensor(self):
        if self._watched is not None:
            return base.resolve(core.current_graph(), self._watched)
        return state.read_variable(self)

    def read_value(self):
        if core.current_graph() is None:
            return self._value.copy()
        return self._as_graph_tensor()

    value = read_value

    def numpy(self):
        # (while tracing, the value when the graph runs: the value now would
        # be a constant of the graph, stale on every later call)
        return self.read_value()

    def assign(self, value):
        if core.current_graph() is None:
            self._store(value)
        elif self._watched is not None:
            raise errors.GradientError(errors.gradient_assign_message(
                self.name, core.user_location()))
        else:
            state.assign_variable(self, value)
        return self

    def assign_add(self, delta):
        return self.assign(self.read_value() + delta)

    def assign_sub(self, delta):
        return self.assign(self.read_value() - delta)

    def __array__(self, dtype=None, copy=None):
        if core.current_graph() is not None:
            raise errors.TensorUsageError(errors.variable_array_message(
                self.name, core.user_location()))
        return self._value if dtype is None else self._value.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(v.read_value() if isinstance(v, Variable) else v for v in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        def read(v):
            if isinstance(v, Variable):
                return v.read_value()
            if isinstance(v, (list, tuple)):
                return type(v)(read(x) for x in v)
            return v
        return func(*read(args), **{k: read(v) for k, v in kwargs.items()})

    def __getitem__(self, key):
        return self.read_value()[key]

    @property
    def T(self):
        return self.read_value().T

    def astype(self, dtype):
        return self.read_value().astype(dtype)

    def __bool__(self):
        return bool(self.read_value())

    def __len__(self):
        return len(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __int__(self):
        return int(self.read_value())


def _forward(name):
    def method(self, *args):
        return getattr(self.read_value(), name)(*args)
    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
              "and", "or", "xor"):
    for _dunder in (f"__{_name}__", f"__r{_name}__"):
        setattr(Variable, _dunder, _forward(_dunder))
for _dunder in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__neg__",
                "__pos__", "__abs__", "__invert__"):
    setattr(Variable, _dunder, _forward(_dunder))
for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "reshape",
              "transpose"):
    setattr(Variable, _name, _forward(_name))
