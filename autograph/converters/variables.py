"""Reads of variables that may hold `ag__.Undefined` go through `ag__.ld`.

A variable that a branch Python did not take would have assigned comes back
from `ag__.if_stmt` as `Undefined('y')` (so does a loop variable of a loop
that ran zero times): the control-flow converters start such variables as
`ag__.Undefined('y')`.  Reading it must fail the way Python fails on an
unbound local, so this pass wraps the reads of those names:

    def if_true(y):                         def if_true(y):
        y = 1                                   y = 1
        return (y,)                             return (y,)
    def if_false(y):            ==>         def if_false(y):
        return (y,)                             return (y,)
    (y,) = ag__.if_stmt(c, ..., (ag__.Undefined('y'),), ('y',))
    z = y + 1                               z = ag__.ld(y) + 1

State tuples and the tuples generated functions return (marked SKIP) pass
an `Undefined` along untouched.
"""

import gast

from autograph import anno, templates, trees
from autograph.converters.support import base


def undefined_names(node):
    """Names the converters start as `ag__.Undefined('name')` in `node`."""
    found = set()
    for child in trees.nodes(node):
        if (isinstance(child, gast.Call) and isinstance(child.func, gast.Attribute)
                and child.func.attr == "Undefined"
                and isinstance(child.func.value, gast.Name) and child.func.value.id == "ag__"
                and child.args and isinstance(child.args[0], gast.Constant)):
            found.add(child.args[0].value)
    return found


class Transformer(base.Converter):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.maybe_undefined = None

    @classmethod
    def transform(cls, node, ctx):
        maybe_undefined = anno.getanno(node, anno.Basic.MAYBE_UNDEFINED, None)
        if maybe_undefined is None:  # control flow did not run: a partial pipeline
            maybe_undefined = undefined_names(node)
        if not maybe_undefined:
            return node  # no name can hold an Undefined: nothing to wrap
        transformer = cls(ctx)
        transformer.maybe_undefined = maybe_undefined
        return transformer.visit(node)

    def visit(self, node):
        if anno.hasanno(node, anno.Basic.SKIP):
            return node
        if self.maybe_undefined is None:
            self.maybe_undefined = undefined_names(node)
        return super().visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.maybe_undefined:
            return templates.replace_as_expression("ag__.ld(name)", origin=node, name=node.id)
        return node
