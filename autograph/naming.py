"""Fresh names for generated code that never collide with the user's names."""

import re

import gast

# The names converted code closes over (the runtime module, the function's
# scope): the transpiler's factory parameters.  Where the user's function has
# variables so named, the cells take other names (transpiler.transform,
# Context.cells).
GENERATED_NAMES = ("ag__", "fscope")

# The builtins converted code calls as their runtime operator `ag__.<name>_`
# (runtime/builtins.py): converters/call_trees.py writes those calls, and
# runtime/call.py's override table sends a call of the builtin there.
OPERATOR_BUILTINS = ("print", "len", "range", "enumerate", "zip", "type", "isinstance", "repr",
                     "str", "bool", "max", "min", "float", "int", "sum", "hasattr", "getattr")
# Builtins that call the functions they are given: called through
# `ag__.converted`, which tells a trace of those functions (runtime/call.py)
CALLING_BUILTINS = ("map", "filter", "sorted")


def names_in(node):
    """Every identifier spelled in a tree (names, args, defs, attributes);
    `node` is its root, or already the list of all its nodes (trees.nodes,
    a cheaper walk than gast's, which this layer below trees cannot call)."""
    found = set()
    add = found.add
    name, spelled = gast.Name, SPELLING  # (leaf classes: tested by class, not isinstance)
    for child in node if isinstance(node, list) else gast.walk(node):
        cls = child.__class__
        if cls is name:
            add(child.id)
        elif cls in spelled:
            found.update(spelled[cls](child))
    return found


# The other nodes that spell an identifier, and which (most nodes spell none).
SPELLING = {
    gast.FunctionDef: lambda node: (node.name,),
    gast.AsyncFunctionDef: lambda node: (node.name,),
    gast.ClassDef: lambda node: (node.name,),
    gast.alias: lambda node: ((node.asname or node.name).split(".")[0],),
    gast.Global: lambda node: node.names,
    gast.Nonlocal: lambda node: node.names,
}


class Namer:
    """Hands out readable, unique names: `if_true`, then `if_true_1`, ...

    `generated` records every name handed out, so `locals()` in converted
    code can hide them.
    """

    def __init__(self, taken=()):
        self._taken = set(taken)
        self.generated = set()

    def new(self, base):
        name, n = base, 0
        while name in self._taken:
            n += 1
            name = f"{base}_{n}"
        self._taken.add(name)
        self.generated.add(name)
        return name


def rename(tree, mapping, strings=None):
    """Renames, in place, the variables of a gast tree that `mapping` (old ->
    new) names: wherever a name is read or bound (names, parameters, defs,
    classes, import aliases, `global`/`nonlocal`, match captures).  Attribute
    and keyword-argument names are not variables and stay.  In string
    constants, the names that `strings` maps are replaced wherever they stand
    as a whole identifier (generated code passes variables' names, and the
    text of expressions that spell them, as data for messages): the caller
    picks names no string of the user's contains."""
    if strings:
        spelled = re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, strings)))
        replace = lambda found: strings[found.group()]  # noqa: E731
    for node in gast.walk(tree):
        cls = node.__class__
        if cls is gast.Name:
            node.id = mapping.get(node.id, node.id)
        elif cls is gast.Constant and strings and node.value.__class__ is str:
            node.value = spelled.sub(replace, node.value)
        elif cls in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
            node.name = mapping.get(node.name, node.name)
        elif cls is gast.alias:  # (`import a.b` binds `a`, which no alias can spell)
            bound = node.asname or node.name.split(".")[0]
            if bound in mapping and (node.asname or "." not in node.name):
                node.asname = mapping[bound]
        elif cls in (gast.Global, gast.Nonlocal):
            node.names = [mapping.get(name, name) for name in node.names]
        elif cls in _CAPTURES:
            for field in _CAPTURES[cls]:
                name = getattr(node, field)
                if name is not None:
                    setattr(node, field, mapping.get(name, name))


_CAPTURES = {cls: fields for cls, fields in (
    (getattr(gast, "MatchAs", None), ("name",)), (getattr(gast, "MatchStar", None), ("name",)),
    (getattr(gast, "MatchMapping", None), ("rest",))) if cls is not None}
