"""Helpers for the control-flow converter tests."""

import ast
import os
import sys
import textwrap

import gast

from autograph import analysis, context, naming

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime"))

from cf_fake_backend import BACKEND, Sym, SymRange, assert_same, outcome, value  # noqa: E402,F401


def run_passes(source, *modules):
    """Source of the function in `source` after only the given passes."""
    source = textwrap.dedent(source)
    tree = gast.parse(source)
    fn = tree.body[0]
    ctx = context.Context(
        info=context.EntityInfo(name=fn.name, filename="<test>", lineno=1, source=source,
                                namespace={}),
        options=context.ConversionOptions(), namer=naming.Namer(naming.names_in(tree)))
    for module in modules:
        analysis.resolve(fn, ctx)
        fn = module.Transformer.transform(fn, ctx)
    return ast.unparse(gast.gast_to_ast(gast.Module(body=[fn], type_ignores=[])))


def expect(source, *modules):
    return textwrap.dedent(source).strip()
