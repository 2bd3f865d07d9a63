"""Harness for testing jump/expression passes alone (without the control-flow passes).

`convert(fn, passes)` runs just `passes` on `fn`'s source and compiles the
result with the user's file name; a `for` loop's EXTRA_TEST annotation is
honoured the way `ag__.for_stmt` honours its `extra_test`: checked
after each iteration, before the next item is fetched.
"""

import ast
import contextlib
import copy
import io
import textwrap
import types

import gast

import autograph.runtime as runtime
from autograph import anno, context, naming, source
from autograph.converters import (asserts, break_statements, call_trees, conditional_expressions,
                                  continue_statements, directives, function_scope, lists,
                                  logical_expressions, return_statements)
from autograph.runtime.scope import FunctionScope

JUMPS = (return_statements, break_statements, continue_statements)
# every pass of the jumps-and-expressions engineer, in PIPELINE order
MINE = (function_scope, directives, return_statements, break_statements, continue_statements,
        lists, conditional_expressions, logical_expressions, asserts, call_trees)


class _EmulateExtraTest(gast.NodeTransformer):
    def visit_For(self, node):
        self.generic_visit(node)
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)
        if extra is not None:
            stop = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=copy.deepcopy(extra)),
                           body=[gast.Break()], orelse=[])
            node.body.append(gast.copy_location(stop, node.body[-1]))
        return node


class _FallbackUndefinedReturnValue:
    """Stands in while runtime.special_values does not exist yet."""


def ag_namespace():
    ns = types.SimpleNamespace(**{k: getattr(runtime, k) for k in dir(runtime)
                                  if not k.startswith("__")})
    if not hasattr(ns, "UndefinedReturnValue"):
        ns.UndefinedReturnValue = _FallbackUndefinedReturnValue
    return ns


def transform(fn, passes):
    node, info = source.get_entity(fn)
    if hasattr(node, "decorator_list"):
        node.decorator_list = []
    taken = naming.names_in(node) | {"ag__", "fscope"}
    ctx = context.Context(info=info, options=context.ConversionOptions(),
                          namer=naming.Namer(taken))
    for module in passes:
        node = module.Transformer.transform(node, ctx)
    return node, ctx


def to_source(fn, passes=JUMPS):
    node, _ = transform(fn, passes)
    return ast.unparse(gast.gast_to_ast(node)) + "\n"


def convert(fn, passes=JUMPS):
    node, ctx = transform(fn, passes)
    node = _EmulateExtraTest().visit(node)
    module = gast.gast_to_ast(gast.Module(body=[node], type_ignores=[]))
    ast.fix_missing_locations(module)
    namespace = dict(ctx.info.namespace)
    namespace["ag__"] = ag_namespace()
    namespace["fscope"] = FunctionScope(ctx.info.name, ctx.options,
                                        frozenset(ctx.namer.generated))
    exec(compile(module, ctx.info.filename, "exec"), namespace)
    return namespace[fn.__name__]


def run(fn, *args, **kwargs):
    """(result or None, (exception type, message) or None, printed output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args, **kwargs), None, out.getvalue()
        except Exception as e:  # noqa: BLE001 - the point is to compare them
            return None, (type(e), str(e)), out.getvalue()


def check(fn, *args, passes=JUMPS, **kwargs):
    """Converted and original agree on value, exception and printed output."""
    # each run gets its own copy of the arguments: functions may mutate them
    expected = run(fn, *copy.deepcopy(args), **copy.deepcopy(kwargs))
    actual = run(convert(fn, passes), *copy.deepcopy(args), **copy.deepcopy(kwargs))
    assert actual == expected, f"\nconverted: {actual}\noriginal:  {expected}"
    return expected


def dedent(text):
    return textwrap.dedent(text).lstrip("\n")


def _sample(n):
    for i in range(n):
        if i == 2:
            return i
    return -1


def test_harness_runs_a_converted_function():
    assert check(_sample, 5)[0] == 2
    assert check(_sample, 1)[0] == -1
