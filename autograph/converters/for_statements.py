"""Converts `for` loops to their functional form, `ag__.for_stmt`.

    for x in xs:                    def loop_body(x, s):
        s = s + x           ==>         s = s + x
                                        return (s,)
                                    (s,) = ag__.for_stmt(xs, loop_body, (s,), ('s',), target='x')

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the loop as
written (docs/GENERATED_CODE.md, "Two bodies per function").  The functional
form is the only form: over a Python iterable `ag__.for_stmt` iterates in
Python, fetching each item once, as `for` does; over a staged one it stages
the loop.

The body function takes the item first (unpacked inside when the target is
not a plain name, or when the target is itself loop state); `target` is the
user's loop variable (None for a tuple target), for messages.  A state name
surely undefined before the statement starts as `ag__.Undefined('y')`; one
possibly but not surely defined as `locals().get('y', ag__.Undefined('y'))`
(analysis/definedness.py).  A jump flag recorded as Basic.EXTRA_TEST (e.g.
`not break_`) becomes `extra_test`, which `for_stmt` checks before fetching
each item.  A loop `else` was moved after the loop by the break pass.  A loop
that cannot be staged (it contains `yield`, ...) stays a native `for`, with
`ag__.python_only(iterable, why)`.
"""

import gast

from autograph import anno, templates
from autograph.analysis import activity
from autograph.converters.support import staging


class Transformer(staging.Converter):

    HANDLES = (gast.For,)
    CREATES = (gast.Return, gast.Expr)  # (Expr: a functional form with no outputs)
    STATEMENTS_ONLY = True
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
        # A closure reading the loop variable sees each item through the shared
        # cell (cell_variables.py): it need not be carried for the closure --
        # unless a closure may read it after the loop (one defined outside it,
        # or one from inside it that outlives it), which sees the last item.
        defined = anno.getanno(node, anno.Static.DEFINED_IN)
        closure_live = self.loop_closure_names(modified if self.all_live else modified - target,
                                               defined)
        if not self.all_live and target & self.escaping_closure_names:
            # (a helper only called reads it where the call is: liveness)
            closure_live |= self.closure_live_after(
                node, target & self.escaping_closure_names, live)
        state = self.source_order(modified & (live | extra_reads | closure_live))

        why = staging.unstageable(node, node.body, modified, "a `for` loop", self.findings)
        if why is not None:
            self.generic_visit(node)
            node.iter = staging.python_only(node.iter, why, origin=node)
            return node

        # Named before the nested statements, so numbers follow the source order.
        loop_body = self.ctx.namer.new("loop_body")
        extra_test = self.ctx.namer.new("extra_test") if extra is not None else None
        parts = staging.assigned_parts(node, node.body, modified, self.ctx.namer,
                                       self.findings, target)
        inplace = staging.inplace_keyword(node.body, state + [part.text for part in parts],
                                          self.inplace_changes, self.number_names)
        self.generic_visit(node)
        params = state + [part.local for part in parts]

        def restore():
            return [stmt for part in parts for stmt in part.store(part.local, node)]

        stmts = []
        body = node.body
        user_name = node.target.id if isinstance(node.target, gast.Name) else None
        item = user_name
        if item is None or item in state:
            item = self.ctx.namer.new("itr")
            nesting = _unpacking(node.target)
            if nesting is None:
                body = templates.replace("target = item", origin=node, target=node.target,
                                         item=item) + body
            else:  # (a staged row unpacked: `for a, b in rows`)
                body = templates.replace("target = ag__.unpack_target(item, nesting)",
                                         origin=node, target=node.target, item=item,
                                         nesting=nesting) + body
        state_tuple = self.state(state, defined, node)
        state_tuple.elts += [part.load(node) for part in parts]
        call = templates.replace_as_expression(
            "ag__.for_stmt(iterated, loop_body, state, names)", origin=node,
            iterated=node.iter, loop_body=loop_body, state=state_tuple,
            names=staging.names_tuple(state + [part.text for part in parts]))
        call.keywords = staging.opts_keywords(node) + staging.body_first_keyword(
            node, state, extra_reads, targets=target)
        if user_name is not None:
            call.keywords.append(gast.keyword(arg="target",
                                              value=gast.Constant(value=user_name, kind=None)))
        if extra is not None:
            stmts += templates.replace(
                """
                def extra_test(state):
                    return extra
                """, origin=node, extra_test=extra_test, state=list(params), extra=extra)
            call.keywords.append(gast.keyword(arg="extra_test", value=staging.load(extra_test)))
        if inplace is not None:
            call.keywords.append(inplace)
        stmts.append(staging.function(loop_body, [item] + params, restore() + body,
                                      state + [part.load(node) for part in parts], node))
        if params:
            stmts += templates.replace("(state,) = call", origin=node, state=params, call=call)
        else:
            stmts += templates.replace("call", origin=node, call=call)
        return stmts + restore() + [s for part in parts for s in part.release(node)] + node.orelse


def _unpacking(target):
    """The nesting of a tuple target (`a, (b, c)`: `(None, (None, None))`,
    `a, *b`: `(None, '*')`) as an expression for `ag__.unpack_target`, or
    None for another target."""
    def nesting(node):
        if isinstance(node, (gast.Tuple, gast.List)):
            return gast.Tuple(elts=[nesting(elt) for elt in node.elts], ctx=gast.Load())
        return gast.Constant(value="*" if isinstance(node, gast.Starred) else None, kind=None)

    return nesting(target) if isinstance(target, (gast.Tuple, gast.List)) else None
