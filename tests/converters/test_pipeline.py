"""The pipeline skips a pass only when the tree surely holds nothing it handles.

transpiler.run_pipeline computes the node types once and, after each pass,
adds CREATED_BY_PASSES: every handled type a pass may create must be listed
there.  Checked pass by pass over the corpus."""

import types

import pytest

from autograph import analysis, context, converters, naming, source, transpiler, trees
from tests.corpus import programs

HANDLED = tuple({t for transformer in converters.PIPELINE for t in transformer.HANDLES})


def _corpus_functions():
    found = {}
    for case in programs.CASES:
        fn = case.entity
        if type(fn) is types.FunctionType and case.name not in programs.REJECTED:
            found.setdefault(fn.__qualname__, fn)
    return list(found.values())


@pytest.mark.parametrize("fn", _corpus_functions(), ids=lambda fn: fn.__qualname__)
def test_passes_create_only_listed_handled_types(fn):
    node, info = source.get_entity(fn)
    ctx = context.Context(info=info, options=context.ConversionOptions(),
                          namer=naming.Namer(naming.names_in(node) | set(fn.__code__.co_names)
                                             | set(transpiler.GENERATED_NAMES)))
    for transformer in converters.PIPELINE:
        before = trees.node_types(node)
        if transformer.NEEDS_ANALYSIS:
            analysis.resolve(node, ctx)
        node = transformer.transform(node, ctx)
        created = {t for t in trees.node_types(node) - before if issubclass(t, HANDLED)}
        assert created <= transpiler.CREATED_BY_PASSES, (transformer.__module__, created)
