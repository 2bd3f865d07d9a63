"""Conditional expressions: `a if c else b` -> `ag__.if_exp(c, lambda: a, lambda: b, 'c')`.

    y = x * 2 if x > 0 else -x   ==>   y = ag__.if_exp(x > 0, lambda: x * 2, lambda: -x, 'x > 0')

Only the chosen branch runs, as in Python; a staged condition stages a cond.
A branch that cannot move into a lambda (it contains a walrus, `yield`,
`await`, or a frame-dependent call such as zero-argument `super()`) keeps the
Python expression, its test going through `ag__.python_only` (a staged one
is refused naming why).  Nested class bodies are left alone (a lambda there could
not see the class's names).

This module also holds `can_defer`, shared by the other expression passes.
"""

import ast

import gast

from autograph import templates, trees
from autograph.converters.support import base, staging

_FRAME_CALLS = frozenset({"super", "locals", "vars", "dir", "eval", "exec"})

# why an expression that `can_defer` rejects is not staged, for messages
NOT_DEFERRED = "hold a walrus (`:=`), `yield`, `await` or a call such as super() or locals()"


def can_defer(node):
    """Whether `node` means the same inside `lambda: node` (evaluated right away)."""
    for child in trees.nodes(node):
        if isinstance(child, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)):
            return False
        if (isinstance(child, gast.Call) and isinstance(child.func, gast.Name)
                and child.func.id in _FRAME_CALLS
                and not (child.func.id == "super" and child.args)):  # (its frame named)
            return False
    return True


def source_text(node):
    return ast.unparse(trees.gast_to_ast(node))


class Transformer(base.Converter):
    HANDLES = (gast.IfExp,)


    def visit_IfExp(self, node):
        text = source_text(node.test)  # as the user wrote it, before inner rewrites
        self.generic_visit(node)
        if not (can_defer(node.body) and can_defer(node.orelse)):
            node.test = staging.python_only(
                node.test, f"a conditional expression whose branches {NOT_DEFERRED}",
                origin=node)
            return node
        return templates.replace_as_expression(
            "ag__.if_exp(test, lambda: body, lambda: orelse, text)", origin=node,
            test=node.test, body=node.body, orelse=node.orelse,
            text=gast.Constant(value=text, kind=None))
