"""What a saved graph's ops may hold: the attribute schema of each op, by its
registered name, for the loader (loading.py).

    schema_for("np.reshape")   -> {"shape": is_shape}
    schema_for("np.add")       -> {"dtype": is_dtype}     (every ufunc alike)
    check_attrs("np.reshape", {"shape": (2, -1)}) -> None or what is wrong

A schema maps each attribute the op's recorder may set to a predicate on its
decoded value; an attribute not in the schema, or a value the predicate
rejects, is refused.  Ops registered on first use (one per ufunc, ufunc
method, gufunc and reduction) are registered here too when a file names
them, through the same functions tracing uses (`op_named`).  An op that has
no schema here is refused: add its entry when adding the op.
"""


import builtins
import string

import numpy as np

from autograph.graph import core
from autograph.graph.ops import elementwise, linalg, reductions
from autograph.graph.ops.python_ints import MATH_FUNCTIONS as _MATH_FUNCTIONS

DTYPE_KINDS = "biufcUS"  # numbers, bools and strings; never Python objects


class Refused(Exception):
    """What is wrong with a saved graph; `loading.load` turns it into
    SavedGraphError naming the file."""


def need(condition, problem):
    if not condition:
        raise Refused(problem)


def is_int(v):
    return type(v) is int


def is_bool(v):
    return type(v) is bool


def is_number(v):
    return type(v) in (int, float)


def is_str(v):
    return type(v) is str


def is_dtype(v):
    return isinstance(v, np.dtype) and v.kind in DTYPE_KINDS and not v.hasobject


def is_shape(v):
    return type(v) is tuple and all(is_int(d) and d >= -1 for d in v)


def is_element_shape(v):
    return v is None or type(v) is tuple and all(d is None or is_int(d) and d >= 0 for d in v)


def is_axes(v):
    # a recorder may keep the user's list (np.flip(x, axis=[0, 1]))
    return v is None or is_int(v) or type(v) in (tuple, list) and all(is_int(a) for a in v)


def is_count(v):
    return is_int(v) and v >= 0


def _one_of(*predicates):
    return lambda v: any(p(v) for p in predicates)


def _tensordot_axes(v):
    return is_int(v) or type(v) in (tuple, list) and len(v) == 2 and all(
        is_int(a) or type(a) in (tuple, list) and all(is_int(x) for x in a) for a in v)


def _template_part(p):
    return p is None or is_int(p) or type(p) is tuple and len(p) == 2 and p[0] == "t" \
        and is_count(p[1])


def is_index_template(v):
    """getitem's index: ("t", k) tensor k, ("s", start, stop, step), ("i", int),
    ("n",) newaxis, ("e",) ellipsis (see ops/indexing.py)."""
    if type(v) is not tuple:
        return False
    for item in v:
        if type(item) is not tuple or not item:
            return False
        kind = item[0]
        if kind == "t" and len(item) == 2 and is_count(item[1]):
            continue
        if kind == "s" and len(item) == 4 and all(_template_part(p) for p in item[1:]):
            continue
        if kind == "i" and len(item) == 2 and is_int(item[1]):
            continue
        if kind in ("n", "e") and len(item) == 1:
            continue
        return False
    return True


def is_const_value(v):
    if isinstance(v, (np.ndarray, np.generic)):
        return is_dtype(v.dtype)
    return type(v) in (bool, int, float, complex)


def is_builtin_exception(v):
    """A builtin exception's name (a staged `raise`): looked up in builtins only."""
    found = getattr(builtins, v, None) if type(v) is str else None
    return isinstance(found, type) and issubclass(found, BaseException)


def is_plain_tuple(v):
    return type(v) is tuple and all(type(x) in (str, int, float, bool, type(None)) for x in v)


def is_format_template(v, depth=0):
    """A print's template as the f-string converter writes it: fields `{}`
    numbered automatically, never `{0.attr}` or `{0[key]}` (which would read
    attributes of the printed values), in the spec one level deep at most."""
    if type(v) is not str:
        return False
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion
                  in string.Formatter().parse(v) if name is not None]
    except ValueError:
        return False
    return all(name == "" and conversion in (None, "r", "s", "a")
               and (not spec or depth == 0 and is_format_template(spec, 1))
               for name, spec, conversion in fields)


def is_variable(v):
    from autograph.graph.variables import Variable
    return isinstance(v, Variable)


def is_stream(v):
    from autograph.graph.saving import Stream
    return isinstance(v, Stream)


_REDUCE = {"axis": is_axes, "dtype": is_dtype, "keepdims": is_bool, "ddof": is_number}
_LIKE = {"dtype": is_dtype, "shape": is_shape}

SCHEMAS = {
    "placeholder": {}, "const": {"value": is_const_value},
    "cond": {"explicit_args": is_count}, "while_loop": {"explicit_args": is_count},
    "print": {"sep": is_str, "end": is_str, "file": is_stream,
              "template": is_format_template, "arrays": is_plain_tuple},
    "assert": {"error": is_builtin_exception, "error_args": is_plain_tuple},
    "variable.read": {"variable": is_variable}, "variable.assign": {"variable": is_variable},
    "list_new": {}, "list_append": {}, "list_pop": {}, "list_pop_at": {}, "list_length": {},
    "list_set_at": {}, "list_items": {"python": is_bool},
    "list_stack": {"dtype": is_dtype, "shape": is_element_shape},
    "getitem": {"template": is_index_template}, "np.take": {"axis": is_int},
    "astype": {"dtype": is_dtype}, "weak_cast": {"dtype": is_dtype}, "np.reshape": {"shape": is_shape},
    "np.transpose": {"axes": is_axes}, ".T": {},
    "np.squeeze": {"axis": is_axes}, "np.expand_dims": {"axis": is_axes},
    "np.concatenate": {"axis": _one_of(is_int, lambda v: v is None)},
    "np.stack": {"axis": is_int}, "np.broadcast_to": {"shape": is_shape},
    "np.flip": {"axis": is_axes},
    "np.zeros_like": _LIKE, "np.ones_like": _LIKE, "np.empty_like": _LIKE,
    "np.full_like": _LIKE,
    "np.full": {"shape": is_element_shape, "dtype": is_dtype}, "np.arange": {"dtype": is_dtype},
    "np.linspace": {"num": is_count, "endpoint": is_bool, "axis": is_int, "dtype": is_dtype},
    "np.sort": {"axis": _one_of(is_int, lambda v: v is None), "kind": is_str},
    "np.argsort": {"axis": _one_of(is_int, lambda v: v is None), "kind": is_str},
    "np.round": {"decimals": is_int}, "np.triu": {"k": is_int}, "np.tril": {"k": is_int},
    "np.tile": {"reps": _one_of(is_int, is_shape, lambda v: type(v) is list and is_shape(tuple(v)))},
    "np.repeat": {"repeats": is_int, "axis": is_int},
    "np.isclose": {"rtol": is_number, "atol": is_number, "equal_nan": is_bool},
    "np.allclose": {"rtol": is_number, "atol": is_number, "equal_nan": is_bool},
    "np.where": {}, "np.nonzero": {}, "np.clip": {},
    "np.dot": {}, "np.outer": {}, "np.tensordot": {"axes": _tensordot_axes},
    "np.einsum": {"optimize": _one_of(is_bool, is_str), "dtype": is_dtype,
                  "casting": is_str, "order": is_str},
    "np.cumsum": {"axis": is_int, "dtype": is_dtype},
    "np.cumprod": {"axis": is_int, "dtype": is_dtype},
    "np.linalg.norm": {"ord": _one_of(is_number, is_str), "axis": is_axes,
                       "keepdims": is_bool},
    "dim": {"axis": is_int},
    # a draw calls a live Python generator: saving refuses it, and a file naming
    # it is refused here (every attribute it would need is outside this schema)
    "random.draw": {},
}


def is_normal_axes(v):
    """Axes as the gradient rules normalise them: distinct non-negative ints."""
    return type(v) is tuple and all(is_count(a) for a in v) and len(set(v)) == len(v)


def is_static_or_unknown_shape(v):
    return type(v) is tuple and all(d is None or is_count(d) for d in v)


def is_tape_dtype(v):
    # a tape may carry a staged list (its value a Python list, its dtype object)
    return is_dtype(v) or v == np.dtype(object)


# the gradient ops (grad_rules.py, autodiff.py); an op whose recorder copies
# another op's attributes shares that op's schema
SCHEMAS.update({
    "grad.sum_to": {}, "grad.reshape_like": {}, "grad.watch": {},
    "grad.spread": {"axes": is_normal_axes, "keepdims": is_bool},
    "grad.count": {"axes": is_normal_axes, "ddof": is_number},
    "grad.part": {"axis": SCHEMAS["np.concatenate"]["axis"], "index": is_count},
    "grad.scatter": SCHEMAS["getitem"], "grad.take_scatter": SCHEMAS["np.take"],
    "grad.unsort": SCHEMAS["np.sort"], "grad.resort": SCHEMAS["np.sort"],
    "grad.untile": SCHEMAS["np.tile"],
    "grad.unrepeat": SCHEMAS["np.repeat"],
    # a tape's value is a Python object (None or nested tuples of arrays) made
    # at run time; the ops making and reading it hold data only
    "grad.tape_new": {}, "grad.pack": {}, "grad.tape_push": {}, "grad.tape_pop": {},
    "grad.tape_nonempty": {},
    "grad.tape_get": {"index": is_count, "shape": is_static_or_unknown_shape,
                      "dtype": is_tape_dtype},
})

# a loop's Python int and float arithmetic (ops/python_ints.py): what its refusal names
SCHEMAS.update({
    f"python_int.{name}": {"variable": is_str, "expression": is_str, "where": is_str}
    for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "power",
                 "left_shift", "right_shift", "divide", "negative", "absolute")})
SCHEMAS.update({
    f"python_float.{name}": {"variable": is_str, "expression": is_str, "where": is_str}
    for name in ("divide", "floor_divide", "remainder", "power")})
SCHEMAS["python_float.round"] = {"ndigits": is_int}
SCHEMAS["python_path.check"] = {"message": is_str}
SCHEMAS["python_path.number"] = {
    "kind": lambda v: type(v) is str and v in ("bool", "int", "float", "complex")}
SCHEMAS["python_float.math"] = {"function": lambda v: type(v) is str and v in _MATH_FUNCTIONS}


def _ufunc(name):
    # numpy's namespace dict, not getattr: a name from a file must not import
    # numpy's lazy submodules or trigger its deprecation hooks
    value = vars(np).get(name)
    return value if isinstance(value, np.ufunc) else None


def schema_for(op_name):
    """The attribute schema of the op registered (or registrable) as `op_name`,
    or None for an op a saved graph may not hold."""
    schema = SCHEMAS.get(op_name)
    if schema is not None:
        return schema
    parts = op_name.split(".")
    if parts[0] != "np" or len(parts) not in (2, 3):
        return None
    if len(parts) == 2 and parts[1] in reductions._KWARGS:
        return {k: _REDUCE[k] for k in reductions._KWARGS[parts[1]]}
    ufunc = _ufunc(parts[1])
    if ufunc is None:
        return None
    if len(parts) == 3:
        return _REDUCE if parts[2] in ("reduce", "accumulate", "outer") else None
    return {"dtype": is_dtype} if ufunc.signature is None else {}


def op_named(op_name):
    """The registered OpDef for `op_name`, registering an op made on first use
    (ufuncs, their methods, gufuncs, reductions) the way tracing does; None
    when there is no such op."""
    if schema_for(op_name) is None:
        return None
    op = core.REGISTRY.get(op_name)
    if op is not None:
        return op
    parts = op_name.split(".")
    if len(parts) == 2 and parts[1] in reductions._KWARGS:
        return reductions._op(parts[1])
    ufunc = _ufunc(parts[1])
    if len(parts) == 3:
        return elementwise._method_op(ufunc, parts[2])
    if ufunc.signature is not None:
        return linalg.gufunc_op(ufunc)
    return elementwise._ufunc_op(ufunc)


def check_attrs(op_name, attrs):
    """None when `attrs` fit the op's schema, else what is wrong."""
    schema = schema_for(op_name)
    for key, value in attrs.items():
        check = schema.get(key)
        if check is None:
            return f"op {op_name!r} has no attribute {key!r}"
        if not check(value):
            return f"attribute {key!r} of op {op_name!r} is {short(value)}, not a valid value"
    return None


def short(value):
    """repr(value), cut to 60 characters (for messages about a saved file)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
