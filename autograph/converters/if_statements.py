"""Converts `if` statements to their functional form, `ag__.if_stmt`.

    if x > 0:                       def if_true():
        y = x * 2                       y = x * 2
    else:                               return (y,)
        y = -x              ==>     def if_false():
                                        y = -x
                                        return (y,)
                                    (y,) = ag__.if_stmt(x > 0, if_true, if_false, (), ('y',))

    if x > limit:                   def if_true(x):
        x = limit           ==>         x = limit
                                        return (x,)
                                    (x,) = ag__.if_stmt(x > limit, if_true, None, (x,), ('x',))

This pass rewrites the converted body, which runs only while something is
traced: when nothing is, the function runs its original body, the `if` as
written (docs/GENERATED_CODE.md, "Two bodies per function").  The functional
form is the only form: for a Python test `ag__.if_stmt` calls one branch,
exactly as the `if` would; for a staged test it stages both.  An `if`
without `else` whose outputs are its state passes None for the false branch
(the state comes out unchanged).  Nested
statements are converted first and appear once, so the code grows linearly
with nesting (an `elif` chain is an `if` in the `else` branch).

Outputs are the names a branch modifies that are live after the `if`; the
state (the branches' parameters) adds the modified names a branch may read
before assigning.  A state name surely undefined before the statement starts
as `ag__.Undefined('y')`; one possibly but not surely defined (`if c: y = 1`
before it) as `locals().get('y', ag__.Undefined('y'))`, so a variable left
unbound by the branch Python takes stays unbound for Python's purposes: a
later read raises Python's UnboundLocalError (converters/variables.py).  An
`if` that cannot be staged (it contains `yield`, an outer loop's `break`, ...)
stays a native `if`, with `ag__.python_only(test, why)` raising if the test is
staged.
"""

import re

import gast

from autograph import anno, templates
from autograph.converters.support import staging


# The flags the jump passes name with these bases (return_statements.py,
# break_statements.py, continue_statements.py, support/jumps.py), numbered
# by the namer; only names the namer generated count.
_JUMP_FLAG = re.compile(r"(do_return|break_|continue_|fjump)(_\d+)?")


class Transformer(staging.Converter):

    HANDLES = (gast.If,)
    CREATES = (gast.Return, gast.Expr)  # (Expr: a functional form with no outputs)
    STATEMENTS_ONLY = True
    NEEDS_ANALYSIS = True
    REQUIRES = (anno.Static.ANALYZED,)

    def visit_If(self, node):
        if anno.hasanno(node, anno.Basic.SKIP):
            return self.generic_visit(node)
        modified = (anno.getanno(node, anno.Static.BODY_SCOPE).modified
                    | anno.getanno(node, anno.Static.ORELSE_SCOPE).modified)
        closure_live = self.closure_live_after(node, modified,
                                               anno.getanno(node, anno.Static.LIVE_OUT))
        live_out = anno.getanno(node, anno.Static.LIVE_OUT) | closure_live
        outputs = self.source_order(modified & live_out)
        # An output a branch may leave as it is is live into that branch.
        read_first = (staging.live_in(node.body, live_out)
                      | staging.live_in(node.orelse, live_out) | closure_live)
        state = self.source_order(modified & read_first)
        if self.all_live:  # `locals()` reads every variable
            outputs = state = self.source_order(modified)
        defined = anno.getanno(node, anno.Static.DEFINED_IN)

        why = staging.unstageable(node, node.body + node.orelse, modified, "an `if` statement",
                                   self.findings)
        if why is not None:
            self.generic_visit(node)
            node.test = staging.python_only(node.test, why, origin=node)
            return node

        # Named before the nested statements, so numbers follow the source order.
        # Without `else`, a branch that returns its state unchanged is left out.
        no_else = not node.orelse and state == outputs
        if_true = self.ctx.namer.new("if_true")
        if_false = None if no_else else self.ctx.namer.new("if_false")
        parts = staging.assigned_parts(node, node.body + node.orelse, modified, self.ctx.namer,
                                       self.findings)
        inplace = staging.inplace_keyword(node.body + node.orelse,
                                          state + [part.text for part in parts],
                                          self.inplace_changes, self.number_names)
        self.generic_visit(node)
        state_tuple = self.state(state, defined, node)
        state_tuple.elts += [part.load(node) for part in parts]
        # the outputs that are jump flags (the runtime must not tell them by name:
        # a user's `break_` is a variable like any other)
        jumps = [name for name in outputs if name in self.ctx.namer.generated
                 and _JUMP_FLAG.fullmatch(name)]
        call = templates.replace_as_expression(
            "ag__.if_stmt(test, if_true, if_false, state, names" +
            (", jumps=jumps)" if jumps else ")"), origin=node,
            test=node.test, if_true=if_true,
            if_false=if_false or gast.Constant(value=None, kind=None),
            state=state_tuple,
            names=staging.names_tuple(outputs + [part.text for part in parts]),
            **({"jumps": staging.names_tuple(jumps)} if jumps else {}))
        if inplace is not None:
            call.keywords.append(inplace)
        targets = outputs + [part.local for part in parts]
        if targets:
            # (the loops' template: one parse per process for the three)
            assign = templates.replace("(state,) = call", origin=node, state=targets, call=call)
        else:
            assign = templates.replace("call", origin=node, call=call)
        for part in parts:
            assign += part.store(part.local, node)
        params = state + [part.local for part in parts]

        # (read by closures that die with the branch: each branch keeps its own)
        kept = (modified & self.closure_names) - closure_live

        def branch(name, body):
            restore = [stmt for part in parts for stmt in part.store(part.local, node)]
            out = outputs + [part.load(node) for part in parts]
            fn = staging.function(name, params, restore + body, out, node)
            if kept:
                anno.setanno(fn, anno.Basic.KEPT_CLOSURE_NAMES, kept)
            return fn

        branches = [branch(if_true, node.body)]
        if if_false is not None:
            branches.append(branch(if_false, node.orelse))
        return branches + assign
