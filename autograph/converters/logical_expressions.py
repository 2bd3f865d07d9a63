"""Logical expressions and comparison chains, with Python's evaluation order.

    a and b and c     ==>   ag__.and_(a, lambda: ag__.and_(b, lambda: c))
    a or b            ==>   ag__.or_(a, lambda: b)
    not a             ==>   ag__.not_(a)
    a < f(b) <= c     ==>   ag__.compare_chain(a, '<', lambda: f(b), '<=', lambda: c)

The left operand is evaluated first, the rest lazily, each at most once, so
short-circuiting and side effects stay exactly Python's; a staged operand
stages the rest under a cond.  Single comparisons stay as they are (they are
plain operators on staged values), except `in` / `not in`: Python asks for
the bool of `b.__contains__(a)` at once, so a lone membership test also goes
through compare_chain, whose `in` stages numpy's meaning for a staged `b`:

    v in x            ==>   ag__.compare_chain(v, 'in', lambda: x)

An operand that cannot move into a lambda (see
conditional_expressions.can_defer) keeps the Python expression, and so do
nested class bodies; the operands Python tests for truth then go through
`ag__.python_only`, which refuses a staged one naming why.
"""

import gast

from autograph import anno, templates, trees
from autograph.converters.support import base, staging
from autograph.converters.conditional_expressions import NOT_DEFERRED, can_defer, source_text

_OPERATORS = {
    gast.Eq: "==", gast.NotEq: "!=", gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">",
    gast.GtE: ">=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in",
}


class Transformer(base.Converter):
    # A `for` loop's EXTRA_TEST annotation (outside the tree) holds a `not`:
    # only the jump passes put one there, and a run of theirs that does names
    # a flag and adds `Not` (their CREATES), so loops need no HANDLES entry
    # (tests/converters/test_pipeline.py checks both).
    HANDLES = (gast.BoolOp, gast.Not, gast.Compare)


    def visit_For(self, node):
        # the jump passes leave a `for` loop's extra test (`not break_`) in an
        # annotation, outside the tree: convert it like any other expression
        self.generic_visit(node)
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)
        if extra is not None:
            anno.setanno(node, anno.Basic.EXTRA_TEST, self.visit(extra))
        return node

    visit_AsyncFor = visit_For

    def visit_If(self, node):
        # an `if`/`while`/`assert` test is only tested for truth: its `and`/`or` need
        # not keep the operand's type (`if epoch and epoch % k == 0:` is int
        # 0 or a bool), runtime/logical.py `truth_only`
        self.generic_visit(node)
        _truth_only(node.test)
        return node

    visit_While = visit_Assert = visit_If

    def visit_BoolOp(self, node):
        generated = self.ctx.namer.generated
        if any(n.__class__ is gast.Name and n.id in generated for n in trees.nodes(node)):
            text = None  # holds a jump flag: not what the user wrote
        else:
            text = source_text(node)  # as the user wrote it, before inner rewrites
        self.generic_visit(node)
        function = "and_" if isinstance(node.op, gast.And) else "or_"
        if not all(can_defer(value) for value in node.values[1:]):
            # Python's own `and`, which asks a staged operand for its bool:
            # refused naming why it is not staged
            why = f"an `{function[:-1]}` whose later operands {NOT_DEFERRED}"
            node.values[:-1] = [staging.python_only(value, why, origin=node)
                                for value in node.values[:-1]]
            return node
        # (one template for both, named after: each template text costs a
        # parse in a fresh process)
        result = node.values[-1]
        for left in reversed(node.values[:-1]):
            result = templates.replace_as_expression(
                "ag__.operator_(left, lambda: right)", origin=node, left=left, right=result)
            result.func.attr = function
        if text is not None:  # for messages; the outer call is the one staged first
            result.args.append(gast.Constant(value=text, kind=None))
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        _truth_only(node.operand)
        return templates.replace_as_expression("ag__.not_(operand)", origin=node,
                                               operand=node.operand)

    def visit_Compare(self, node):
        self.generic_visit(node)
        membership = len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn))
        if len(node.ops) < 2 and not membership:
            return node
        if not all(can_defer(c) for c in node.comparators):
            if len(node.ops) > 1 and not any(isinstance(op, (gast.Is, gast.IsNot))
                                             for op in node.ops):
                # Python's own chain, which asks each comparison but the last
                # for its bool: a staged operand of one is refused naming why
                why = f"a comparison chain whose later operands {NOT_DEFERRED}"
                node.left = staging.python_only(node.left, why, origin=node)
                node.comparators[:-1] = [staging.python_only(c, why, origin=node)
                                         for c in node.comparators[:-1]]
            return node
        call = templates.replace_as_expression("ag__.compare_chain(left)", origin=node,
                                               left=node.left)
        for op, comparator in zip(node.ops, node.comparators):
            lazy = templates.replace_as_expression("lambda: comparator", origin=node,
                                                   comparator=comparator)
            call.args += [gast.Constant(value=_OPERATORS[type(op)], kind=None), lazy]
        base.copy_location(call, node)
        return call


def _truth_only(test):
    """Marks the `ag__.and_`/`ag__.or_` call `test` as tested for truth only,
    and so its operands: the left one is the cond's test, the right one's
    value is the call's."""
    if test.__class__ is gast.Call and test.func.__class__ is gast.Attribute \
            and test.func.attr in ("and_", "or_") and test.func.value.__class__ is gast.Name \
            and test.func.value.id == "ag__":
        test.keywords.append(gast.keyword(arg="truth_only", value=gast.Constant(
            value=True, kind=None)))
        _truth_only(test.args[0])
        _truth_only(test.args[1].body)  # (`lambda: right`)
