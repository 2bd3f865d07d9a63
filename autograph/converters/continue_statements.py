"""Lowers `continue` into a flag that guards the rest of the loop body.

    while i < n:                        while i < n:
        i += 1                              continue_ = False
        if i % 2:                           i += 1
            continue            ==>         if i % 2:
        total += i                              continue_ = True
                                            else:
                                                total += i

The flag is reset at the top of every iteration.  The block lowering itself
(`JumpLowering`) lives in jumps.py, shared with the return and break passes.
"""

import gast

from autograph import templates
from autograph.converters.support import base
from autograph.converters.support.jumps import JumpLowering, find_jumps


class Transformer(base.Converter):
    HANDLES = (gast.Continue,)
    CREATES = (gast.If, gast.UnaryOp, gast.Not, gast.With)
    STATEMENTS_ONLY = True

    def visit_For(self, node):
        self.generic_visit(node)  # inner loops first: their continues are theirs
        if not find_jumps(node.body, gast.Continue, loops_are_boundaries=True):
            return node
        flag = self.ctx.namer.new("continue_")
        lowering = JumpLowering(self.ctx, gast.Continue, flag, "continue")
        body = lowering.lower_block(node.body)
        if lowering.reads:
            body = templates.replace("flag = False", origin=node.body[0], flag=flag) + body
        node.body = lowering.drop_unread_flag(body)
        return node

    visit_AsyncFor = visit_For
    visit_While = visit_For
