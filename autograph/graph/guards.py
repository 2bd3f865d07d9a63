"""Values a trace read from outside its arguments, checked on every call.

Tracing runs the Python function once; a numpy array or a number it reads
from a global, a closure cell or an attribute of an argument kept by
identity (`self.w`) becomes a graph constant.  If the user later rebinds
that name to another array or number, running the old graph would return a
wrong value, so `ag.function` keeps, per traced graph, which holder held
which value (`guards_of`), checks them on each call (`guards_hold`) and
traces again when one changed (function.py).  Only names the function's own
code reads are watched, so an attribute the function never reads can change
freely.  An array changed in place is seen where the graph uses it directly
(the constant is that array), not where numpy work at tracing consumed it.
"""

import numpy as np


_SCALARS = (int, float, complex, bool, str)


def _names_read(code, found):
    """Every global or attribute name `code` (and the code nested in it) reads."""
    found.update(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            _names_read(const, found)
    return found


def guards_of(fn, objects):
    """The values a trace may have baked into the graph as constants from
    outside its arguments: numpy arrays and numbers held by the traced
    function's globals and closure cells (and those of the functions it wraps,
    `__wrapped__`: ag.grad traces a wrapper), and by the attributes of
    arguments kept by identity (`self.w`), as far as the code names them.
    Each guard is (holder, name, value, label); name None for a cell; label
    says what it is, for messages ("global 'W'", "attribute 'w'", ...).  A
    later call whose holder holds another array (or another number) traces
    again, where the graph would run with the old one (function.py); in-place
    changes: see the module docstring."""
    functions = []
    while fn is not None and len(functions) < 8 and getattr(fn, "__code__", None) is not None:
        functions.append(fn)
        fn = getattr(fn, "__wrapped__", None)
    names = set()
    for function in functions:
        _names_read(function.__code__, names)
    guards, seen = [], set()

    def watch(holder, name, value, label):
        if (id(holder), name) in seen:
            return
        seen.add((id(holder), name))
        if isinstance(value, (np.ndarray, np.generic)) or type(value) in _SCALARS:
            guards.append((holder, name, value, label))

    for obj in objects:
        attributes = getattr(obj, "__dict__", None)
        if type(attributes) is dict:
            for name in names.intersection(attributes):
                watch(attributes, name, attributes[name], f"attribute '{name}'")
    for function in functions:
        namespace = getattr(function, "__globals__", None)
        if type(namespace) is dict:
            for name in names.intersection(namespace):
                watch(namespace, name, namespace[name], f"global '{name}'")
        free = function.__code__.co_freevars
        for cell, name in zip(getattr(function, "__closure__", None) or (), free):
            try:
                watch(cell, None, cell.cell_contents, f"closure variable '{name}'")
            except ValueError:  # an empty cell
                pass
    return tuple(guards)


_MISSING = object()


def guards_hold(guards):
    """Does every holder still hold the value the graph was traced with?"""
    return replaced(guards) is None


def replaced(guards):
    """The label of the first guard whose holder holds another value, or None."""
    for holder, name, value, label in guards:
        if name is None:
            try:
                current = holder.cell_contents
            except ValueError:
                return label
        else:
            current = holder.get(name, _MISSING)
        if current is not value and (type(current) is not type(value) or
                                     isinstance(value, np.ndarray) or current != value):
            return label
    return None
