"""The symbolic `Tensor` and `TensorSpec`.

A Tensor is an output of a graph node: `static_shape` (None for a dimension
only known at run time), numpy `dtype`, the producing `node` and a readable
`name`.  User code reads `.shape`/`.size`, where such a dimension is a staged
size while tracing (`np.zeros(n).shape[0]` is n, as in Python); the engine
reads `static_shape`/`static_size`.  Python operators, `.T`, `.astype`, indexing and numpy's
own protocols (`__array_ufunc__` for every ufunc, `__array_function__` for
the set in `numpy_api.SUPPORTED`) record ops, so user code stays plain numpy.

`bool()`, `len()`, `iter()`, `int()`, `float()` and `np.asarray()` of a
Tensor raise `TensorUsageError`: they need a concrete value.  `len()` raises
even when the first dimension is known, because converted code calls
`ag.len_` instead and unconverted code using len() would usually go on to
iterate or branch on the tensor.
"""

import numpy as np

from autograph import errors


class Tensor:
    __slots__ = ("graph", "node", "index", "static_shape", "dtype", "name", "__weakref__")

    # Above ndarray, so `ndarray + Tensor` defers to the Tensor.
    __array_priority__ = 1000

    def __init__(self, graph, node, index, shape, dtype, name):
        self.graph = graph
        self.node = node
        self.index = index
        self.static_shape = shape
        self.dtype = dtype
        self.name = name

    def __repr__(self):
        shape = "(" + ", ".join("None" if d is None else str(d) for d in self.static_shape)
        shape += ",)" if len(self.static_shape) == 1 else ")"
        return f"<Tensor '{self.name}' shape={shape} dtype={self.dtype}>"

    __hash__ = object.__hash__

    def _like(self, tensor, relax=False, result=None):
        """`tensor` as the same kind of value as self (TensorList overrides)."""
        return tensor

    def _check_loop_output(self, out, index):
        """Raises if `out` cannot carry this loop variable (TensorList overrides)."""

    # --- static properties -------------------------------------------------

    @property
    def shape(self):
        """What user code sees (ops/shaping.user_shape): a staged size for a
        dim only known at run time.  The engine reads `static_shape`."""
        return _ops.shaping.user_shape(self)

    @property
    def ndim(self):
        return len(self.static_shape)

    @property
    def static_size(self):
        """The number of items, None when a dim is only known at run time."""
        if None in self.static_shape:
            return None
        return int(np.prod(self.static_shape, dtype=np.int64))

    @property
    def size(self):
        """What user code sees: staged when a dim is only known at run time."""
        return _ops.shaping.user_size(self)

    @property
    def T(self):
        return _ops.shaping.attribute_T(self)

    # --- things that need a concrete value ---------------------------------

    def _usage_error(self, what):
        return errors.TensorUsageError(
            errors.tensor_usage_message(what, self.name, errors.where_user(),
                                        errors.staged_value_fix(what)))

    def __bool__(self):
        raise self._usage_error("bool()")

    def __len__(self):
        raise self._usage_error("len()")

    def __iter__(self):
        raise self._usage_error("iter()")

    def __int__(self):
        raise self._usage_error("int()")

    def __float__(self):
        raise self._usage_error("float()")

    def __complex__(self):
        raise self._usage_error("complex()")

    def __index__(self):
        raise self._usage_error("use as a Python index or size")

    def __array__(self, dtype=None, copy=None):
        raise self._usage_error(
            "np.asarray() (numpy wants a concrete array; indexing a numpy array with a "
            "tensor, `arr[t]` or `np.take(arr, t)`, cannot be staged: index a tensor, "
            "and write one-hot as `t[:, None] == np.arange(k)`)")

    def __contains__(self, value):
        raise self._usage_error("`in`")

    def __setitem__(self, key, value):
        raise self._usage_error("item assignment (tensors are immutable; build a new one)")

    def item(self, *args):
        raise self._usage_error(".item()")

    def tolist(self):
        raise self._usage_error(".tolist()")

    # --- numpy protocols ---------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ops.elementwise.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_api.array_function(func, args, kwargs)

    # --- indexing and methods ----------------------------------------------

    def __getitem__(self, key):
        return _ops.indexing.getitem(self, key)

    def astype(self, dtype, copy=True):
        return _ops.shaping.astype(self, dtype)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return _ops.shaping.reshape(self, tuple(shape))

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)) or axes == (None,):
            axes = axes[0]
        return _ops.shaping.transpose(self, axes or None)

    def flatten(self):
        return _ops.shaping.reshape(self, (-1,))

    ravel = flatten

    def squeeze(self, axis=None):
        return _ops.shaping.squeeze(self, axis)

    def copy(self):
        return self

    def dot(self, other):
        return _ops.linalg.dot(self, other)

    def clip(self, a_min=None, a_max=None):
        return np.clip(self, a_min, a_max)

    def cumsum(self, axis=None, dtype=None):
        return np.cumsum(self, axis=axis, dtype=dtype)

    def argsort(self, axis=-1):
        return np.argsort(self, axis=axis)


def _reduction_method(name):
    func = getattr(np, name)

    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin",
              "any", "all", "std", "var"):
    setattr(Tensor, _name, _reduction_method(_name))


def _binary(ufunc):
    def forward(self, other):
        return _ops.elementwise.apply_ufunc(ufunc, (self, other))

    def reflected(self, other):
        return _ops.elementwise.apply_ufunc(ufunc, (other, self))

    return forward, reflected


for _name, _ufunc in (
        ("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
        ("truediv", np.true_divide), ("floordiv", np.floor_divide),
        ("mod", np.remainder), ("pow", np.power), ("matmul", np.matmul),
        ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
        ("lshift", np.left_shift), ("rshift", np.right_shift),
        ("divmod", np.divmod)):
    _forward, _reflected = _binary(_ufunc)
    setattr(Tensor, f"__{_name}__", _forward)
    setattr(Tensor, f"__r{_name}__", _reflected)

for _name, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                      ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(Tensor, f"__{_name}__", _binary(_ufunc)[0])

for _name, _ufunc in (("neg", np.negative), ("pos", np.positive),
                      ("abs", np.absolute), ("invert", np.invert)):
    setattr(Tensor, f"__{_name}__",
            (lambda u: lambda self: _ops.elementwise.apply_ufunc(u, (self,)))(_ufunc))


class TensorSpec:
    """Shape (None for any size) and dtype of a function argument."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=np.float64, name=None):
        if shape is None:
            raise errors.GraphError("TensorSpec needs a shape tuple (use None for unknown dims)")
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    def is_compatible_with(self, shape, dtype):
        if np.dtype(dtype) != self.dtype or len(shape) != len(self.shape):
            return False
        return all(s is None or s == d for s, d in zip(self.shape, shape))

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}{name})"


# Tensor's operators record ops, and the op modules build on this one: they are
# bound here by autograph/graph/__init__.py, so no import goes both ways.
_numpy_api = _ops = None
