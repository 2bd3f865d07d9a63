"""Converts `while` loops to their functional form, `ag__.while_stmt`.

    while n != 1:               def loop_test(n, count):
        count += 1                  return n != 1
        n = step(n)     ==>     def loop_body(n, count):
                                    count += 1
                                    n = ag__.converted(step, fscope)(n)
                                    return (n, count)
                                (n, count) = ag__.while_stmt(loop_test, loop_body, (n, count), ('n', 'count'))

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the loop as
written (docs/GENERATED_CODE.md, "Two bodies per function").  The functional
form is the only form: `ag__.while_stmt` runs the loop in Python while the
test is a Python value (calling the test once per iteration, as `while`
does) and hands the remaining iterations to the backend once it is staged.

Loop state: names the body modifies that are live at the loop head or after
the loop.  A state name surely undefined before the statement starts as
`ag__.Undefined('y')`; one possibly but not surely defined as
`locals().get('y', ag__.Undefined('y'))` (analysis/definedness.py).  `break`,
`continue` and `return` were lowered into flags by earlier passes (a `break`
flag is part of the test) and a loop `else` was moved after the loop.  A loop
that cannot be staged (it contains `yield`, its test assigns with a walrus,
...) stays a native `while`, with `ag__.python_only(test, why)`.
"""

import gast

from autograph import anno, templates, trees
from autograph.converters.support import staging


class Transformer(staging.Converter):

    HANDLES = (gast.While,)
    CREATES = (gast.Return, gast.Expr)  # (Expr: a functional form with no outputs)
    STATEMENTS_ONLY = True
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_While(self, node):
        if anno.hasanno(node, anno.Basic.SKIP):
            return self.generic_visit(node)
        modified = anno.getanno(node, anno.Static.BODY_SCOPE).modified
        live = anno.getanno(node, anno.Static.LIVE_IN) | anno.getanno(node, anno.Static.LIVE_OUT)
        defined = anno.getanno(node, anno.Static.DEFINED_IN)
        state = self.source_order(modified & (live | self.loop_closure_names(modified, defined)))

        why = staging.unstageable(node, node.body, modified, "a `while` loop", self.findings)
        if why is None and any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom,
                                              gast.Await)) for n in trees.nodes(node.test)):
            why = "a `while` loop whose test assigns (walrus), yields or awaits"
        if why is not None:
            self.generic_visit(node)
            node.test = staging.python_only(node.test, why, origin=node)
            return node

        # Named before the nested statements, so numbers follow the source order.
        loop_test, loop_body = self.ctx.namer.new("loop_test"), self.ctx.namer.new("loop_body")
        parts = staging.assigned_parts(node, node.body, modified, self.ctx.namer,
                                       self.findings)
        inplace = staging.inplace_keyword(node.body, state + [part.text for part in parts],
                                          self.inplace_changes, self.number_names)
        self.generic_visit(node)
        params = state + [part.local for part in parts]

        def restore():
            return [stmt for part in parts for stmt in part.store(part.local, node)]

        test_fn = templates.replace(
            """
            def loop_test(state):
                return test
            """, origin=node, loop_test=loop_test, state=list(params), test=node.test)
        test_fn[0].body[:0] = restore()
        state_tuple = self.state(state, defined, node)
        state_tuple.elts += [part.load(node) for part in parts]
        call = templates.replace_as_expression(
            "ag__.while_stmt(loop_test, loop_body, state, names)", origin=node,
            loop_test=loop_test, loop_body=loop_body, state=state_tuple,
            names=staging.names_tuple(state + [part.text for part in parts]))
        call.keywords = staging.opts_keywords(node) + staging.body_first_keyword(
            node, state, anno.getanno(node, anno.Static.COND_SCOPE).read)
        if inplace is not None:
            call.keywords.append(inplace)
        if params:
            assign = templates.replace("(state,) = call", origin=node, state=params, call=call)
        else:
            assign = templates.replace("call", origin=node, call=call)
        assign += restore() + [s for part in parts for s in part.release(node)]
        body_fn = staging.function(loop_body, params, restore() + node.body,
                                   state + [part.load(node) for part in parts], node)
        return test_fn + [body_fn] + assign + node.orelse
