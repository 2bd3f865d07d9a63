"""Static analysis of one function's gast tree, for the control-flow converters.

`resolve(fn_node, ctx)` (re)computes, for the function and every function or
lambda nested in it, the annotations in `anno.Static`:
  - activity (activity.py): SCOPE, BODY_SCOPE, ORELSE_SCOPE, COND_SCOPE;
  - liveness (liveness.py): LIVE_IN, LIVE_OUT;
  - definedness (definedness.py): DEFINED_IN.
"""

import gast

from autograph import anno, trees
from autograph.analysis import activity, definedness, liveness


_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


def _functions(node):
    """`node` and the functions/lambdas nested in it (each after the ones
    that contain it)."""
    return [child for child in trees.nodes(node) if isinstance(child, _FUNCTIONS)]


def resolve(fn_node, ctx=None):
    """Annotates `fn_node` (a FunctionDef or Lambda) and returns it."""
    anno.setanno(fn_node, anno.Static.SCOPE, activity.function_scope(fn_node))
    for fn in _functions(fn_node):
        if fn is not fn_node and isinstance(fn, gast.Lambda):
            activity.function_scope(fn)  # a lambda is no statement: annotate its body here
        liveness.function_liveness(fn)
        definedness.function_definedness(fn)
    anno.setanno(fn_node, anno.Static.ANALYZED, True)
    return fn_node
