"""Placeholders for variables that have no value yet.

Staged control flow passes every output and loop variable as a value, so a
variable that Python would leave unbound travels as `Undefined('y')`.  Using
it in any way raises the error Python raises for reading an unbound local.
"""

import weakref

from autograph.runtime import registry

_UNBOUND = "cannot access local variable '{}' where it is not associated with a value"


def unbound_error(name):
    """The exception Python raises when reading the unbound local `name`."""
    return UnboundLocalError(_UNBOUND.format(name))


class Undefined:
    """A placeholder for the variable `name`, which has not been assigned yet.

    Python meaning: the variable is unbound; any use of it raises
    UnboundLocalError (its repr only shows the name, for messages).
    """

    __slots__ = ("name",)

    def __init__(self, name):
        object.__setattr__(self, "name", name)

    def __repr__(self):
        return f"Undefined({self.name!r})"

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # protocol probes (copy, numpy, ...) see a plain object
        raise unbound_error(self.name)

    def _fail(self, *args, **kwargs):
        raise unbound_error(self.name)

    __setattr__ = __delattr__ = __call__ = __bool__ = __len__ = __iter__ = _fail
    __getitem__ = __setitem__ = __delitem__ = __contains__ = __index__ = _fail
    __int__ = __float__ = __complex__ = __neg__ = __pos__ = __abs__ = __invert__ = _fail
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __hash__ = object.__hash__
    for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod",
                "pow", "lshift", "rshift", "and", "xor", "or"):
        locals()[f"__{_op}__"] = locals()[f"__r{_op}__"] = locals()[f"__i{_op}__"] = _fail
    del _op


# Values a staged `if` gave a variable that one of its branches left unbound
# because it jumped (`return`/`break`/`continue` before the assignment:
# staging.dead_after_jump): id(value) -> (weakref to it, name, staged "that
# branch was taken").  Only a `finally` body reads such a variable without the
# jump's guard; `ld` stages Python's UnboundLocalError for the path that jumped.
_unbound_when = {}


def note_unbound_when(value, name, taken):
    """`value` stands for the variable `name`, which is unbound at run time
    when the staged bool `taken` is true."""
    if registry.backend_of(value) is None:
        return  # (a Python value the other branch gave: nothing staged to check)
    key = id(value)
    _unbound_when[key] = (weakref.ref(value, lambda _: _unbound_when.pop(key, None)),
                          name, taken)


def ld(value):
    """Reads a variable: `value`; an `Undefined` raises UnboundLocalError.

    Python meaning: reading a local variable, which fails when it is unbound
    (for a staged value left unbound on a path that jumped: when the graph
    runs that path).
    """
    if type(value) is Undefined:
        raise unbound_error(value.name)
    if _unbound_when:
        entry = _unbound_when.get(id(value))
        if entry is not None and entry[0]() is value:
            backend = registry.backend_of(entry[2])
            backend.raise_(backend.logical_not(entry[2]), unbound_error(entry[1]))
    return value


class UndefinedReturnValue:
    """The value of `retval_` before any `return` ran.

    Python meaning: the function has not returned yet; a lowered function
    always sets `retval_` before its final `return retval_`.
    """

    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue()"


