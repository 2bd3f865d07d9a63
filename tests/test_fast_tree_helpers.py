"""The fast tree helpers in autograph/trees.py give exactly what the generic
gast/ast functions they replace give, on real source (this repository's)."""

import ast
import copy
import glob
import os
import random

import gast
import pytest

from autograph import naming, trees

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "autograph", "**", "*.py"), recursive=True))
SNIPPET = '''
def f(a, /, b=1, *args, c, d=2, **kw):
    global g
    x = [1, lambda y=2: y and a]
    if x:
        pass
    try:
        raise ValueError from None
    except (TypeError, ValueError) as e:
        del e
    for i, (j, k) in enumerate(x):
        while i:
            i -= 1
        else:
            continue
    match b:
        case [1, *rest] if rest:
            return {**kw, 'r': rest}
    async def h():
        async with a as b:
            await b
    return f"{a!r:>{b}}", b"bytes", ..., x[1:2, ::3]
'''


def _sources():
    yield SNIPPET
    for path in FILES:
        with open(path, encoding="utf-8") as f:
            yield f.read()


def _dump(tree):
    return ast.dump(tree, include_attributes=True)


@pytest.mark.parametrize("index", range(len(FILES) + 1))
def test_parse_and_back_match_gast(index):
    source = list(_sources())[index]
    ours, theirs = trees.parse(source), gast.parse(source)
    assert _dump(ours) == _dump(theirs)
    assert _dump(trees.gast_to_ast(theirs)) == _dump(gast.gast_to_ast(theirs))
    assert _dump(trees.ast_to_gast(ast.parse(source))) == _dump(theirs)


def test_nodes_and_contains_match_walk():
    tree = gast.parse(SNIPPET)
    assert sorted(map(id, trees.nodes(tree))) == sorted(map(id, gast.walk(tree)))
    assert trees.node_types(tree) == {type(n) for n in gast.walk(tree)}
    assert trees.contains(tree, gast.While)
    assert trees.contains(tree, (gast.Global, gast.Nonlocal))
    assert not trees.contains(tree, gast.Nonlocal)
    assert not trees.contains(gast.parse("x = 1"), (gast.If, gast.For))


def test_node_types_and_names_match_walk_and_names_in():
    for source in _sources():
        tree = gast.parse(source)
        assert trees.node_types_and_names(tree) == (
            {type(n) for n in gast.walk(tree)}, naming.names_in(tree))
    types, names = trees.node_types_and_names(gast.parse("def f(a: T) -> R:\n    global g\n"))
    assert {gast.Param, gast.Load, gast.Global} <= types and names == {"f", "a", "T", "R", "g"}


def test_fix_missing_locations_matches_ast():
    rng = random.Random(0)
    for source in _sources():
        tree = ast.parse(source)
        for node in ast.walk(tree):
            for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if attr in node._attributes and rng.random() < 0.3:
                    try:
                        delattr(node, attr)
                    except AttributeError:
                        pass
        expected, ours = copy.deepcopy(tree), copy.deepcopy(tree)
        ast.fix_missing_locations(expected)
        trees.fix_missing_locations(ours)
        assert _dump(ours) == _dump(expected)


def test_converted_modules_translate_as_gast_does(monkeypatch):
    """The trees the transpiler translates back (generated nodes, some without
    positions) give, positions filled in, what gast's translator and the
    separate fix_missing_locations walk give."""
    import types

    from autograph import context, transpiler
    from tests.corpus import programs

    fast = trees.gast_to_located_ast_in_place
    compared = []

    def checked(node):
        theirs = gast.gast_to_ast(node)
        trees.fix_missing_locations(theirs)  # (the separate walk, tested above)
        ours = fast(node)
        assert _dump(ours) == _dump(theirs)
        compared.append(node)
        return ours

    monkeypatch.setattr(trees, "gast_to_located_ast_in_place", checked)
    for case in programs.CASES:
        if type(case.entity) is types.FunctionType and case.name not in programs.REJECTED:
            transpiler._compile(case.entity, context.ConversionOptions())
    assert len(compared) > 100


def test_located_translation_matches_gast_and_fix_missing_locations():
    """gast_to_located_ast_in_place = gast's translation + fix_missing_locations (the
    separate walk, which takes a None position as missing too), on gast trees
    with positions taken away at random (None or absent)."""
    rng = random.Random(1)
    for source in _sources():
        tree = gast.parse(source)
        for node in gast.walk(tree):
            for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if attr in node._attributes and rng.random() < 0.3:
                    if rng.random() < 0.5:
                        setattr(node, attr, None)
                    else:
                        node.__dict__.pop(attr, None)
        theirs = gast.gast_to_ast(tree)
        trees.fix_missing_locations(theirs)
        assert _dump(trees.gast_to_located_ast_in_place(tree)) == _dump(theirs)
