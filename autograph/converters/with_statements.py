"""A `with` statement's managers are entered through `ag__.with_item`.

    with contextlib.suppress(ValueError):    ==>   with ag__.with_item(contextlib.suppress(ValueError)):
        check(x)                                       check(x)

For any manager but one whose exit may discard an exception the graph raises
when it runs (contextlib.suppress, a user's `__exit__` that may return a
true value, a @contextmanager catching what its `yield` raises, an
ExitStack holding one: runtime/exceptions.py `with_item`), `with_item(cm)`
is `cm` itself: the statement is Python's.  Such a manager is entered
through a wrapper that marks its body, so a staged `raise` or `assert`
there, which Python's exit could discard but the graph would raise later,
is refused by name.  Runs
before the jump passes: the `with` statements they generate stay as they are.
"""

import gast

from autograph import templates
from autograph.converters.support import base


class Transformer(base.Converter):
    HANDLES = (gast.With,)

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = templates.replace_as_expression(
                "ag__.with_item(manager)", origin=item.context_expr,
                manager=item.context_expr)
        return node
