"""A `raise` in a branch or loop function becomes a run-time check when staged.

    def if_true():                          def if_true():
        raise ValueError('negative')  ==>       raised = ValueError('negative')
                                                if ag__.raise_stmt(raised):
                                                    raise raised

When the branch runs as Python, `ag__.raise_stmt` returns True and the
user's exception is raised at the user's line, as written.  While a backend
traces a staged branch, raising would stop the trace for inputs that may
never take that branch: `raise_stmt` stages a check that raises (with the
exception's text) when the graph takes the branch, the way a staged `assert`
is staged, and the branch ends there (its outputs stand-ins of the other
branch's: staging.BranchRaised).  Only `raise` statements in the functions
the control-flow passes generated are rewritten; a bare `raise` (re-raise)
stays as it is, and `raise exc from cause` keeps its cause on Python paths
(`raise raised from cause`; a staged check raises `exc`'s type and text).

A `raise` in the body of a `try` whose handlers may catch it names them, so
that Python's handler runs for an exception they catch (while tracing, as
Python would) and only one that leaves the `try` is staged:

    try:                                  try:
        raise KeyError('k')       ==>         raised = KeyError('k')
    except KeyError:                          if ag__.raise_stmt(raised, lambda: (KeyError,)):
        x = -x                                    raise raised
                                          except KeyError:
                                              x = -x
"""

import gast

from autograph import anno, templates, trees
from autograph.converters.support import base, staging


class Transformer(base.Converter):

    HANDLES = (gast.Raise,)
    CREATES = (gast.If,)
    STATEMENTS_ONLY = True

    @classmethod
    def transform(cls, node, ctx):
        generated = ctx.namer.generated
        # (handlers: the `except` types of the `try` bodies around, in this function)
        stack = [(node, False, ())]
        while stack:
            parent, inside, handlers = stack.pop()
            if isinstance(parent, gast.FunctionDef):
                inside, handlers = inside or parent.name in generated, ()
            own = _handler_types(parent)
            guarded = handlers + own
            if inside:
                for field in ("body", "orelse", "finalbody"):
                    stmts = getattr(parent, field, None)
                    if isinstance(stmts, list):
                        around = guarded if field == "body" else handlers
                        stmts[:] = [new for stmt in stmts
                                    for new in cls._rewrite(stmt, ctx, around)]
            body = parent.body if own else None
            for child in trees.child_nodes(parent):
                if staging.user_scope(child, generated):
                    continue  # the user's own function: its raises are its own
                stack.append((child, inside,
                              guarded if body is not None and child in body else handlers))
        return node

    @staticmethod
    def _rewrite(stmt, ctx, handlers):
        if not isinstance(stmt, gast.Raise) or stmt.exc is None \
                or anno.hasanno(stmt, anno.Basic.SKIP):
            return [stmt]
        raised = ctx.namer.new("raised")
        if handlers:
            new = templates.replace(
                """
                raised = exception
                if ag__.raise_stmt(raised, lambda: types):
                    raise raised
                """, origin=stmt, raised=raised, exception=stmt.exc,
                types=gast.Tuple(elts=[trees.clone(t) for t in handlers], ctx=gast.Load()))
        else:
            new = templates.replace(
                """
                raised = exception
                if ag__.raise_stmt(raised):
                    raise raised
                """, origin=stmt, raised=raised, exception=stmt.exc)
        user_raise = new[1].body[0]
        user_raise.cause = stmt.cause  # (evaluated after the exception, as Python does)
        anno.setanno(user_raise, anno.Basic.SKIP, True)  # the user's raise, as is
        return new


def _handler_types(node):
    """The exception types the handlers of `try` statement `node` name (a bare
    `except:` is BaseException); () for any other node."""
    if not isinstance(node, gast.Try):
        return ()
    return tuple(handler.type if handler.type is not None
                 else gast.Name(id="BaseException", ctx=gast.Load(), annotation=None,
                                type_comment=None)
                 for handler in node.handlers)
