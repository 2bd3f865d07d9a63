"""Fresh names for generated code that never collide with the user's names."""

import gast


def names_in(node):
    """Every identifier spelled in a tree (names, args, defs, attributes);
    `node` is its root, or already the list of all its nodes (trees.nodes,
    a cheaper walk than gast's, which this layer below trees cannot call)."""
    found = set()
    for child in node if isinstance(node, list) else gast.walk(node):
        if child.__class__ is gast.Name:
            found.add(child.id)
        elif isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            found.add(child.name)
        elif isinstance(child, gast.alias):
            found.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, (gast.Global, gast.Nonlocal)):
            found.update(child.names)
    return found


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
