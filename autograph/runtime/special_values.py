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
# staging.dead_after_jump), and the values later staged statements pass such
# a value on as (an `if`'s output, a loop's variable and result: the staged
# flag travels with it, `unbound_flags`, `UnboundInLoop`): id(value) ->
# (weakref to it, name, staged "it is unbound").  Only a `finally` body reads
# such a variable without the jump's guard; `ld` stages Python's
# UnboundLocalError for the path where it is unbound.
_unbound_when = {}


def note_unbound_when(value, name, taken):
    """`value` stands for the variable `name`, which is unbound at run time
    when the staged bool `taken` is true."""
    if registry.backend_of(value) is None:
        return  # (a Python value the other branch gave: nothing staged to check)
    key = id(value)
    try:
        ref = weakref.ref(value, lambda _: _unbound_when.pop(key, None))
    except TypeError:
        return  # (a backend whose values cannot be weakly referenced: not checked)
    _unbound_when[key] = (ref, name, taken)


def unbound_condition(value):
    """The staged bool under which the variable `value` stands for is unbound
    (note_unbound_when), or None."""
    if not _unbound_when:
        return None
    entry = _unbound_when.get(id(value))
    return entry[2] if entry is not None and entry[0]() is value else None


def _note(value, name, condition):
    if condition is not None and condition is not False and \
            registry.backend_of(condition) is not None:
        note_unbound_when(value, name, condition)


def unbound_flags(outputs, dead):
    """A staged branch's flag per output: whether the variable is unbound
    when the branch ran -- True at `dead` positions (a stand-in for one it
    left unbound by jumping), the condition of a value already noted, else
    False.  The branch returns them as one more output, so the staged `if`
    itself picks the flag of the branch taken (`note_flagged`)."""
    flags = []
    for i, value in enumerate(outputs):
        condition = True if i in dead else unbound_condition(value)
        flags.append(False if condition is None else condition)
    return tuple(flags)


def note_flagged(values, names, flags):
    """Notes each value unbound when its staged flag is true."""
    for value, name, flag in zip(values, names, flags):
        _note(value, name, flag)


class UnboundInLoop:
    """A staged loop's state holding a value noted unbound-when (a variable a
    staged jump left unbound, read later through this loop): a staged bool
    carried with it says whether it is still unbound, so a read in the test,
    the body or after the loop (`ld`) raises Python's UnboundLocalError on
    the path where Python would.  The body binds it by assigning any value
    (the flag becomes what that value's own condition is, False if none)."""

    def __init__(self, state, names):
        self.positions = [i for i, v in enumerate(state) if unbound_condition(v) is not None]
        self.user_names = tuple(names)
        self.state, self.names = tuple(state), tuple(names)
        if self.positions:
            self.state += tuple(unbound_condition(state[i]) for i in self.positions)
            self.names += tuple(f"<'{names[i]}' unbound>" for i in self.positions)

    def _noted(self, state):
        """The user's part of `state`, each value noted with its carried flag."""
        n = len(self.positions)
        core, flags = state[:-n], state[-n:]
        for i, flag in zip(self.positions, flags):
            _note(core[i], self.user_names[i], flag)
        return core

    def body(self, loop_body, with_item=False):
        if not self.positions:
            return loop_body

        def flags(out):
            out = tuple(out)
            found = (unbound_condition(out[i]) for i in self.positions)
            return out + tuple(False if c is None else c for c in found)
        if with_item:
            return lambda item, *state: flags(loop_body(item, *self._noted(state)))
        return lambda *state: flags(loop_body(*self._noted(state)))

    def test(self, loop_test):
        if not self.positions or loop_test is None:
            return loop_test
        return lambda *state: loop_test(*self._noted(state))

    def result(self, final):
        return tuple(self._noted(tuple(final))) if self.positions else final


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


