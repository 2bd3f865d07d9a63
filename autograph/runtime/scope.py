"""The FunctionScope converted code holds in its `fscope` cell, and how the
runtime finds it among a running frame's variables."""


class FunctionScope:
    """Per converted function (not per call): its name, options, the names
    the converters generated, its cells' included (hidden from `locals()`),
    and the callee decisions for its options (held here so a call does not
    hash options)."""

    __slots__ = ("name", "options", "internal_names", "targets")

    def __init__(self, name, options, internal_names=frozenset()):
        from autograph.runtime.call import Targets  # (call imports this module's users)
        self.name = name
        self.options = options
        self.internal_names = internal_names
        self.targets = Targets.of(options)

    def __repr__(self):
        return f"FunctionScope({self.name!r})"


def scope_in(variables):
    """The FunctionScope among a frame's `variables` (its f_locals): the cell
    `fscope` of converted code, or the one the transpiler named otherwise
    because the user's function has a variable `fscope` (Context.cells);
    None in a frame that holds none."""
    scope = variables.get("fscope")
    if scope.__class__ is FunctionScope:
        return scope
    return next((value for value in variables.values() if value.__class__ is FunctionScope),
                None)
