"""Asserts keep Python's statement; its test goes through `ag__.assert_stmt`.

    assert x > 0, 'x must be positive'
==>
    assert ag__.assert_stmt(x > 0, lambda: 'x must be positive'), 'x must be positive'

For a Python value `assert_stmt` returns the test unchanged, so the native
statement does exactly what it did: the same AssertionError (message
evaluated only on failure), raised at the user's line, and under `python -O`
nothing at all -- the compiler drops the statement, test included.  A staged
test becomes a run-time assertion of its backend (the lambda gives it the
message), and the native statement then sees True.
"""

import gast

from autograph import templates, trees
from autograph.converters.support import base
from autograph.converters.conditional_expressions import can_defer


class Transformer(base.Converter):
    HANDLES = (gast.Assert,)
    STATEMENTS_ONLY = True


    def visit_Assert(self, node):
        self.generic_visit(node)
        if node.msg is None or not can_defer(node.msg):
            node.test = templates.replace_as_expression(
                "ag__.assert_stmt(test, None)", origin=node, test=node.test)
        else:
            node.test = templates.replace_as_expression(
                "ag__.assert_stmt(test, lambda: msg)", origin=node, test=node.test,
                msg=trees.clone(node.msg))  # the message also stays the assert's own
        return node
