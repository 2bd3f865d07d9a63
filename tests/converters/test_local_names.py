"""local_names: the names a function binds, found by its own walk or, for
functions without nested scopes, imports, captures or declarations, noted
from the transpiler's first walk (note_from_walk): the two must agree."""

import textwrap
import types

import gast
import pytest

from autograph import anno, source, trees
from autograph.converters.support import local_names
from tests.corpus import programs


def _noted(fn_node, text):
    fn_node.__dict__.pop(anno.FIELD, None)
    bound = set()
    present, _ = trees.node_types_and_names(fn_node, bound)
    local_names.note_from_walk(fn_node, present, bound, text)
    return anno.getanno(fn_node, anno.Basic.LOCAL_NAMES, None)


def _corpus_functions():
    found = {}
    for case in programs.CASES:
        fn = case.entity
        if type(fn) is types.FunctionType and fn.__name__ != "<lambda>":
            found.setdefault(fn.__qualname__, fn)
    return list(found.values())


@pytest.mark.parametrize("fn", _corpus_functions(), ids=lambda fn: fn.__qualname__)
def test_names_noted_from_the_first_walk_are_the_local_names(fn):
    node, info = source.get_entity(fn)
    noted = _noted(node, info.source)
    if noted is not None:
        assert noted == local_names._local_names(node)


PLAIN = """
def f(a, /, b, *args, c=1, d: int = 2, **kwargs):
    e = a
    f_, (g, *h) = b, [1, 2, 3]
    i += 1
    j: int = 3
    k: float
    del e
    for m, n in kwargs.items():
        pass
    with open(a) as (o, p):
        pass
    try:
        pass
    except ValueError as q:
        pass
    if (r := c):
        s = r
    x.attr = 1
    y[0] = 2
    return t
"""


def test_a_function_without_nested_scopes_is_noted_without_a_second_walk():
    node = gast.parse(PLAIN).body[0]
    noted = _noted(node, PLAIN)
    assert noted == local_names._local_names(node) == {
        "a", "b", "args", "c", "d", "kwargs", "e", "f_", "g", "h", "i", "j", "k", "m", "n",
        "o", "p", "q", "r", "s"}


@pytest.mark.parametrize("body", [
    "def g(y): z = y",
    "g = lambda z: z",
    "z = [w for w in x]",
    "import os.path as z",
    "global z",
    "class C: z = 1",
    "match x:\n    case [z, *rest]: pass",
])
def test_nested_scopes_imports_captures_and_declarations_take_the_walk(body):
    text = "def f(x):\n" + textwrap.indent(body, "    ") + "\n"
    assert _noted(gast.parse(text).body[0], text) is None
