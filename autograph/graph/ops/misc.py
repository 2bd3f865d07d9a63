"""Creation from a tensor (zeros_like, ones_like, full_like, empty_like,
linspace), sorting, tile/repeat, rounding, triangles, isclose/allclose."""

import numpy as np

from autograph import errors
from autograph.graph import core
from autograph.graph.ops import base


def _unsupported(what, hint):
    return errors.UnsupportedNumpyArgumentError(
        errors.unsupported_argument_message(what, core.user_location(), hint))


def _like_rule(a, *fill, dtype=None, shape=None):
    out_shape = a.shape if shape is None else ((shape,) if isinstance(shape, int) else shape)
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
    attrs = {"num": int(num), "endpoint": bool(endpoint), "axis": axis}
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return base.record1(LINSPACE, (start, stop), attrs)


def _sort_rule(result_dtype):
    def infer(a, axis=-1, kind=None):
        if axis is None:
            return [((base.product(a.shape),), result_dtype or a.dtype)]
        base.normalize_axis(axis, len(a.shape))
        return [(a.shape, result_dtype or a.dtype)]
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


def _same_shape_rule(a, **attrs):
    return [(a.shape, a.dtype)]


ROUND = core.register("np.round", np.round, _same_shape_rule)
TRIU = core.register("np.triu", np.triu, _same_shape_rule)
TRIL = core.register("np.tril", np.tril, _same_shape_rule)


def same_shape(op, a, **attrs):
    return base.record1(op, (base.as_tensor(a),), {k: v for k, v in attrs.items() if v})


def _tile_rule(a, reps):
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    ndim = max(len(a.shape), len(reps))
    shape = (1,) * (ndim - len(a.shape)) + tuple(a.shape)
    reps = (1,) * (ndim - len(reps)) + reps
    return [(tuple(None if d is None else d * r for d, r in zip(shape, reps)), a.dtype)]


TILE = core.register("np.tile", np.tile, _tile_rule)


def _repeat_rule(a, repeats, axis=None):
    if not isinstance(repeats, int):
        raise base.RuleError("repeats must be a Python int on graph tensors")
    if axis is None:
        size = base.product(a.shape)
        return [((None if size is None else size * repeats,), a.dtype)]
    axis = base.normalize_axis(axis, len(a.shape))
    shape = list(a.shape)
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
