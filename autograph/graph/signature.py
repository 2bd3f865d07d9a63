"""Cache keys for `ag.function` calls, and rebuilding arguments for tracing.

Key rules: numpy arrays and numpy scalars by (shape, dtype) -- they become
graph inputs ("leaves"); Python scalars and strings by type and value (floats
and complex numbers by their bit pattern, so -0.0 and 0.0 differ and a NaN
matches itself; True and 1 differ by type); lists,
tuples, namedtuples, dicts and dataclass instances flattened (a dataclass
argument reaches the traced function as a fresh instance around the
placeholders); `ag.Variable` and any other object by identity.  `TensorSpec` stands for an array of that shape (None dims
allowed) in `get_concrete_function`.
"""

import numpy as np

from autograph.graph import slots
from autograph.graph.tensor import Tensor, TensorSpec


class _Marker:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


ARRAY = _Marker("array")
OBJECT = _Marker("object")
NAMEDTUPLE = _Marker("namedtuple")
FIELDS = _Marker("fields")  # a dataclass instance (slots.take_apart)


def _scalar(value, leaves, keep):
    return (type(value), value)


class FloatBits(str):
    """A float's key: its exact bit pattern (`float.hex`), shown as the float.
    `0.0 == -0.0` and `nan != nan`, so the value itself would be a wrong key."""
    __slots__ = ()

    def __repr__(self):
        return repr(float.fromhex(self))


class ComplexBits(str):
    """A complex number's key: the bit patterns of both parts, shown as the value."""
    __slots__ = ()

    def __repr__(self):
        real, imag = self.split(",")
        return repr(complex(float.fromhex(real), float.fromhex(imag)))


def _float(value, leaves, keep):
    return (type(value), FloatBits(float.hex(value)))


def _complex(value, leaves, keep):
    return (type(value), ComplexBits(f"{float.hex(value.real)},{float.hex(value.imag)}"))


def _sequence(value, leaves, keep):
    return (type(value), tuple(key_of(v, leaves, keep) for v in value))


def _dict(value, leaves, keep):
    keys = sorted(value, key=repr)
    return (dict, tuple((k, key_of(value[k], leaves, keep)) for k in keys))


_HANDLERS = {int: _scalar, float: _float, bool: _scalar, str: _scalar, complex: _complex,
             bytes: _scalar, type(None): _scalar, list: _sequence, tuple: _sequence,
             dict: _dict}


def key_of(value, leaves, keep):
    """Hashable key of one argument; array leaves are appended to `leaves`,
    objects keyed by id are appended to `keep` (so their ids stay valid)."""
    kind = type(value)
    if kind is np.ndarray:
        leaves.append(value)
        return (ARRAY, value.shape, value.dtype)
    handler = _HANDLERS.get(kind)
    if handler is not None:
        return handler(value, leaves, keep)
    if isinstance(value, np.generic):
        leaves.append(value)
        return (ARRAY, (), value.dtype)
    if isinstance(value, TensorSpec):
        leaves.append(value)
        return (ARRAY, value.shape, value.dtype)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (NAMEDTUPLE, kind, tuple(key_of(v, leaves, keep) for v in value))
    if isinstance(value, (list, tuple)):
        return _sequence(value, leaves, keep)
    if isinstance(value, dict):
        return _dict(value, leaves, keep)
    parts = slots.take_apart(value)  # a dataclass: by its fields, like a namedtuple
    if parts is not None:
        return (FIELDS, parts[0], tuple(key_of(v, leaves, keep) for v in parts[1]))
    keep.append(value)
    return (OBJECT, id(value))


def call_key(args, kwargs, leaves, keep):
    parts = []
    for a in args:
        if type(a) is np.ndarray:
            leaves.append(a)
            parts.append((ARRAY, a.shape, a.dtype))
        else:
            parts.append(key_of(a, leaves, keep))
    if kwargs:
        return (tuple(parts), _dict(kwargs, leaves, keep))
    return (tuple(parts), None)


def structure_of(key):
    """The key with array shapes reduced to ranks (for shape relaxation)."""
    if type(key) is tuple:
        if key and key[0] is ARRAY:
            return (ARRAY, len(key[1]), key[2])
        return tuple(structure_of(k) for k in key)
    return key


def rebuild(value, make_leaf, path):
    """`value` with array leaves replaced by `make_leaf(leaf, path)`."""
    if isinstance(value, (np.ndarray, np.generic, TensorSpec, Tensor)):
        return make_leaf(value, path)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(rebuild(v, make_leaf, f"{path}.{f}")
                             for v, f in zip(value, value._fields)))
    if isinstance(value, (list, tuple)):
        return type(value)(rebuild(v, make_leaf, f"{path}_{i}") for i, v in enumerate(value))
    if isinstance(value, dict):
        # Leaves in key_of's order (sorted keys); the dict keeps its own order.
        rebuilt = {k: rebuild(value[k], make_leaf, f"{path}_{k}")
                   for k in sorted(value, key=repr)}
        return type(value)((k, rebuilt[k]) for k in value)
    parts = slots.take_apart(value)  # a fresh dataclass around the new leaves
    if parts is not None:
        structure, leaves = parts
        return slots.Rebuilt(structure, ()).build(
            [rebuild(v, make_leaf, f"{path}_{i}") for i, v in enumerate(leaves)])
    return value


def describe(key):
    """Short description of an argument's key, for retracing warnings."""
    if type(key) is tuple and key:
        if key[0] is ARRAY:
            shape = tuple("?" if d is None else d for d in key[1])
            return f"array{shape} {key[2]}"
        if isinstance(key[0], type) and len(key) == 2 and not isinstance(key[1], tuple):
            return f"Python {key[0].__name__} {key[1]!r}"
        if key[0] is OBJECT:
            return "object by identity"
    return "nested structure"
