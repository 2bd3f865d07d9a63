"""Static analysis of one function's gast tree, for the control-flow converters.

`resolve(fn_node, ctx)` (re)computes, for the function and every function
nested in it, the annotations in `anno.Static` (a lambda's reads are part of
the activity of the statement it is in):
  - activity (activity.py): SCOPE, BODY_SCOPE, ORELSE_SCOPE, COND_SCOPE;
  - liveness (liveness.py): LIVE_IN, LIVE_OUT;
  - definedness (definedness.py): DEFINED_IN.
"""

import gast

from autograph import anno, trees
from autograph.analysis import activity, definedness, liveness


_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


def _functions(node):
    """`node` and the functions defined in it (each after the ones that
    contain it).  A `def` is a statement, so only statement lists are
    searched.  Lambdas need no more than the activity analysis of the
    statement they are in: liveness and definedness are about statements."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current is node or isinstance(current, _FUNCTIONS):
            found.append(current)
        attrs = current.__dict__
        for field in trees.STATEMENT_LISTS:
            value = attrs.get(field)
            if value.__class__ is list:
                stack.extend(reversed(value))
    return found


def resolve(fn_node, ctx=None):
    """Annotates `fn_node` (a FunctionDef or Lambda) and returns it."""
    helpers = ctx is None or activity.may_define_closures(ctx.info.source)
    declares = ctx is None or activity.may_declare(ctx.info.source)
    anno.setanno(fn_node, anno.Static.SCOPE, activity.function_scope(fn_node, helpers, declares))
    # (without a nested def in the source, the tree has none: the passes
    # that run before the analysis write no function)
    for fn in _functions(fn_node) if helpers else (fn_node,):
        liveness.function_liveness(fn, helpers)
        definedness.function_definedness(fn)
    anno.setanno(fn_node, anno.Static.ANALYZED, True)
    return fn_node
