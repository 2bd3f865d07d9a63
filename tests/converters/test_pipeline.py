"""The pipeline skips a pass only when the tree surely holds nothing it handles.

transpiler.run_pipeline computes the node types once and, after each pass,
adds the pass's CREATES: every handled type a pass may create must be listed
there (and, for a pass that NAMES_WHAT_IT_CREATES, a run that handed out no
new name must have created none).  Checked pass by pass over the corpus and
over functions whose only `if`s (or `and`s, `not`s) are the ones the jump
passes create."""

import textwrap
import types

import gast
import pytest

from autograph import analysis, anno, context, converters, naming, source, transpiler, trees
from tests.corpus import programs

HANDLED = tuple({t for transformer in converters.PIPELINE for t in transformer.HANDLES})

JUMPS_WITHOUT_IF = [
    """
    def f(xs, cm):
        for x in xs:
            with cm:
                break
            y = 1
        else:
            y = 2
        return y
    """,
    """
    def f(xs, cm):
        for x in xs:
            with cm:
                continue
            print(x)
    """,
    """
    def f(n):
        while n:
            return n
        return 0
    """,
    """
    def f(xs):
        for x in xs:
            return x
        print(xs)
    """,
]


def _corpus_functions():
    found = {}
    for case in programs.CASES:
        fn = case.entity
        if type(fn) is types.FunctionType and case.name not in programs.REJECTED:
            found.setdefault(fn.__qualname__, fn)
    return list(found.values())


def _extra_tests(node):
    return {id(loop): anno.getanno(loop, anno.Basic.EXTRA_TEST, None)
            for loop in trees.nodes(node) if isinstance(loop, (gast.For, gast.AsyncFor))}


def _check_creates(node, ctx):
    for transformer in converters.PIPELINE:
        before = trees.node_types(node)
        extra_before = _extra_tests(node)
        named = len(ctx.namer.generated)
        if transformer.NEEDS_ANALYSIS:
            analysis.resolve(node, ctx)
        node = transformer.transform(node, ctx)
        extra_after = _extra_tests(node)
        if any(test is not None and extra_before.get(loop) is None
               for loop, test in extra_after.items()):
            # A loop's EXTRA_TEST is outside the tree: the logical-expressions
            # pass (which converts its `not`) runs only because the pass that
            # first put one there named a flag and lists `Not` among what it
            # creates (a later one is ANDed to it: Not is in the tree's types).
            assert len(ctx.namer.generated) > named, (transformer.__module__, "EXTRA_TEST")
            assert gast.Not in transformer.CREATES, (transformer.__module__, "EXTRA_TEST")
        created = {t for t in trees.node_types(node) - before if issubclass(t, HANDLED)}
        assert created <= set(transformer.CREATES), (transformer.__module__, created)
        if transformer.NAMES_WHAT_IT_CREATES and len(ctx.namer.generated) == named:
            # the pipeline adds nothing for such a run (transpiler.run_pipeline)
            assert not created, (transformer.__module__, "created without a new name", created)


@pytest.mark.parametrize("fn", _corpus_functions(), ids=lambda fn: fn.__qualname__)
def test_passes_create_only_listed_handled_types(fn):
    node, info = source.get_entity(fn)
    taken = naming.names_in(node) | set(fn.__code__.co_names) | set(transpiler.GENERATED_NAMES)
    _check_creates(node, context.Context(info=info, options=context.ConversionOptions(),
                                         namer=naming.Namer(taken)))


@pytest.mark.parametrize("text", JUMPS_WITHOUT_IF)
def test_jump_passes_list_the_ifs_they_create(text):
    text = textwrap.dedent(text)
    node = gast.parse(text).body[0]
    assert not trees.contains(node, gast.If)
    info = context.EntityInfo(name="f", filename="<test>", lineno=1, source=text, namespace={})
    _check_creates(node, context.Context(info=info, options=context.ConversionOptions(),
                                         namer=naming.Namer(naming.names_in(node))))


def test_handled_node_types_have_no_subclasses():
    """run_pipeline tests HANDLES against the node classes in the tree by set
    membership: exact only for classes no other node class derives from."""
    for transformer in converters.PIPELINE:
        for handled in transformer.HANDLES:
            assert not handled.__subclasses__(), (transformer.__module__, handled)


# --- statements a pass skips (base.Converter.SEEKS) ---------------------------

def _converted_text(fn, skipping, monkeypatch):
    from autograph.converters.support import base
    if not skipping:
        monkeypatch.setattr(base.Converter, "skip_statements", lambda self, node: None)
    node, _, _ = transpiler.transform(fn, context.ConversionOptions())
    monkeypatch.undo()
    return transpiler.unparse(node)


@pytest.mark.parametrize("fn", _corpus_functions(), ids=lambda fn: fn.__qualname__)
def test_skipped_statements_held_nothing_to_rewrite(fn, monkeypatch):
    """Every pass walking every statement gives the same code as the passes
    skipping the statements whose parse held nothing they seek."""
    assert _converted_text(fn, True, monkeypatch) == _converted_text(fn, False, monkeypatch)


def _sought_in(node, seeks):
    """The nodes of `seeks` types in `node` that a pass seeking them would
    rewrite: for calls, those not of `ag__.<operator>` (call_trees leaves them)."""
    found = []
    for child in trees.nodes(node):
        if not isinstance(child, seeks):
            continue
        func = getattr(child, "func", None)
        if (isinstance(child, gast.Call) and isinstance(func, gast.Attribute)
                and isinstance(func.value, gast.Name) and func.value.id == "ag__"):
            continue
        found.append(child)
    return found


@pytest.mark.parametrize("fn", _corpus_functions(), ids=lambda fn: fn.__qualname__)
def test_statements_without_sought_nodes_get_none_before_their_pass(fn):
    """What the skip relies on: while no pass handed out a name, a statement
    whose parse held none of the types a pass seeks still holds none when
    that pass runs (the passes before create only `ag__` calls)."""
    node, info = source.get_entity(fn)
    _, spelled = trees.node_types_and_names(node)
    taken = spelled | set(fn.__code__.co_names) | set(transpiler.GENERATED_NAMES)
    ctx = context.Context(info=info, options=context.ConversionOptions(),
                          namer=naming.Namer(taken))
    for transformer in converters.PIPELINE:
        if ctx.namer.generated:
            return  # the passes from here on walk every statement
        seeks = transformer.HANDLES if transformer.SEEKS is None else transformer.SEEKS
        if seeks:
            for stmt in trees.nodes(node):
                held = anno.getanno(stmt, anno.Basic.NODE_TYPES, None)
                if held is not None and held.isdisjoint(seeks):
                    assert not _sought_in(stmt, tuple(seeks)), (
                        transformer.__module__, transpiler.unparse(stmt))
        if transformer.NEEDS_ANALYSIS:
            analysis.resolve(node, ctx)
        node = transformer.transform(node, ctx)


def test_statements_without_sought_nodes_are_not_walked(monkeypatch):
    from autograph.converters import logical_expressions
    walked = []
    original = logical_expressions.Transformer.generic_visit

    def recording(self, node):
        walked.append(type(node).__name__)
        return original(self, node)

    monkeypatch.setattr(logical_expressions.Transformer, "generic_visit", recording)
    logical_expressions.Transformer._visitors.clear()  # (dispatch cached per class)
    try:
        transpiler.transform(_skip_sample, context.ConversionOptions())
    finally:
        monkeypatch.undo()
        logical_expressions.Transformer._visitors.clear()
    # the `if` and its test are walked; the calls and assignments are not
    assert "If" in walked and "Compare" in walked
    assert "Assign" not in walked and "Call" not in walked and "Return" not in walked


def _skip_sample(x, scale):
    y = scale.apply(x) * 2
    z = [y, y + 1]
    if x < 0:
        z = scale.apply(z)
    return z
