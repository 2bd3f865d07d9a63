"""Creation from a tensor (zeros_like, ones_like, full_like, empty_like,
linspace), sorting, tile/repeat, rounding, triangles, isclose/allclose."""

import operator

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base, random
from autograph.graph.tensor import Tensor


def _unsupported(what, hint):
    return errors.UnsupportedNumpyArgumentError(
        errors.unsupported_argument_message(what, core.user_location(), hint))


def _like_rule(a, *fill, dtype=None, shape=None):
    out_shape = a.static_shape if shape is None else ((shape,) if isinstance(shape, int) else shape)
    return [(tuple(out_shape), a.dtype if dtype is None else dtype)]


LIKE = {name: core.register(f"np.{name}", getattr(np, name), _like_rule)
        for name in ("zeros_like", "ones_like", "empty_like", "full_like")}


def like(name, a, *fill, dtype=None, shape=None, **unsupported):
    if unsupported.pop("order", "K") != "K" or unsupported.pop("subok", True) is not True \
            or unsupported:
        raise _unsupported(f"np.{name}() with order= or subok=",
                           "Pass only dtype= and shape=, or call it outside the ag.function.")
    attrs = {}
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    if shape is not None:
        attrs["shape"] = (shape,) if isinstance(shape, int) else tuple(shape)
    return base.record1(LIKE[name], (base.as_tensor(a), *fill), attrs)


def _linspace_rule(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    inner = base.broadcast_shapes(base.shape_of(start), base.shape_of(stop))
    axis = base.normalize_axis(axis, len(inner) + 1)
    sample = np.linspace(base.example(start), base.example(stop), 2, dtype=dtype)
    shape = list(inner)
    shape.insert(axis, num)
    return [(tuple(shape), sample.dtype)]


LINSPACE = core.register("np.linspace", np.linspace, _linspace_rule)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if retstep:
        raise _unsupported("np.linspace(retstep=True)",
                           "Compute the step as (stop - start) / (num - 1) instead.")
    attrs = {"num": operator.index(num), "endpoint": bool(endpoint), "axis": axis}
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    # (a staged Python number is weak, as numpy's: np.linspace(x_f32, float(n)) is float32)
    return base.record1(LINSPACE, tuple(random.met_together([start, stop])), attrs)


def _sort_rule(result_dtype):
    def infer(a, axis=-1, kind=None):
        if axis is None:
            return [((base.product(a.static_shape),), result_dtype or a.dtype)]
        base.normalize_axis(axis, len(a.static_shape))
        return [(a.static_shape, result_dtype or a.dtype)]
    return infer


SORT = core.register("np.sort", np.sort, _sort_rule(None))
ARGSORT = core.register("np.argsort", np.argsort, _sort_rule(np.dtype(np.intp)))


def sort(op, a, axis=-1, kind=None, order=None, stable=None):
    if order is not None:
        raise _unsupported("sorting by field (order=...)",
                           "Graph tensors have no fields: drop order=, or sort outside "
                           "the ag.function.")
    attrs = {"axis": axis}
    if kind is not None:
        attrs["kind"] = kind
    return base.record1(op, (base.as_tensor(a),), attrs)


def _round_rule(a, decimals=0):
    # (numpy's dtype, from a stand-in: a bool array rounds to float16, and
    # decimals != 0 of one is numpy's casting error, here at trace time)
    with np.errstate(all="ignore"):
        sample = np.round(base.example_nd(a), decimals)
    return [(a.static_shape, sample.dtype)]


def _triangle_rule(a, k=0):
    # numpy's triu/tril of a 1-d m is of np.tile(m, (n, 1)): shape (n, n);
    # of a 0-d one its TypeError
    shape = a.static_shape
    if len(shape) == 0:
        raise base.RuleError("tri() missing 1 required positional argument: 'N'", TypeError)
    return [((shape[0], shape[0]) if len(shape) == 1 else shape, a.dtype)]


ROUND = core.register("np.round", np.round, _round_rule)
TRIU = core.register("np.triu", np.triu, _triangle_rule)
TRIL = core.register("np.tril", np.tril, _triangle_rule)


def same_shape(op, a, **attrs):
    return base.record1(op, (base.as_tensor(a),), {k: v for k, v in attrs.items() if v})


def _tile_rule(a, reps):
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    ndim = max(len(a.static_shape), len(reps))
    shape = (1,) * (ndim - len(a.static_shape)) + tuple(a.static_shape)
    reps = (1,) * (ndim - len(reps)) + reps
    return [(tuple(None if d is None else d * r for d, r in zip(shape, reps)), a.dtype)]


TILE = core.register("np.tile", np.tile, _tile_rule)


def _repeat_rule(a, repeats, axis=None):
    if not isinstance(repeats, int):
        raise base.RuleError("repeats must be a Python int on graph tensors")
    if axis is None:
        size = base.product(a.static_shape)
        return [((None if size is None else size * repeats,), a.dtype)]
    axis = base.normalize_axis(axis, len(a.static_shape))
    shape = list(a.static_shape)
    shape[axis] = None if shape[axis] is None else shape[axis] * repeats
    return [(tuple(shape), a.dtype)]


REPEAT = core.register("np.repeat", np.repeat, _repeat_rule)


def _isclose_rule(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return [(base.broadcast_shapes(base.shape_of(a), base.shape_of(b)), np.dtype(np.bool_))]


def _allclose_rule(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    base.broadcast_shapes(base.shape_of(a), base.shape_of(b))
    return [((), np.dtype(np.bool_))]


ISCLOSE = core.register("np.isclose", np.isclose, _isclose_rule)
ALLCLOSE = core.register("np.allclose", np.allclose, _allclose_rule)


# --- arrays whose sizes are known only when the graph runs -------------------------
# (np.zeros(n), np.full((n, 3), x), np.arange(n) with a tensor n: numpy calls
# no hook for these, so the runtime routes them here: backends/graph.py)

def _check_size(dim):
    if base.shape_of(dim) != () or np.dtype(getattr(dim, "dtype", np.int64)).kind not in "iub":
        raise base.RuleError(f"a size must be an integer scalar, got {dim!r}", TypeError)


def _filled_rule(fill, *dims, shape, dtype):
    for dim in dims:
        _check_size(dim)
    base.broadcast_shapes(base.shape_of(fill), shape)  # numpy's check, on known dims
    return [(tuple(shape), dtype)]


def _filled_kernel(fill, *dims, shape, dtype):
    sizes = iter(dims)
    return np.full(tuple(int(next(sizes)) if d is None else d for d in shape), fill, dtype)


FILLED = core.register("np.full", _filled_kernel, _filled_rule)


def filled(shape, fill, dtype):
    """`np.full(shape, fill, dtype)` where dims of `shape` (ints or 0-d integer
    tensors) may be tensors: those dims are unknown (None) in the graph."""
    shape = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    template = tuple(None if isinstance(d, Tensor) else int(d) for d in shape)
    dims = [d for d in shape if isinstance(d, Tensor)]
    return base.record1(FILLED, (fill, *dims), {"shape": template, "dtype": np.dtype(dtype)})


def _arange_rule(start, stop, step, dtype=None):
    for bound in (start, stop, step):
        if base.shape_of(bound) != ():
            raise base.RuleError(f"np.arange takes scalars, got {bound!r}", TypeError)
    sample = np.arange(base.example(start), base.example(start), base.example(step) or 1,
                       dtype=dtype)
    return [((None,), sample.dtype)]


ARANGE = core.register("np.arange", np.arange, _arange_rule)


def arange(start, stop, step, dtype=None):
    """`np.arange(start, stop, step, dtype)` with tensor bounds: length unknown."""
    attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
    return base.record1(ARANGE, (start, stop, step), attrs)
