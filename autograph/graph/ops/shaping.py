"""Shape and dtype manipulation: astype, reshape, transpose/.T, squeeze,
expand_dims, concatenate, stack, vstack, hstack, broadcast_to, flip."""

import numpy as np

from autograph.graph import core
from autograph.graph.ops import base, random
from autograph.graph.tensor import VIEWS, Tensor


# --- astype ---------------------------------------------------------------------


def _dim_rule(x, axis):
    return [((), np.dtype(np.intp))]


def _dim_kernel(x, axis):
    return np.intp(x.shape[axis])


DIM = core.register("dim", _dim_kernel, _dim_rule)


def dim(x, axis=0):
    """x.shape[axis]: a Python int when static, else a staged intp scalar."""
    if x.static_shape[axis] is not None:
        return x.static_shape[axis]
    return random.as_python_number(base.record1(DIM, (x,), {"axis": axis}))


class StagedShape(tuple):
    """`x.shape` while tracing, when some dims of x are only known at run time:
    a tuple of Python ints (the dims known now) and staged intp scalars (the
    others), so `np.zeros(n).shape[0]` is n, as in Python.  `==` and `!=`
    against a tuple compare the dims as Python would, staged where a dim is
    staged (a staged bool: converted code stages the `if` on it)."""

    __slots__ = ()

    def __hash__(self):
        # a dict key or set item: Python would hash the numbers, which only
        # exist when the graph runs (hashing the staged values would key by
        # identity: a wrong value)
        staged = next((d for d in self if isinstance(d, Tensor)), None)
        if staged is None:  # (a slice of the known dims: x.shape[1:])
            return tuple.__hash__(self)
        raise staged._usage_error("hash() of a shape with a dim only known at run time "
                                  "(a dict key or set item)")

    def __eq__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        if len(self) != len(other):
            return False
        staged = []
        for a, b in zip(self, other):
            if isinstance(a, Tensor) or isinstance(b, Tensor):
                staged.append(np.equal(a, b))
            elif a != b:
                return False
        if not staged:
            return True
        result = staged[0]
        for equal in staged[1:]:
            result = np.logical_and(result, equal)
        return random.as_python_number(result)  # (tuples compare to a Python bool)

    # slices and concatenations stay StagedShapes (so they compare the same way)
    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return StagedShape(item) if isinstance(key, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return StagedShape(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return StagedShape(tuple(other) + tuple(self))

    def __ne__(self, other):
        equal = self.__eq__(other)
        if equal is NotImplemented:
            return equal
        return random.as_python_number(np.logical_not(equal)) if isinstance(equal, Tensor) \
            else not equal


def user_shape(x):
    """`x.shape` as user code sees it: the static shape when every dim is known
    (or outside tracing, where a graph's tensors are only inspected), else a
    StagedShape.  The engine itself reads `x.static_shape`."""
    if None not in x.static_shape or core.current_graph() is None:
        return x.static_shape
    return StagedShape(  # (a dim is a Python int in Python: a staged Python number)
        d if d is not None else random.as_python_number(base.record1(
            DIM, (x,), {"axis": axis}, name=f"{x.name}.shape[{axis}]"))
        for axis, d in enumerate(x.static_shape))


def user_size(x):
    """`x.size` as user code sees it: a Python int when every dim is known,
    else (while tracing) a staged intp scalar, the product of the dims."""
    if x.static_size is not None or core.current_graph() is None:
        return x.static_size
    size = 1
    for d in user_shape(x):
        size = d * size if isinstance(d, Tensor) else size * d
    return size


def _astype_rule(x, dtype):
    return [(x.static_shape, dtype)]


def _astype_kernel(x, dtype):
    return x.astype(dtype)


def _emit_astype(node, outs, args, ctx):
    return [f"{outs[0]} = {args[0]}.astype({ctx.literal(node.attrs['dtype'])})"]


ASTYPE = core.register("astype", _astype_kernel, _astype_rule, emit=_emit_astype)


def astype(x, dtype):
    return base.record1(ASTYPE, (x,), {"dtype": np.dtype(dtype)})


# --- reshape ------------------------------------------------------------------


def _reshape_rule(x, shape):
    if any(d is None or isinstance(d, Tensor) for d in shape):
        raise base.RuleError(
            f"target shape {shape} has an unknown dimension; use -1 for the one "
            "dimension numpy should infer (e.g. x.reshape(-1, 784))")
    if sum(1 for d in shape if d == -1) > 1:
        raise base.RuleError(f"can only specify one unknown dimension in {shape}")
    total = base.product(x.static_shape)
    known = base.product(d for d in shape if d != -1)
    if -1 in shape:
        if total is None:
            dims = tuple(None if d == -1 else d for d in shape)
        elif known == 0 or total % known:
            raise base.RuleError(
                f"cannot reshape a tensor of shape {x.static_shape} into shape {shape}")
        else:
            dims = tuple(total // known if d == -1 else d for d in shape)
    else:
        if total is not None and total != known:
            raise base.RuleError(
                f"cannot reshape a tensor of shape {x.static_shape} into shape {shape}")
        dims = shape
    return [(dims, x.dtype)]


RESHAPE = core.register("np.reshape", np.reshape, _reshape_rule,
                        emit=core.emit_method("reshape", ("shape",)))


def reshape(x, shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(int(d) if isinstance(d, (int, np.integer)) else d for d in shape)
    return base.record1(RESHAPE, (x,), {"shape": shape})


def reshape_in_order(x, shape, order, what):
    """`what` (np.reshape, x.ravel(), ...) of `x` into `shape` in numpy's
    `order`: "C" row-major, "F" column-major (the reversed dims of the
    transpose, transposed back: the same elements in the same places).  "A"
    and "K" follow the memory layout, which a graph tensor does not have:
    refused, not read as "C"."""
    if order is None or order == "C":
        return reshape(x, shape)
    if order == "F":
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        return transpose(reshape(transpose(x), shape[::-1]))
    from autograph import errors
    if order not in ("A", "K") or order == "K" and what.endswith("reshape"):  # (numpy's errors)
        raise errors.GraphValueError(errors.graph_op_message(what, (
            "ValueError: order 'K' is not permitted for reshaping" if order == "K" else
            f"ValueError: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})"),
            core.user_location()))
    raise errors.UnsupportedNumpyFunctionError(errors.unsupported_numpy_function_message(
        f"{what}(..., order={order!r})", core.user_location()))


# --- transpose ----------------------------------------------------------------


def _transpose_rule(x, axes=None):
    ndim = len(x.static_shape)
    if axes is None:
        return [(x.static_shape[::-1], x.dtype)]
    if len(axes) != ndim:
        raise base.RuleError(f"axes {axes} don't match a tensor of rank {ndim}")
    norm = base.normalize_axes(axes, ndim)
    return [(tuple(x.static_shape[a] for a in norm), x.dtype)]


TRANSPOSE = core.register("np.transpose", np.transpose, _transpose_rule,
                          emit=core.emit_method("transpose", ("axes",)))


def transpose(x, axes=None):
    attrs = {} if axes is None else {"axes": tuple(int(a) for a in axes)}
    return base.record1(TRANSPOSE, (x,), attrs)


def _t_kernel(x):
    return x.T


def _emit_t(node, outs, args, ctx):
    return [f"{outs[0]} = {args[0]}.T"]


ATTRIBUTE_T = core.register(".T", _t_kernel, _transpose_rule, emit=_emit_t)


def attribute_T(x):
    return base.record1(ATTRIBUTE_T, (x,))


def swapaxes(x, axis1, axis2):
    x = base.as_tensor(x)
    perm = list(range(x.ndim))
    a, b = base.normalize_axis(axis1, x.ndim), base.normalize_axis(axis2, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def moveaxis(x, source, destination):
    x = base.as_tensor(x)
    src = base.normalize_axes(source, x.ndim)
    dst = base.normalize_axes(destination, x.ndim)
    if len(src) != len(dst):  # (numpy's error: zip below would drop the extra axes)
        raise base.RuleError(
            "`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


# --- squeeze / expand_dims ----------------------------------------------------


def _squeeze_rule(x, axis=None):
    if isinstance(axis, list):  # (numpy's error: a tuple, not a list)
        raise base.RuleError("'list' object cannot be interpreted as an integer", TypeError)
    if axis is None:
        if None in x.static_shape:
            raise base.RuleError(
                f"cannot tell which dims of shape {x.static_shape} are 1; pass axis=")
        return [(tuple(d for d in x.static_shape if d != 1), x.dtype)]
    axes = base.normalize_axes(axis, len(x.static_shape))
    for a in axes:
        if x.static_shape[a] not in (1, None):
            raise base.RuleError(f"cannot select an axis to squeeze out which has size not "
                                 f"equal to one (axis {a} of shape {x.static_shape})")
    return [(tuple(d for i, d in enumerate(x.static_shape) if i not in axes), x.dtype)]


SQUEEZE = core.register("np.squeeze", np.squeeze, _squeeze_rule)


def squeeze(x, axis=None):
    attrs = {} if axis is None else {"axis": axis}
    return base.record1(SQUEEZE, (x,), attrs)


def _expand_dims_rule(x, axis):
    out_ndim = len(x.static_shape) + (len(axis) if isinstance(axis, tuple) else 1)
    axes = base.normalize_axes(axis, out_ndim)
    dims = iter(x.static_shape)
    return [(tuple(1 if i in axes else next(dims) for i in range(out_ndim)), x.dtype)]


EXPAND_DIMS = core.register("np.expand_dims", np.expand_dims, _expand_dims_rule)


def expand_dims(x, axis):
    axis = tuple(axis) if isinstance(axis, list) else axis
    return base.record1(EXPAND_DIMS, (x,), {"axis": axis})


# --- joining ------------------------------------------------------------------


def _join_dims(shapes, skip_axis):
    result = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) != len(result):
            raise base.RuleError("all inputs must have the same rank, got shapes "
                                 + ", ".join(str(s) for s in shapes))
        for i, d in enumerate(shape):
            if i == skip_axis:
                continue
            if result[i] is None:
                result[i] = d
            elif d is not None and d != result[i]:
                raise base.RuleError("input shapes differ outside the joined axis: "
                                     + ", ".join(str(s) for s in shapes))
    return result


def _concatenate_rule(*xs, axis=0):
    dtype = np.result_type(*(x.dtype for x in xs))
    if axis is None:  # every array flattened, one after the other: the sizes add up
        sizes = [base.product(x.static_shape) for x in xs]
        return [((None if None in sizes else sum(sizes),), dtype)]
    if any(not x.static_shape for x in xs):  # (numpy's ValueError)
        raise base.RuleError("zero-dimensional arrays cannot be concatenated")
    axis = base.normalize_axis(axis, max(len(xs[0].static_shape), 1))
    dims = _join_dims([x.static_shape for x in xs], axis)
    dims[axis] = _sum_dims(xs, axis)
    return [(tuple(dims), dtype)]


def _sum_dims(xs, axis):
    total = 0
    for x in xs:
        if x.static_shape[axis] is None:
            return None
        total += x.static_shape[axis]
    return total


def _concatenate_kernel(*xs, axis=0):
    return np.concatenate(xs, axis=axis)


CONCATENATE = core.register("np.concatenate", _concatenate_kernel, _concatenate_rule)


def _tensors(seq):
    graph = base.graph_for(seq)
    return [base.as_tensor(x, graph) for x in seq]


def concatenate(seq, axis=0):
    return base.record1(CONCATENATE, _tensors(seq), {"axis": axis})


def _stack_rule(*xs, axis=0):
    dims = _join_dims([x.static_shape for x in xs], None)
    axis = base.normalize_axis(axis, len(dims) + 1)
    dims.insert(axis, len(xs))
    return [(tuple(dims), np.result_type(*(x.dtype for x in xs)))]


def _stack_kernel(*xs, axis=0):
    return np.stack(xs, axis=axis)


STACK = core.register("np.stack", _stack_kernel, _stack_rule)


def stack(seq, axis=0):
    return base.record1(STACK, _tensors(seq), {"axis": axis})


def vstack(seq):
    xs = [x if x.ndim >= 2 else reshape(x, (1, -1) if x.ndim == 1 else (1, 1))
          for x in _tensors(seq)]
    return concatenate(xs, axis=0)


def hstack(seq):
    # as numpy: 0-d items become 1-d (np.atleast_1d), the first item's rank picks the axis
    xs = [x if x.ndim else reshape(x, (1,)) for x in _tensors(seq)]
    return concatenate(xs, axis=0 if xs[0].ndim == 1 else 1)


# --- broadcast_to / flip ------------------------------------------------------


def _broadcast_to_rule(x, shape):
    result = base.broadcast_shapes(x.static_shape, shape)
    if len(x.static_shape) > len(shape) or any(
            r is not None and s is not None and r != s for r, s in zip(result, shape)):
        raise base.RuleError(f"cannot broadcast shape {x.static_shape} to {shape}")
    return [(tuple(shape), x.dtype)]


BROADCAST_TO = core.register("np.broadcast_to", np.broadcast_to, _broadcast_to_rule)


def broadcast_to(x, shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return base.record1(BROADCAST_TO, (x,), {"shape": shape})


def _flip_rule(x, axis=None):
    base.normalize_axes(axis, len(x.static_shape))
    return [(x.static_shape, x.dtype)]


FLIP = core.register("np.flip", np.flip, _flip_rule)


def flip(x, axis=None):
    return base.record1(FLIP, (x,), {} if axis is None else {"axis": axis})


# numpy returns views from these (broadcast_to a read-only one): an in-place
# change of the result or of its argument is checked (tensor.py, `x += ...`)
VIEWS.update(dict.fromkeys((RESHAPE, TRANSPOSE, ATTRIBUTE_T, SQUEEZE, EXPAND_DIMS,
                            BROADCAST_TO, FLIP)))

base.stack = stack  # as_tensor stacks a list holding tensors with it
