"""Definedness: the names possibly defined before each statement.

Forward over statement lists: parameters, then whatever was assigned on some
path so far.  In a loop body, everything the loop assigns may already be
defined (by an earlier iteration).  A name not in Static.DEFINED_IN is surely
undefined there, so the converters start it as `ag__.Undefined(name)`.
"""

from autograph import anno
from autograph.analysis import activity


def _modified(node):
    return anno.getanno(node, anno.Static.SCOPE).modified


class Definedness:

    def block(self, stmts, defined):
        for stmt in stmts:
            defined = self.statement(stmt, defined)
        return defined

    def statement(self, node, defined):
        anno.setanno(node, anno.Static.DEFINED_IN, defined)
        visit = getattr(self, "_" + type(node).__name__, None)
        if visit is not None:
            visit(node, defined)
        return defined | _modified(node)

    def _If(self, node, defined):
        defined |= activity.expression_scope(node.test).modified
        self.block(node.body, defined)
        self.block(node.orelse, defined)

    def _While(self, node, defined):
        everything = defined | _modified(node)  # earlier iterations
        self.block(node.body, everything)
        self.block(node.orelse, everything)

    _For = _AsyncFor = _While

    def _With(self, node, defined):
        self.block(node.body, defined | _modified(node))  # conservative

    _AsyncWith = _With

    def _Try(self, node, defined):
        everything = defined | _modified(node)
        self.block(node.body, defined)
        for handler in node.handlers:
            self.block(handler.body, everything)
        self.block(node.orelse, everything)
        self.block(node.finalbody, everything)

    _TryStar = _Try

    def _Match(self, node, defined):
        for case in node.cases:
            self.block(case.body, defined | _modified(node))


def parameters(args):
    return frozenset(activity._params(args))


def function_definedness(node):
    if isinstance(node.body, list):
        Definedness().block(node.body, parameters(node.args))

