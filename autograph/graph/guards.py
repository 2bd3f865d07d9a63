"""Values a trace read from outside its arguments, checked on every call.

Tracing runs the Python function once; a numpy array or a number it reads
from a global, a closure cell, an attribute of an argument kept by identity
(`self.w`) or of a module it names (`config.W`) becomes a graph constant.  If the user later rebinds
that name to another array or number, running the old graph would return a
wrong value, so `ag.function` keeps, per traced graph, which holder held
which value (`guards_of`), checks them on each call (`guards_hold`) and
traces again when one changed (function.py).  Only names the function's own
code reads are watched, so an attribute the function never reads can change
freely.

An array can also be changed in place (`W[:] = ...`, `W *= 2`).  Where the
graph uses it directly the constant is that array and sees the change, but
numpy work the trace did on it (`W * 2`, `W.sum()` with no tensor involved)
ran once and its result is baked in; so each watched array's shape, dtype and
bytes are kept when the trace ends and compared on every call (`tobytes()`
and a bytes comparison, exact for NaN and -0.0: ~40 ns for a small array,
~1 us per 30 kB; np.array_equal costs ~1 us even for 16 elements).  A
function that reads no global/cell/attribute array pays nothing.  The fast
call (ConcreteFunction.entry) runs the same checks inline (`watch_lines`).
Arrays held inside lists, dicts or other objects are not watched.
"""

import types

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
    arguments kept by identity (`self.w`) and of modules it reads by name
    (`config.W`), as far as the code names them.
    Each guard is (holder, name, value, label, contents); name None for a
    cell; label says what it is, for messages ("global 'W'", "attribute
    'w'", ...); contents, for an array, its (shape, dtype, bytes) now.  A
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
        if isinstance(value, np.ndarray):
            guards.append((holder, name, value, label,
                           (value.shape, value.dtype, value.tobytes())))
        elif isinstance(value, np.generic) or type(value) in _SCALARS:
            guards.append((holder, name, value, label, None))

    for obj in objects:
        attributes = getattr(obj, "__dict__", None)
        if type(attributes) is dict:
            for name in names.intersection(attributes):
                watch(attributes, name, attributes[name], f"attribute '{name}'")
    def watch_module(module):
        """`config.W` where `config` is a module the function reads by name."""
        if module.__name__.split(".")[0] == "autograph":
            return  # (the runtime's own modules hold no user state)
        attributes = getattr(module, "__dict__", None)
        if type(attributes) is dict:
            for name in names.intersection(attributes):
                watch(attributes, name, attributes[name],
                      f"module attribute '{module.__name__}.{name}'")

    for function in functions:
        namespace = getattr(function, "__globals__", None)
        if type(namespace) is dict:
            for name in names.intersection(namespace):
                watch(namespace, name, namespace[name], f"global '{name}'")
                if isinstance(namespace[name], types.ModuleType):
                    watch_module(namespace[name])
        free = function.__code__.co_freevars
        for cell, name in zip(getattr(function, "__closure__", None) or (), free):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            watch(cell, None, value, f"closure variable '{name}'")
            if isinstance(value, types.ModuleType):
                watch_module(value)
    return tuple(guards)


_MISSING = object()


def guards_hold(guards):
    """Does every holder still hold the value the graph was traced with
    (and every array its contents)?"""
    return stale(guards) is None


def replaced(guards):
    """What the first guard that no longer holds watches (its label, marked
    when the array was changed in place), or None."""
    found = stale(guards)
    if found is None:
        return None
    label, in_place = found
    return f"{label} (changed in place)" if in_place else label


def stale(guards):
    """(label, changed in place?) of the first guard that no longer holds, or None."""
    for holder, name, value, label, contents in guards:
        if name is None:
            try:
                current = holder.cell_contents
            except ValueError:
                return label, False
        else:
            current = holder.get(name, _MISSING)
        if current is not value and (type(current) is not type(value) or
                                     isinstance(value, np.ndarray) or current != value):
            return label, False
        if contents is not None and _changed(value, contents):
            return label, True
    return None


def _changed(array, contents):
    shape, dtype, data = contents
    return array.shape != shape or array.dtype != dtype or array.tobytes() != data


def watch_lines(guards, namespace):
    """Statements (for ConcreteFunction.entry's generated body) that
    `return _MISS` unless every guard holds; the caller then finds which
    one failed (`stale`).  Values are tested by identity here (a number
    equal to the traced one but another object takes the slow path, which
    compares by value).  Constants go into `namespace`."""
    if not guards:
        return []
    held, contents_tests = [], []
    for i, (holder, name, value, label, contents) in enumerate(guards):
        namespace[f"_holder{i}"] = holder
        namespace[f"_traced{i}"] = value
        if name is None:
            held.append(f"_holder{i}.cell_contents is _traced{i}")
        else:
            namespace[f"_name{i}"] = name
            held.append(f"_holder{i}.get(_name{i}) is _traced{i}")
        if contents is not None:
            namespace[f"_shape{i}"], namespace[f"_dtype{i}"], namespace[f"_bytes{i}"] = contents
            contents_tests.append(f"_traced{i}.shape == _shape{i} and _traced{i}.dtype == "
                                  f"_dtype{i} and _traced{i}.tobytes() == _bytes{i}")
    lines = ["try:", f"    if not ({' and '.join(held)}):", "        return _MISS",
             "except ValueError:", "    return _MISS"]  # (an emptied cell)
    if contents_tests:
        lines += [f"if not ({' and '.join(contents_tests)}):", "    return _MISS"]
    return lines
