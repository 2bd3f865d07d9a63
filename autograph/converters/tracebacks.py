"""Keeps tracebacks as Python shows them, with `with ag__.user_tracebacks:`.

    def f(x):                               def f(x):
        def if_true(x):                         with ag__.user_tracebacks:
            x = g(x)                                def if_true(x):
            return (x,)             ==>                 x = g(x)
        ...                                             return (x,)
        (x,) = ag__.if_stmt(...)                    ...
        return x                                    (x,) = ag__.if_stmt(...)
                                                    return x

The functional forms run branches and loop bodies as functions the control
flow passes generated.  When one raises, the traceback holds the user's
function at the `if`, the runtime operator, and the generated function at the
line that raised; Python shows the user's function once, at that line.  The
`with` (its exit runs only when something raised) leaves the generated
function's entry in place of all three; the transpiler names generated code
after the user function that holds it (runtime/tracebacks.py).

Only user functions that define generated functions (directly or inside
other generated ones) get the `with`; a docstring stays first.
"""

import gast

from autograph import templates, trees
from autograph.converters.support import base
from autograph.converters.support.jumps import is_docstring

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


class Transformer(base.Converter):

    STATEMENTS_ONLY = True  # every tree has a function: no HANDLES check
    CREATES = (gast.With,)  # (`with ag__.user_tracebacks:`, after with_statements ran)
    NAMES_WHAT_IT_CREATES = False

    @classmethod
    def transform(cls, node, ctx):
        if not ctx.namer.generated:
            return node  # no name handed out: no generated function to look for
        return super().transform(node, ctx)

    def visit_FunctionDef(self, node):
        if base.may_define_closures(self.ctx):  # (else its functions are all generated)
            self.generic_visit(node)  # nested user functions get their own
        generated = self.ctx.namer.generated
        if node.name in generated or not self._defines_generated(node.body, generated):
            return node
        docstring = node.body[:1] if is_docstring(node.body[0]) else []
        body = node.body[len(docstring):]
        node.body = docstring + templates.replace(
            """
            with ag__.user_tracebacks:
                body
            """, origin=body[0], body=body)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    @staticmethod
    def _defines_generated(stmts, generated):
        stack = list(stmts)
        while stack:
            node = stack.pop()
            if isinstance(node, _FUNCTIONS):
                if node.name not in generated:
                    continue  # a user function: its own scope
                return True
            if isinstance(node, (gast.Lambda, gast.ClassDef)):
                continue
            if isinstance(node, (gast.stmt, gast.excepthandler, gast.match_case)):
                stack.extend(child for child in trees.child_nodes(node)
                             if isinstance(child, (gast.stmt, gast.excepthandler,
                                                   gast.match_case)))
        return False
