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

import sys

import numpy as np

from autograph import errors


class Tensor:
    __slots__ = ("graph", "node", "index", "static_shape", "dtype", "name", "origin",
                 "replaced", "__weakref__")

    # Above ndarray, so `ndarray + Tensor` defers to the Tensor.
    __array_priority__ = 1000

    def __init__(self, graph, node, index, shape, dtype, name):
        self.graph = graph
        self.node = node
        self.index = index
        self.static_shape = shape
        self.dtype = dtype
        self.name = name
        # a loop variable's placeholder: its value before the loop (the same numpy
        # array in Python: the in-place checks below follow it)
        self.origin = None
        # (name, operator, location, graph) once `x += ...` rebound x's name to
        # a new tensor: another name still holding this one, used later in that
        # graph or its sub-graphs, would see the change in numpy
        self.replaced = None

    def __repr__(self):
        _refuse_text(self, "repr() (or `!r`, `%r`, the text of a container holding it)")
        shape = "(" + ", ".join("None" if d is None else str(d) for d in self.static_shape)
        shape += ",)" if len(self.static_shape) == 1 else ")"
        return f"<Tensor '{self.name}' shape={shape} dtype={self.dtype}>"

    def __str__(self):
        _refuse_text(self, "str()")
        return self.__repr__()

    def __format__(self, spec):
        _refuse_text(self, "format()" if spec else "f-string or format()")
        return format(self.__repr__(), spec)

    __hash__ = object.__hash__

    def _like(self, tensor, relax=False, result=None):
        """`tensor` as the same kind of value as self (TensorList overrides).
        `relax`: `tensor` is a loop's placeholder for the loop variable self,
        the same array in Python (remembered for the in-place checks)."""
        if relax:
            tensor.origin = self
        return tensor

    def _check_loop_output(self, out, index):
        """Raises if `out` cannot carry this loop variable (TensorList overrides)."""

    # --- static properties -------------------------------------------------

    @property
    def shape(self):
        """What user code sees (ops/shaping.user_shape): a staged size for a
        dim only known at run time.  The engine reads `static_shape`."""
        return _ops.shaping.user_shape(self)

    @shape.setter
    def shape(self, value):
        raise in_place_method_error(self, "setting .shape")

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

    def fill(self, value):
        raise in_place_method_error(self, ".fill()")

    def sort(self, *args, **kwargs):
        raise in_place_method_error(self, ".sort()")

    def resize(self, *args, **kwargs):
        raise in_place_method_error(self, ".resize()")

    def put(self, *args, **kwargs):
        raise in_place_method_error(self, ".put()")

    def partition(self, *args, **kwargs):
        raise in_place_method_error(self, ".partition()")

    def item(self, *args):
        raise self._usage_error(".item()")

    def tolist(self):
        raise self._usage_error(".tolist()")

    # --- numpy protocols ---------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        check_live(*inputs)
        return _ops.elementwise.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        check_live(*args)
        if args and isinstance(args[0], (list, tuple)):
            check_live(*args[0])  # np.stack([a, b]), np.concatenate(...)
        return _numpy_api.array_function(func, args, kwargs)

    # --- indexing and methods ----------------------------------------------

    def __getitem__(self, key):
        if self.replaced is not None:
            check_live(self)
        return _ops.indexing.getitem(self, key)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self.dtype:
            return self  # numpy returns the array itself: an in-place change shows
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
        # a node of its own (a same-dtype astype, which numpy runs as a copy):
        # `y = x.copy(); y += 1` must see a fresh array, not the argument x
        return _ops.shaping.astype(self, self.dtype) if type(self) is Tensor else self

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
        if self.replaced is not None or (isinstance(other, Tensor)
                                         and other.replaced is not None):
            check_live(self, other)
        return _ops.elementwise.apply_ufunc(ufunc, (self, other))

    def reflected(self, other):
        if self.replaced is not None:
            check_live(self)
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


def _in_place_operator(name, symbol):
    def in_place(self, other):
        """`self op= other`: numpy changes the array self holds; a graph tensor
        is a value, so the name is rebound to `self op other` -- the same
        result where nothing else holds that array (checked, else refused)."""
        forward = getattr(type(self), name)
        if type(self) is not Tensor:  # a staged list: its own operators decide
            return forward(self, other)
        location = errors.where_user()
        names = _UserNames()
        change = f"{names(self)} {symbol} ..."
        _refuse_shared(self, change, location, names)
        result = forward(self, other)
        if not self.static_shape:
            # 0-d: a numpy scalar or a Python number in Python (a 0-d array
            # argument was refused above), which `+=` rebinds with promotion;
            # another name holding the old one keeps the old number
            return result
        if result.dtype != self.dtype:  # numpy casts into the array it writes
            if not np.can_cast(result.dtype, self.dtype, casting="same_kind"):
                raise errors.graph_error_like(TypeError)(errors.graph_op_message(
                    symbol, f"numpy cannot cast the result ({result.dtype}) into "
                    f"`{names(self)}` ({self.dtype}) with casting rule 'same_kind'; write "
                    f"`{names(self)} = {names(self)} {symbol[:-1]} ...` for a new array",
                    location))
            result = _ops.shaping.astype(result, self.dtype)
        if result.static_shape != self.static_shape:  # numpy cannot grow the array
            raise errors.graph_error_like(ValueError)(errors.graph_op_message(
                symbol, f"the result has shape {result.static_shape}, `{names(self)}` has "
                f"{self.static_shape}: numpy cannot write it into the array in place "
                "(non-broadcastable output operand); write "
                f"`{names(self)} = {names(self)} {symbol[:-1]} ...` for a new array",
                location))
        _mark_replaced(self, (names(self), symbol, location, _ops.base.core.current_graph()))
        return result

    return in_place


for _name, _symbol in (
        ("add", "+="), ("sub", "-="), ("mul", "*="), ("truediv", "/="),
        ("floordiv", "//="), ("mod", "%="), ("pow", "**="), ("matmul", "@="),
        ("and", "&="), ("or", "|="), ("xor", "^="), ("lshift", "<<="), ("rshift", ">>=")):
    setattr(Tensor, f"__i{_name}__", _in_place_operator(f"__{_name}__", _symbol))


# OpDef -> None, or a test of the node: the ops whose numpy result may share
# memory with their first argument (a view), filled by ops/shaping.py and
# ops/indexing.py.  Conservative: any op that may return a view is listed.
VIEWS = {}


def _view_base(tensor):
    node = tensor.node
    test = VIEWS.get(node.op, False)
    if test is None or (test and test(node)):
        base = node.args[0]
        return base if isinstance(base, Tensor) and base is not tensor else None
    return None


def _references(value):
    return sys.getrefcount(value)


def _references_from_a_frame(value):
    return _references(value)


# what `_references` counts, called from a frame holding the value as `_held`
# does, for a value nothing else holds
_UNHELD = _references_from_a_frame(object())


def _held(tensor):
    """Does anything besides its graph's nodes hold `tensor` -- a variable of
    the user's, a container, a closure -- so that code could still read it?
    A view only the graph holds (`y[:2].sum()`) is never read again.  Counted
    references: an extra one (held by the engine) only errs on the safe side."""
    in_graph = 1 + sum(1 for node in tensor.graph.nodes for a in node.args if a is tensor)
    return _references(tensor) - _UNHELD > in_graph


def _view_taken(tensor, exclude):
    """A tensor of `tensor`'s graph that is a numpy view of it and may still be
    read (`_held`), other than those in `exclude` (ids); or None."""
    for node in reversed(tensor.graph.nodes):
        if node is tensor.node:  # (views come after what they view)
            break
        if node.args and node.args[0] is tensor and node.outputs \
                and id(node.outputs[0]) not in exclude \
                and _view_base(node.outputs[0]) is tensor and _held(node.outputs[0]):
            return node.outputs[0]
    return None


class _UserNames:
    """The user's variable holding a tensor, read from the user's frame (the
    tensor's own name is often its op's: `multiply`, `getitem`)."""

    def __init__(self):
        frame = errors.user_frame(3, _want_frame=True)
        self.variables = frame.f_locals if frame is not None else {}

    def __call__(self, tensor):
        name = next((k for k, v in self.variables.items() if v is tensor
                     and not k.startswith(("ag__", "__"))), None)
        if name is None and tensor.node.op.name == "getitem" and _view_base(tensor) is not None:
            return f"{self(_view_base(tensor))}[...]"  # `y[:2] += 1`
        return name or tensor.name


def _refuse_shared(tensor, change, location, names):
    """Raises InPlaceChangeError if, in numpy, an in-place change of `tensor`
    would be seen by another holder of its array: the caller (an argument,
    also through a loop variable or a captured value), a view of it, or the
    array it is a view of, where code may still read them (`_held`).  A
    tensor made fresh by an op passes."""
    name, current, seen = names(tensor), tensor, set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        view = _view_taken(current, seen)
        if view is not None:
            raise errors.InPlaceChangeError(errors.in_place_view_message(
                name, names(view), change, location, name_is_view=False))
        if current.node.op.name == "placeholder":
            graph = current.graph
            if graph.parent is None:
                if any(p is current for p in graph.inputs):
                    argument_change = f"{current.name} {change.split()[1]} ..."
                    if id(current) not in graph.scalar_inputs:
                        raise errors.InPlaceChangeError(errors.in_place_argument_message(
                            current.name, argument_change, location))
                    graph.rebound_scalars[id(current)] = (current.name, argument_change,
                                                          location)
                return
            current = current.origin if current.origin is not None else next(
                (outer for outer, inner in graph.captured if inner is current), None)
            continue
        if _view_base(current) is None:
            return
        # (no local names the base while `_held` counts who holds it)
        if _held(_view_base(current)):
            raise errors.InPlaceChangeError(errors.in_place_view_message(
                name, names(_view_base(current)), change, location, name_is_view=True))
        current = _view_base(current)  # a temporary (`(x * 2)[:2]`): what it views may be held


def _mark_replaced(tensor, marker):
    """`tensor`'s array was changed in place: so was the array of the value it
    stands for outside a staged loop or branch (a loop variable's first value,
    a captured tensor), which another name may still hold."""
    seen = set()
    while tensor is not None and id(tensor) not in seen:
        seen.add(id(tensor))
        tensor.replaced = marker
        graph = tensor.graph
        tensor = tensor.origin if tensor.origin is not None else next(
            (outer for outer, inner in graph.captured if inner is tensor), None)


def check_live(*values, returned_by=None):
    """Raises if a value is a tensor whose array `x += ...` changed in place
    after this name took it (`b = a; a += 1; a + b`, or `return b`): numpy
    would show the change through it, the graph cannot.  Used where the
    change was made, inside it, or after a staged branch or loop that made it
    (Python may have run it); not in a sibling branch, which Python would
    not have run."""
    for value in values:
        if isinstance(value, Tensor) and value.replaced is not None:
            changed, symbol, change_at, changed_in = value.replaced
            here = _ops.base.core.current_graph()
            graph = here
            while graph is not None and graph is not changed_in:
                graph = graph.parent
            if graph is None:
                graph = changed_in  # the change's region ended: is it nested in this one?
                while graph is not None and graph is not here:
                    graph = graph.parent
                if graph is None:  # a sibling branch
                    continue
            raise errors.InPlaceChangeError(errors.in_place_alias_message(
                _UserNames()(value), changed, symbol, change_at, errors.where_user(),
                returned_by))


def in_place_method_error(tensor, what):
    return errors.InPlaceChangeError(
        errors.in_place_method_message(what, _UserNames()(tensor), errors.where_user()))


def _refuse_text(tensor, what):
    """str()/format() from user code while tracing would give a description
    of the tensor where Python gives its number: refused.  Autograph's and
    numpy's own code (messages, listings) still get the description."""
    caller = sys._getframe(2)  # (the frame calling __str__/__format__)
    if errors.user_frame(3, _want_frame=True) is caller \
            and _ops.base.core.current_graph() is not None:
        raise errors.TensorTextError(
            errors.tensor_text_message(what, _UserNames()(tensor), errors.where_user()))


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
