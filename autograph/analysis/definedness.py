"""Definedness: the names possibly, and surely, defined before each statement.

Forward over statement lists, from the parameters.  Static.DEFINED_IN holds
the names assigned on SOME path so far (in a loop body, everything the loop
assigns may already be defined by an earlier iteration; in an `except`
handler, whatever the `try` body assigns may have been assigned before it
raised).  A name not in it is surely undefined there, so the converters start
it as `ag__.Undefined(name)`.

SURELY_DEFINED_IN (below) holds the names assigned on EVERY path: only those
may be loaded directly into the state of a staged statement.  A name possibly
but not surely defined is loaded so that an unbound one becomes
`ag__.Undefined(name)` (see converters/support/staging.py).  It is conservative: a
loop body may run zero times, a `with` may suppress an exception, a `try`
body may stop anywhere, no `match` case may match.
"""

from autograph import anno, trees
from autograph.analysis import activity


SURELY_DEFINED_IN = anno.Static.SURELY_DEFINED_IN
_DEFINED_IN, _SCOPE = anno.Static.DEFINED_IN, anno.Static.SCOPE


def _modified(node):
    return anno.getanno(node, anno.Static.SCOPE).modified


def surely_defined(node):
    """The names surely defined before `node` (an analysed statement)."""
    return anno.getanno(node, SURELY_DEFINED_IN)


class Definedness(trees.CachedDispatch):
    """`block` and `statement` map (possibly, surely) defined names before to after."""

    def block(self, stmts, defined, surely):
        for stmt in stmts:
            defined, surely = self.statement(stmt, defined, surely)
        return defined, surely

    def statement(self, node, defined, surely):
        annotations = anno.annotations(node)
        annotations[_DEFINED_IN] = defined
        annotations[SURELY_DEFINED_IN] = surely
        modified = annotations[_SCOPE].modified  # (the activity analysis ran: KeyError if not)
        surely = self.dispatch(node, defined, surely)
        return defined | modified, surely

    VISIT_PREFIX = "_"  # `_If(node, defined, surely)`, ...; other statements: `_simple`

    @classmethod
    def default_visitor(cls, node_class):
        return cls._simple

    def _simple(self, node, defined, surely):
        scope = anno.getanno(node, anno.Static.SCOPE)
        return (surely - scope.modified) | scope.bound  # `del y` unbinds y

    def _If(self, node, defined, surely):
        defined |= anno.getanno(node, anno.Static.COND_SCOPE).modified  # a walrus in the test
        _, body_surely = self.block(node.body, defined, surely)
        _, orelse_surely = self.block(node.orelse, defined, surely)
        return body_surely & orelse_surely

    def _While(self, node, defined, surely):
        everything = defined | _modified(node)  # earlier iterations
        self.block(node.body, everything, surely)
        self.block(node.orelse, everything, surely)
        return surely

    def _For(self, node, defined, surely):
        everything = defined | _modified(node)  # earlier iterations
        target = activity.expression_scope(node.target).bound
        self.block(node.body, everything, surely | target)
        self.block(node.orelse, everything, surely)
        return surely

    _AsyncFor = _For

    def _With(self, node, defined, surely):
        items = activity.expression_scope(*[i.optional_vars for i in node.items])
        self.block(node.body, defined | items.modified, surely | items.bound)
        return surely | items.bound  # the `with` may suppress an exception of its body

    _AsyncWith = _With

    def _Try(self, node, defined, surely):
        body_defined, body_surely = self.block(node.body, defined, surely)
        completed = []
        for handler in node.handlers:
            name = {handler.name.id} if handler.name is not None else set()
            handler_surely = self.block(handler.body, body_defined | name, surely | name)[1]
            completed.append(handler_surely - name)  # Python unbinds `e` after the handler
        completed.append(self.block(node.orelse, body_defined, body_surely)[1])
        after = frozenset.intersection(*completed)
        _, final_surely = self.block(node.finalbody, defined | _modified(node), surely)
        finally_modified = set().union(*[_modified(s) for s in node.finalbody])
        return (after - finally_modified) | final_surely

    _TryStar = _Try

    def _Match(self, node, defined, surely):
        for case in node.cases:
            bound = activity.pattern_captures(case.pattern)
            bound |= activity.expression_scope(case.guard).modified
            self.block(case.body, defined | bound, surely)
        return surely


def parameters(args):
    return frozenset(activity._params(args))


def function_definedness(node):
    if isinstance(node.body, list):
        params = parameters(node.args)
        Definedness().block(node.body, params, params)
