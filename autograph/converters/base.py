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
    HANDLES = ()       # node types the pass rewrites: without any, it is skipped

    def __init__(self, ctx):
        self.ctx = ctx
        self._visitors = {}

    # `ast.NodeTransformer` looks the visitor up by name and walks fields
    # through generic helpers for every node; 14 passes do that over every
    # tree, so the lookup is cached per node type and fields are walked
    # directly. Same contract: a visitor returns a node, a list, or None.
    def visit(self, node):
        visitor = self._visitors.get(node.__class__)
        if visitor is None:
            visitor = getattr(self, "visit_" + node.__class__.__name__, self.generic_visit)
            self._visitors[node.__class__] = visitor
        return visitor(node)

    def generic_visit(self, node):
        attrs = node.__dict__
        for field in node._fields:
            value = attrs.get(field)
            if isinstance(value, list):
                new_items = []
                for item in value:
                    if isinstance(item, gast.AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, gast.AST):
                            new_items.extend(item)
                            continue
                    new_items.append(item)
                value[:] = new_items
            elif isinstance(value, gast.AST):
                new_node = self.visit(value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node

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
