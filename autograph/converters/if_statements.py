"""Converts `if` statements to a Python path and a staged path.

    if x > 0:                       if_cond = x > 0
        y = x * 2                   if ag__.is_staged(if_cond):
    else:                               def if_true():
        y = -x                              y = x * 2
                            ==>             return (y,)
                                        def if_false():
                                            y = -x
                                            return (y,)
                                        y, = ag__.if_stmt(if_cond, if_true, if_false, (), ('y',))
                                    elif if_cond:
                                        y = x * 2
                                    else:
                                        y = -x

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the `if` as
written (docs/GENERATED_CODE.md, "Two bodies per function").  The test is
evaluated once; the Python path (`elif if_cond:`) is the original statement
with its nested statements converted the same way.

Outputs are the names a branch modifies that are live after the `if`; the
state (the branches' parameters) adds the modified names a branch may read
before assigning.  A state name surely undefined before the statement starts
as `ag__.Undefined('y')`; one possibly but not surely defined (`if c: y = 1`
before it) as `locals().get('y', ag__.Undefined('y'))`, so an unbound one is
reported by the runtime's undefined-variable check, not as a raw
UnboundLocalError (analysis/definedness.py).  Inside a staged copy
(STAGED_ONLY) only the staged path is emitted, with the test inline.  An `if`
that cannot be staged (it contains `yield`, an outer loop's `break`, ...)
keeps only its Python path, with `ag__.python_only(test, why)` raising if the
test is staged.
"""

import gast

from autograph import anno, templates
from autograph.converters import base, staging


class Transformer(base.Converter):

    HANDLES = (gast.If,)
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_If(self, node):
        if anno.hasanno(node, anno.Basic.STAGED_FORM) or anno.hasanno(node, anno.Basic.SKIP):
            return self.generic_visit(node)
        modified = (anno.getanno(node, anno.Static.BODY_SCOPE).modified
                    | anno.getanno(node, anno.Static.ORELSE_SCOPE).modified)
        live_out = anno.getanno(node, anno.Static.LIVE_OUT)
        outputs = staging.source_order(node, modified & live_out)
        # An output a branch may leave as it is is live into that branch.
        read_first = (staging.live_in(node.body, live_out)
                      | staging.live_in(node.orelse, live_out))
        state = staging.source_order(node, modified & read_first)
        defined = anno.getanno(node, anno.Static.DEFINED_IN)

        why = staging.unstageable(node.body + node.orelse, modified, "an `if` statement")
        if why is not None:
            self.generic_visit(node)
            node.test = staging.python_only(node.test, why, origin=node)
            return node

        if staging.is_staged_only(node):
            self.generic_visit(node)
            staged = self._staged_path(node, node.test, self._branch_names(), node.body,
                                       node.orelse, state, outputs, defined)
            for stmt in staged:
                anno.setanno(stmt, anno.Basic.STAGED_ONLY, True)
            return staged

        if_cond = self.ctx.namer.new("if_cond")
        staged = self._staged_path(node, staging.load(if_cond), self._branch_names(),
                                   self._visit_block(staging.staged_copy(node.body)),
                                   self._visit_block(staging.staged_copy(node.orelse)),
                                   state, outputs, defined)
        self.generic_visit(node)
        dual = templates.replace(
            """
            if_cond = test
            if ag__.is_staged(if_cond):
                staged
            """, origin=node, if_cond=if_cond, test=node.test, staged=staged)
        python_path = gast.If(test=staging.load(if_cond),
                              body=node.body, orelse=node.orelse)
        dual[1].orelse = [gast.copy_location(python_path, node)]
        staging.mark_dual(dual[1], dual[1].body)
        return dual

    def _visit_block(self, stmts):
        return self.visit(gast.Module(body=stmts, type_ignores=[])).body

    def _branch_names(self):
        return self.ctx.namer.new("if_true"), self.ctx.namer.new("if_false")

    def _staged_path(self, node, test, branch_names, body, orelse, state, outputs, defined):
        if_true, if_false = branch_names
        call = templates.replace_as_expression(
            "ag__.if_stmt(test, if_true, if_false, state, names)", origin=node,
            test=test, if_true=if_true, if_false=if_false,
            state=staging.state_tuple(state, defined, node), names=staging.names_tuple(outputs))
        if outputs:
            assign = templates.replace("(outputs,) = call", origin=node,
                                       outputs=outputs, call=call)
        else:
            assign = templates.replace("call", origin=node, call=call)
        return [staging.function(if_true, state, body, outputs, node),
                staging.function(if_false, state, orelse, outputs, node)] + assign

