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
and `raise ... from ...` stay as they are.
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
        stack = [(node, False)]
        while stack:
            parent, inside = stack.pop()
            if isinstance(parent, gast.FunctionDef) and parent.name in generated:
                inside = True
            if inside:
                for field in ("body", "orelse", "finalbody"):
                    stmts = getattr(parent, field, None)
                    if isinstance(stmts, list):
                        stmts[:] = [new for stmt in stmts for new in cls._rewrite(stmt, ctx)]
            for child in trees.child_nodes(parent):
                if staging.user_scope(child, generated):
                    continue  # the user's own function: its raises are its own
                stack.append((child, inside))
        return node

    @staticmethod
    def _rewrite(stmt, ctx):
        if not isinstance(stmt, gast.Raise) or stmt.exc is None or stmt.cause is not None \
                or anno.hasanno(stmt, anno.Basic.SKIP):
            return [stmt]
        raised = ctx.namer.new("raised")
        new = templates.replace(
            """
            raised = exception
            if ag__.raise_stmt(raised):
                raise raised
            """, origin=stmt, raised=raised, exception=stmt.exc)
        anno.setanno(new[1].body[0], anno.Basic.SKIP, True)  # the user's raise, as is
        return new
