"""Converts `while` loops to a Python path and a staged path.

    while n != 1:               while not ag__.is_staged((loop_cond := (n != 1))) and loop_cond:
        count += 1                  count += 1
        n = step(n)     ==>         n = ag__.converted(step, fscope)(n)
                                else:
                                    if ag__.is_staged(loop_cond):
                                        def loop_test(n, count):
                                            return n != 1
                                        def loop_body(n, count):
                                            count += 1
                                            n = ag__.converted(step, fscope)(n)
                                            return (n, count)
                                        n, count = ag__.while_stmt(loop_test, loop_body, (n, count), ('n', 'count'))

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the loop as
written (docs/GENERATED_CODE.md, "Two bodies per function").

The test is evaluated once per iteration, in the loop header, so the Python
path is the native loop (exact even with a `continue` left in the body). When
the test is (or becomes) a staged value the loop leaves through its `else`,
which hands the current state to `ag__.while_stmt`; the user's own `else` runs
after it, as Python runs it after the test fails.  Loop state: names the body
modifies that are live at the loop head or after the loop. A state name surely
undefined before the statement starts as `ag__.Undefined('y')`; one possibly
but not surely defined (`if c: y = 1` before it) as `locals().get('y',
ag__.Undefined('y'))`, so an unbound one is reported by the runtime's
undefined-variable check, not as a raw UnboundLocalError
(analysis/definedness.py).  Inside a staged copy only the staged path is
emitted; a loop that cannot be staged keeps its Python path with
`ag__.python_only(test, why)`.
"""

import gast

from autograph import anno, templates
from autograph.converters import base, staging
from autograph import trees


class Transformer(base.Converter):

    HANDLES = (gast.While,)
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_While(self, node):
        if anno.hasanno(node, anno.Basic.STAGED_FORM) or anno.hasanno(node, anno.Basic.SKIP):
            return self.generic_visit(node)
        modified = anno.getanno(node, anno.Static.BODY_SCOPE).modified
        live = anno.getanno(node, anno.Static.LIVE_IN) | anno.getanno(node, anno.Static.LIVE_OUT)
        state = staging.source_order(node, modified & live)
        defined = anno.getanno(node, anno.Static.DEFINED_IN)

        why = staging.unstageable(node.body, modified, "a `while` loop")
        if why is None and any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom,
                                              gast.Await)) for n in trees.nodes(node.test)):
            why = "a `while` loop whose test assigns (walrus), yields or awaits"
        if why is not None:
            self.generic_visit(node)
            node.test = staging.python_only(node.test, why, origin=node)
            return node

        names = self.ctx.namer.new("loop_test"), self.ctx.namer.new("loop_body")
        if staging.is_staged_only(node):
            self.generic_visit(node)
            staged = self._staged_path(node, names, node.body, state, defined) + node.orelse
            for stmt in staged:
                anno.setanno(stmt, anno.Basic.STAGED_ONLY, True)
            return staged

        staged_body = self._visit_block(staging.staged_copy(node.body))
        staged = self._staged_path(node, names, staged_body, state, defined)
        self.generic_visit(node)
        loop_cond = self.ctx.namer.new("loop_cond")
        dual = templates.replace(
            """
            while not ag__.is_staged(loop_cond := test) and loop_cond:
                body
            else:
                if ag__.is_staged(loop_cond):
                    staged
                orelse
            """, origin=node, loop_cond=loop_cond, test=node.test, body=node.body,
            staged=staged, orelse=node.orelse or [gast.Pass()])
        loop = dual[0]
        if not node.orelse:
            loop.orelse = loop.orelse[:1]
        staging.mark_dual(loop, staged + node.orelse)
        return dual

    def _visit_block(self, stmts):
        return self.visit(gast.Module(body=stmts, type_ignores=[])).body

    def _staged_path(self, node, names, body, state, defined):
        loop_test, loop_body = names
        test_fn = templates.replace(
            """
            def loop_test(state):
                return test
            """, origin=node, loop_test=loop_test, state=list(state),
            test=staging.staged_copy([gast.Expr(value=trees.clone(node.test))])[0].value)
        anno.setanno(test_fn[0], anno.Basic.STAGED_ONLY, True)
        call = templates.replace_as_expression(
            "ag__.while_stmt(loop_test, loop_body, state, names)", origin=node,
            loop_test=loop_test, loop_body=loop_body,
            state=staging.state_tuple(state, defined, node), names=staging.names_tuple(state))
        call.keywords = staging.opts_keywords(node)
        if state:
            assign = templates.replace("(state,) = call", origin=node, state=state, call=call)
        else:
            assign = templates.replace("call", origin=node, call=call)
        return test_fn + [staging.function(loop_body, state, body, state, node)] + assign
