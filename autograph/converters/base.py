"""What every converter shares: the context, and source-location helpers."""

import gast

from autograph import anno


class Converter(gast.NodeTransformer):
    """Base of every pass. `transform(tree, ctx)` runs the pass on a function.

    A pass that needs facts computed by an earlier pass (annotations) lists
    them in REQUIRES; the transpiler checks them before running the pass.
    """

    REQUIRES = ()      # anno keys that must be on the function node
    NEEDS_ANALYSIS = False  # the transpiler re-runs static analysis first

    def __init__(self, ctx):
        self.ctx = ctx

    @classmethod
    def transform(cls, node, ctx):
        for key in cls.REQUIRES:
            anno.require(node, key, cls.__name__)
        return cls(ctx).visit(node)

    def where(self, node):
        return self.ctx.where(node)

    def visit_ClassDef(self, node):
        # A class body is not a function scope: its statements cannot become
        # nested functions. Its methods are converted when they are called.
        return node


def copy_location(new_nodes, origin):
    """Gives generated nodes (that lack one) the location of `origin`."""
    for top in new_nodes if isinstance(new_nodes, list) else [new_nodes]:
        for node in gast.walk(top):
            if isinstance(node, (gast.expr, gast.stmt)) and not hasattr(node, "lineno"):
                gast.copy_location(node, origin)
    return new_nodes
