"""Converts `for` loops to a Python path and a staged path.

    for x in xs:                    iterated = xs
        s = s + x                   if ag__.is_staged(iterated):
                            ==>         def loop_body(x, s):
                                            s = s + x
                                            return (s,)
                                        s, = ag__.for_stmt(iterated, loop_body, (s,), ('s',))
                                    else:
                                        for x in iterated:
                                            s = s + x

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the loop as
written (docs/GENERATED_CODE.md, "Two bodies per function").

The iterable is evaluated once.  The body function takes the item first
(unpacked inside when the target is not a plain name, or when the target is
itself loop state).  A state name surely undefined before the statement starts
as `ag__.Undefined('y')`; one possibly but not surely defined (`if c: y = 1`
before it) as `locals().get('y', ag__.Undefined('y'))`, so an unbound one is
reported by the runtime's undefined-variable check, not as a raw
UnboundLocalError (analysis/definedness.py).  With a jump flag recorded as
Basic.EXTRA_TEST (e.g. `not break_`), the Python path stops natively, before
fetching the next item, once the test is a Python false; if the test has
become staged it keeps unrolling with each body under a staged `if` on the
test:

        loop_cond = not break_
        for x in iterated:
            if not ag__.is_staged(loop_cond):
                <body>
            else:
                <ag__.if_stmt(loop_cond, if_true, if_false, ...) on a staged copy>
            loop_cond = not break_
            if not ag__.is_staged(loop_cond) and not loop_cond:
                break

A loop `else` (no native `break` is left in a stageable loop) runs after.
"""

import gast

from autograph import anno, templates
from autograph.analysis import activity
from autograph.converters import base, staging
from autograph import trees


class Transformer(base.Converter):

    HANDLES = (gast.For,)
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_For(self, node):
        if anno.hasanno(node, anno.Basic.SKIP):
            return self.generic_visit(node)
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)
        target = activity.expression_scope(node.target).bound
        modified = anno.getanno(node, anno.Static.BODY_SCOPE).modified | target
        live = anno.getanno(node, anno.Static.LIVE_IN) | anno.getanno(node, anno.Static.LIVE_OUT)
        extra_reads = activity.expression_scope(extra).read if extra is not None else set()
        state = staging.source_order(node, modified & (live | extra_reads))
        defined = anno.getanno(node, anno.Static.DEFINED_IN)

        why = staging.unstageable(node.body, modified, "a `for` loop")
        if why is not None:
            self.generic_visit(node)
            node.iter = staging.python_only(node.iter, why, origin=node)
            return node

        names = (self.ctx.namer.new("extra_test") if extra is not None else None,
                 self.ctx.namer.new("loop_body"))
        if staging.is_staged_only(node):
            self.generic_visit(node)
            staged = self._staged_path(node, node.iter, names, node.body, state, defined, extra)
            for stmt in staged:
                anno.setanno(stmt, anno.Basic.STAGED_ONLY, True)
            return staged + node.orelse

        iterated = self.ctx.namer.new("iterated")
        staged = self._staged_path(node, staging.load(iterated), names,
                                   self._visit_block(staging.staged_copy(node.body)),
                                   state, defined, extra)
        if extra is not None:
            loop_cond = self.ctx.namer.new("loop_cond")
            guard = self._guarded_body(node, loop_cond, state, defined)
        self.generic_visit(node)
        orelse, node.orelse = node.orelse, []
        iter_expr, node.iter = node.iter, staging.load(iterated)
        python_path = [node]
        if extra is not None:
            python_path = self._python_path_with_extra_test(node, loop_cond, extra, guard)
        dual = templates.replace(
            """
            iterated = iter_expr
            if ag__.is_staged(iterated):
                staged
            else:
                python_path
            """, origin=node, iterated=iterated, iter_expr=iter_expr, staged=staged,
            python_path=python_path)
        staging.mark_dual(dual[1], dual[1].body)
        return dual + orelse

    def _visit_block(self, stmts):
        return self.visit(gast.Module(body=stmts, type_ignores=[])).body

    def _guarded_body(self, node, loop_cond, state, defined):
        """The body under a staged `if` on the (staged) extra test."""
        if_true, if_false = self.ctx.namer.new("if_true"), self.ctx.namer.new("if_false")
        body = self._visit_block(staging.staged_copy(node.body))
        call = templates.replace_as_expression(
            "ag__.if_stmt(loop_cond, if_true, if_false, state, names)", origin=node,
            loop_cond=loop_cond, if_true=if_true, if_false=if_false,
            state=staging.state_tuple(state, defined, node), names=staging.names_tuple(state))
        assign = templates.replace("(state,) = call", origin=node, state=state, call=call)
        return [staging.function(if_true, state, body, state, node),
                staging.function(if_false, state, [], state, node)] + assign

    def _python_path_with_extra_test(self, node, loop_cond, extra, guard):
        body, node.body = node.body, []
        stmts = templates.replace(
            """
            loop_cond = extra
            for_loop
            """, origin=node, loop_cond=loop_cond, extra=extra, for_loop=[node])
        node.body = templates.replace(
            """
            if not ag__.is_staged(loop_cond):
                body
            else:
                guard
            loop_cond = extra
            if not ag__.is_staged(loop_cond) and not loop_cond:
                break
            """, origin=node, loop_cond=loop_cond, body=body, guard=guard,
            extra=trees.clone(extra))
        return stmts

    def _staged_path(self, node, iterated, names, body, state, defined, extra):
        extra_test, loop_body = names
        stmts = []
        item = node.target.id if isinstance(node.target, gast.Name) else None
        if item is None or item in state:
            item = self.ctx.namer.new("itr")
            body = templates.replace("target = item", origin=node, target=node.target,
                                     item=item) + body
        call = templates.replace_as_expression(
            "ag__.for_stmt(iterated, loop_body, state, names)", origin=node,
            iterated=iterated, loop_body=loop_body,
            state=staging.state_tuple(state, defined, node), names=staging.names_tuple(state))
        call.keywords = staging.opts_keywords(node)
        if extra is not None:
            stmts += templates.replace(
                """
                def extra_test(state):
                    return extra
                """, origin=node, extra_test=extra_test, state=list(state),
                extra=staging.staged_copy([gast.Expr(value=trees.clone(extra))])[0].value)
            call.keywords.append(gast.keyword(arg="extra_test", value=staging.load(extra_test)))
        stmts.append(staging.function(loop_body, [item] + list(state), body, state, node))
        if state:
            stmts += templates.replace("(state,) = call", origin=node, state=state, call=call)
        else:
            stmts += templates.replace("call", origin=node, call=call)
        for stmt in stmts:
            anno.setanno(stmt, anno.Basic.STAGED_ONLY, True)
        return stmts
