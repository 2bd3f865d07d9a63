"""Indexing and slicing (`x[...]`, static and tensor indices) and `np.take`.

The index is kept as a template: ints, slices and None stay literal; every
tensor (an index array, a mask, a tensor slice bound) becomes a node argument.
Compiled code indexes directly (`v3 = v1[v2, 1:5, None]`).  The shape rule
follows numpy: basic indices, then advanced indices (index arrays, masks, and
ints alongside them) broadcast together, placed where they stand when they
are adjacent and first otherwise.
"""

import numpy as np

from autograph.graph import core
from autograph.graph.ops import base
from autograph.graph.tensor import VIEWS, Tensor


def _build_key(template, tensors):
    def part(p):
        return tensors[p[1]] if isinstance(p, tuple) else p

    key = []
    for item in template:
        kind = item[0]
        if kind == "t":
            key.append(tensors[item[1]])
        elif kind == "s":
            key.append(slice(part(item[1]), part(item[2]), part(item[3])))
        elif kind == "i":
            key.append(item[1])
        elif kind == "n":
            key.append(None)
        else:
            key.append(Ellipsis)
    return tuple(key)


def _getitem_kernel(x, *tensors, template):
    return x[_build_key(template, tensors)]


def _emit_getitem(node, outs, args, ctx):
    def part(p):
        if p is None:
            return ""
        return args[1 + p[1]] if isinstance(p, tuple) else repr(p)

    items = []
    for item in node.attrs["template"]:
        kind = item[0]
        if kind == "t":
            items.append(args[1 + item[1]])
        elif kind == "s":
            text = f"{part(item[1])}:{part(item[2])}"
            items.append(text + (f":{part(item[3])}" if item[3] is not None else ""))
        elif kind == "i":
            items.append(repr(item[1]))
        elif kind == "n":
            items.append("None")
        else:
            items.append("...")
    if len(items) == 1:
        subscript = items[0]
    else:
        subscript = ", ".join(items)
    return [f"{outs[0]} = {args[0]}[{subscript or '()'}]"]


def _slice_length(dim, item):
    _, start, stop, step = item
    if step == 0:
        raise base.RuleError("slice step cannot be zero")
    if dim is None or any(isinstance(p, tuple) for p in (start, stop, step)):
        return dim if (start, stop, step) == (None, None, None) else None
    return len(range(*slice(start, stop, step).indices(dim)))


def _getitem_rule(x, *tensors, template):
    consumed = 0
    for item in template:
        if item[0] in ("i", "s"):
            consumed += 1
        elif item[0] == "t":
            t = tensors[item[1]]
            consumed += t.ndim if t.dtype == np.bool_ else 1
    if consumed > len(x.static_shape):
        raise base.RuleError(f"too many indices for a tensor of shape {x.static_shape}",
                             like=IndexError)
    expanded = []
    for item in template:
        if item[0] == "e":
            expanded.extend([("s", None, None, None)] * (len(x.static_shape) - consumed))
        else:
            expanded.append(item)
    has_advanced = any(item[0] == "t" for item in template)
    result, advanced, positions, pos = [], [], [], 0
    for item in expanded:
        kind = item[0]
        if kind == "n":
            result.append(1)
        elif kind == "s":
            result.append(_slice_length(x.static_shape[pos], item))
            pos += 1
        elif kind == "i":
            dim = x.static_shape[pos]
            if dim is not None and not -dim <= item[1] < dim:
                raise base.RuleError(
                    f"index {item[1]} is out of bounds for axis {pos} with size {dim}", like=IndexError)
            pos += 1
            if has_advanced:
                advanced.append(())
                positions.append(len(result))
        else:
            t = tensors[item[1]]
            if t.dtype == np.bool_:
                if t.ndim == 0:
                    raise base.RuleError("a 0-d boolean tensor is not a valid index", like=IndexError)
                base.broadcast_shapes(t.static_shape, x.static_shape[pos:pos + t.ndim])
                pos += t.ndim
                advanced.append((None,))
            elif np.issubdtype(t.dtype, np.integer):
                pos += 1
                advanced.append(t.static_shape)
            else:
                raise base.RuleError(
                    f"only integer and boolean tensors are valid indices, got {t.dtype}", like=IndexError)
            positions.append(len(result))
    result.extend(x.static_shape[pos:])
    if advanced:
        shape = list(base.broadcast_shapes(*advanced))
        at = positions[0] if len(set(positions)) == 1 else 0
        result[at:at] = shape
    return [(tuple(result), x.dtype)]


GETITEM = core.register("getitem", _getitem_kernel, _getitem_rule, emit=_emit_getitem)


def getitem(x, key):
    graph = base.graph_for((x,))
    key = key if isinstance(key, tuple) else (key,)
    tensors, template = [], []

    def tensor_slot(value):
        tensors.append(base.as_tensor(value, graph))
        return ("t", len(tensors) - 1)

    def bound(value):
        if value is None or isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return None if value is None else int(value)
        return tensor_slot(value)

    for item in key:
        if item is None:
            template.append(("n",))
        elif item is Ellipsis:
            template.append(("e",))
        elif isinstance(item, bool):
            raise _index_error("a Python bool is not a valid tensor index")
        elif isinstance(item, (int, np.integer)):
            template.append(("i", int(item)))
        elif isinstance(item, slice):
            template.append(("s", bound(item.start), bound(item.stop), bound(item.step)))
        else:
            template.append(tensor_slot(item))
    if sum(1 for item in template if item[0] == "e") > 1:
        raise _index_error("an index can only have a single ellipsis ('...')")
    return base.record1(GETITEM, (x, *tensors), {"template": tuple(template)})


def _is_view(node):
    """numpy's basic indexing (ints, slices, None, ...) gives a view, except a
    single item (a numpy scalar: all ints, no `...`); an index array gives a
    copy.  A 0-d integer tensor in the key is an int in Python (a loop
    counter, `for row in y`'s position, np.argmax's result), so a row
    `y[i]` is a view; only a 0-d array argument would index as an array,
    and it shares its trace with a numpy integer (taking it for a view only
    refuses more)."""
    template = node.attrs["template"]
    if not node.outputs[0].static_shape and all(item[0] != "e" for item in template):
        return False
    return all(item[0] != "t" or _integer_scalar(node.args[1 + item[1]]) for item in template)


def _integer_scalar(tensor):
    return tensor.static_shape == () and np.issubdtype(tensor.dtype, np.integer)


VIEWS[GETITEM] = _is_view


def _index_error(detail):
    from autograph import errors
    return errors.GraphIndexError(  # numpy raises IndexError for these
        errors.graph_op_message("getitem", detail, core.user_location()))


# --- np.take --------------------------------------------------------------------


def _take_rule(a, indices, axis=None):
    if isinstance(indices, Tensor) and indices.dtype.kind not in "iub":  # (numpy's error)
        raise base.RuleError(f"Cannot cast array data from {indices.dtype!r} to "
                             f"{np.dtype(np.intp)!r} according to the rule 'same_kind'",
                             TypeError)
    ind_shape = base.shape_of(indices)
    if axis is None:
        return [(tuple(ind_shape), a.dtype)]
    axis = base.normalize_axis(axis, len(a.static_shape))
    return [(a.static_shape[:axis] + tuple(ind_shape) + a.static_shape[axis + 1:], a.dtype)]


TAKE = core.register("np.take", np.take, _take_rule)


def take(a, indices, axis=None):
    graph = base.graph_for((a, indices))
    a = base.as_tensor(a, graph)
    if not isinstance(indices, (int, np.integer, Tensor, np.ndarray)) and \
            not hasattr(indices, "_as_graph_tensor"):
        # numpy converts Python (and numpy scalar) indices as intp: floats truncate,
        # np.take(x, 2.0) is x[2]; an array of floats is its TypeError (_take_rule)
        if not (isinstance(indices, (list, tuple)) and any(
                isinstance(v, Tensor) or hasattr(v, "_as_graph_tensor") for v in indices)):
            indices = np.asarray(indices, dtype=np.intp)
    if not isinstance(indices, (int, np.integer)):
        indices = base.as_tensor(indices, graph)
    return base.record1(TAKE, (a, indices), {} if axis is None else {"axis": axis})

