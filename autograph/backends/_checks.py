"""Leaves of branch outputs and loop state, and the checks the graph backend
runs on them (each failure is a catalog error naming the user's variable).

State is nested lists/tuples/dicts (exactly those types, as the runtime's
structure check sees them); everything else is a leaf.  Every
`UndefinedReturnValue` is replaced by one shared instance, so "no `return`
ran in either branch" is recognised by identity.
"""

import numpy as np

from autograph import errors
from autograph import graph as engine
from autograph.graph import core
from autograph.graph.ops.lists import TensorList
from autograph.graph.tensor import Tensor
from autograph.runtime.special_values import Undefined, UndefinedReturnValue

UNDEFINED_RETURN = UndefinedReturnValue()
_NUMBERS = (bool, int, float, complex)
_ARRAYS = (Tensor, np.ndarray, np.generic)


def is_number(value):
    return type(value) in _NUMBERS


def is_carried(value):
    """Can this leaf be a loop variable of the graph's while_loop?"""
    return isinstance(value, _ARRAYS) or type(value) in _NUMBERS


user_location = errors.where_user


# --- flattening ---------------------------------------------------------------

class Leaves:
    __slots__ = ("structure", "values", "names")

    def __init__(self, structure, values, names):
        self.structure, self.values, self.names = structure, values, names


_LEAF = None


def flatten(value, names, lists_become_tensor_lists=False):
    """`value` (a tuple, one entry per name) as Leaves; leaf names read like
    `state[0]['k']`.  With `lists_become_tensor_lists`, an empty list is a
    leaf holding a new, empty TensorList."""
    values, leaf_names = [], []

    def walk(v, name):
        kind = type(v)
        if kind is list and not v and lists_become_tensor_lists:
            values.append(engine.list_new())
            leaf_names.append(name)
            return _LEAF
        if kind is tuple or kind is list:
            return (kind, tuple(walk(item, f"{name}[{i}]") for i, item in enumerate(v)))
        if kind is dict:
            return (dict, tuple((k, walk(item, f"{name}[{k!r}]")) for k, item in v.items()))
        values.append(UNDEFINED_RETURN if kind is UndefinedReturnValue else v)
        leaf_names.append(name)
        return _LEAF

    structure = tuple(walk(v, name) for v, name in zip(value, names))
    return Leaves(structure, values, leaf_names)


def unflatten(structure, values):
    """Fresh containers of `structure` around `values` (a tuple, one per name)."""
    items = iter(values)

    def build(node):
        if node is _LEAF:
            return next(items)
        kind, children = node
        if kind is dict:
            return {k: build(child) for k, child in children}
        return kind(build(child) for child in children)

    return tuple(build(node) for node in structure)


# --- describing values for messages --------------------------------------------

def describe(value):
    if isinstance(value, TensorList):
        dtype = value.element_dtype.name if value.element_dtype is not None else "?"
        return f"a staged list of {dtype} items"
    if isinstance(value, Tensor):
        return f"a tensor of dtype {value.dtype.name} and shape {_shape(value.shape)}"
    if isinstance(value, (np.ndarray, np.generic)):
        return f"an array of dtype {value.dtype.name} and shape {_shape(np.shape(value))}"
    if type(value) is UndefinedReturnValue:
        return "no return value"
    if type(value) is Undefined:
        return "undefined"
    if type(value) in _NUMBERS:
        return f"the Python {type(value).__name__} {value!r}"
    text = repr(value)
    return f"the Python value {text if len(text) <= 60 else text[:57] + '...'}"


def _shape(shape):
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + \
        (",)" if len(shape) == 1 else ")")


def _dtype(value):
    if isinstance(value, TensorList):
        return None
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return value.dtype
    return None


def _same_python_value(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, _ARRAYS):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an object without a usable == is not "the same"
        return False


# --- branches ----------------------------------------------------------------------

def check_branches(t, f, location):
    if t.structure != f.structure:
        name = next((n for n, a, b in zip(t.names, t.structure, f.structure) if a != b),
                    t.names[0] if t.names else "?")
        raise errors.StagingError(errors.branch_structure_message(
            name.split("[")[0], location, "another nesting", "another nesting"))
    for name, a, b in zip(t.names, t.values, f.values):
        _check_branch_leaf(name, a, b, location)


def _check_branch_leaf(name, a, b, location):
    a_undef, b_undef = a is UNDEFINED_RETURN, b is UNDEFINED_RETURN
    if a_undef and b_undef:
        return
    if name == "retval_" and (a_undef or b_undef or a is None or b is None) and \
            not (a is None and b is None) and not (a_undef and b is None or b_undef and a is None):
        raise errors.StagingError(errors.partial_return_message(
            location, describe(a), describe(b)))

    def fail(message):
        raise errors.StagingError(message(name, location, describe(a), describe(b)))

    a_dtype, b_dtype = _dtype(a), _dtype(b)
    if isinstance(a, TensorList) or isinstance(b, TensorList):
        if not (isinstance(a, TensorList) and isinstance(b, TensorList)):
            fail(errors.branch_kind_message)
        if None not in (a.element_dtype, b.element_dtype) and a.element_dtype != b.element_dtype:
            fail(errors.branch_dtype_message)
        return
    if a_dtype is not None and b_dtype is not None:
        if a_dtype != b_dtype:
            fail(errors.branch_dtype_message)
        if len(np.shape(a) if not isinstance(a, Tensor) else a.shape) != \
                len(np.shape(b) if not isinstance(b, Tensor) else b.shape):
            fail(errors.branch_rank_message)
        return
    if a_dtype is not None or b_dtype is not None:
        array, other, dtype = (a, b, a_dtype) if a_dtype is not None else (b, a, b_dtype)
        if not is_number(other):
            fail(errors.branch_kind_message)
        if np.result_type(dtype, other) != dtype:
            fail(errors.branch_dtype_message)
        return
    if is_number(a) and is_number(b):
        return
    if not _same_python_value(a, b):
        fail(errors.branch_python_value_message)


# --- loops -----------------------------------------------------------------------

def check_same_structure(entry, out, location, loop):
    if entry.structure != out.structure:
        for name, before, after in zip(entry.names, entry.structure, out.structure):
            if before != after:
                raise errors.StagingError(errors.loop_structure_message(
                    name, location, loop, "another nesting", "another nesting"))


def check_unchanged(name, before, after, location, loop):
    """A leaf that is not carried by the loop (a Python value) must stay put."""
    if is_carried(after) or not _same_python_value(before, after):
        if before is UNDEFINED_RETURN:
            return  # retval_ is carried only if the body sets it (see _Loop)
        message = errors.loop_python_value_becomes_tensor_message if isinstance(
            after, _ARRAYS) else errors.loop_python_value_message
        raise errors.StagingError(message(name, location, loop, describe(before),
                                          describe(after)))


def changes_dtype(var, after):
    """Would `after` change the dtype of loop var `var` (a staged value)?"""
    if is_number(after):
        return np.result_type(var.dtype, after) != var.dtype
    dtype = _dtype(after)
    return dtype is not None and dtype != var.dtype


def check_loop_leaf(name, var, after, location, loop):
    def fail(message, hint=None):
        raise errors.StagingError(message(name, location, loop, describe(var), describe(after)))

    if isinstance(var, TensorList) or isinstance(after, TensorList):
        if not (isinstance(var, TensorList) and isinstance(after, TensorList)):
            fail(errors.loop_kind_message)
        if None not in (var.element_dtype, after.element_dtype) and \
                var.element_dtype != after.element_dtype:
            fail(errors.loop_dtype_message)
        return
    if is_number(after):
        if np.result_type(var.dtype, after) != var.dtype:
            fail(errors.loop_dtype_message)
        return
    if not isinstance(after, _ARRAYS):
        fail(errors.loop_kind_message)
    if after.dtype != var.dtype:
        fail(errors.loop_dtype_message)
    shape = after.shape if isinstance(after, Tensor) else np.shape(after)
    if len(shape) != len(var.shape) or any(
            v is not None and v != s for v, s in zip(var.shape, shape)):
        fail(errors.loop_shape_message)


def invariants_by_leaf(entry, shape_invariants, location, loop):
    """{leaf index: shape} from set_loop_options(shape_invariants=[(var, shape)])."""
    found = {}
    for pair in shape_invariants or ():
        try:
            value, shape = pair
        except (TypeError, ValueError):
            raise errors.StagingError(errors.shape_invariant_message(
                repr(pair), location, loop)) from None
        for i, leaf in enumerate(entry.values):
            if leaf is value and isinstance(leaf, _ARRAYS):
                found[i] = None if shape is None else tuple(shape)
                break
        else:
            raise errors.StagingError(errors.shape_invariant_message(
                describe(value), location, loop))
    for i, shape in list(found.items()):
        if shape is None:
            found[i] = (None,) * len(np.shape(entry.values[i]) if not isinstance(
                entry.values[i], Tensor) else entry.values[i].shape)
    return found


def stand_in(graph, value, shape=None):
    """A placeholder-like tensor of `graph` with `value`'s dtype and shape
    (for a dry run of a loop body; it is never executed)."""
    if isinstance(value, Tensor):
        dtype, shape = value.dtype, value.shape if shape is None else shape
    else:
        dtype = np.asarray(value).dtype
        shape = np.shape(value) if shape is None else shape
    node = graph.add_node(core.PLACEHOLDER, (), {}, [(tuple(shape), dtype)], name="stand_in")
    return value._like(node.outputs[0]) if isinstance(value, Tensor) else node.outputs[0]


def input_names(state):
    return [f"<input {i}>" for i in range(len(state))]


def zeros_structure(value, relaxed=None):
    """`value` with each array leaf replaced by zeros of its dtype (a stand-in
    for a return value not set yet); `relaxed` collects {id(zeros): shape}
    for leaves whose shape is only partly known."""
    kind = type(value)
    if kind is tuple or kind is list:
        return kind(zeros_structure(v, relaxed) for v in value)
    if kind is dict:
        return {k: zeros_structure(v, relaxed) for k, v in value.items()}
    zeros = zeros_like_leaf(value)
    if relaxed is not None and isinstance(value, Tensor) and None in value.shape:
        relaxed[id(zeros)] = value.shape
    return zeros


def zeros_like_leaf(value):
    """The loop's initial value for a `retval_` that the body may set."""
    if isinstance(value, TensorList):
        return engine.list_new(value.element_dtype, value.element_shape)
    if isinstance(value, Tensor):
        return np.zeros(tuple(0 if d is None else d for d in value.shape), value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.zeros(np.shape(value), value.dtype)
    if is_number(value):
        return np.zeros((), np.asarray(value).dtype)
    return value


def promoted(name, before, after, location, loop):
    """Python number `before` typed as numpy types it after one iteration."""
    dtype = _dtype(after) if not is_number(after) else np.asarray(after).dtype
    if dtype is None or np.result_type(dtype, before) != dtype:
        raise errors.StagingError(errors.loop_dtype_message(
            name, location, loop, describe(before), describe(after)))
    return np.asarray(before, dtype)
