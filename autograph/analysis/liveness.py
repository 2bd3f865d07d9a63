"""Liveness: the names whose current value may still be read.

Backward over statement lists; loops iterate to a fixpoint.  Annotates every
statement with Static.LIVE_IN (before it) and Static.LIVE_OUT (after it).
`try`, `with` and `match` are conservative: whatever is live where an
exception (or a suppressed one) may lead is live throughout their bodies.
"""

import gast

from autograph import anno, trees
from autograph.analysis import activity

_EMPTY = frozenset()
_LIVE_IN, _LIVE_OUT = anno.Static.LIVE_IN, anno.Static.LIVE_OUT


def _reads(*nodes):
    return activity.expression_scope(*nodes).read


def _test_reads(node):
    """What the test of if/while `node` reads (found by the activity analysis)."""
    return anno.getanno(node, anno.Static.COND_SCOPE).read


def _bound_before_read(test):
    """Names a walrus in `test` binds on every evaluation before any read of
    them (binds in `and`/`or` operands after the first, in `x if c else y`
    branches and in nested scopes may not happen, so they do not count)."""
    bound, read = set(), set()

    def walk(node, certain):
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                             gast.GeneratorExp)):
            read.update(n.id for n in trees.nodes(node) if isinstance(n, gast.Name))
        elif isinstance(node, gast.NamedExpr):
            walk(node.value, certain)
            if certain and node.target.id not in read:
                bound.add(node.target.id)
        elif isinstance(node, gast.Name):
            if node.id not in bound:
                read.add(node.id)
        elif isinstance(node, gast.BoolOp):
            walk(node.values[0], certain)
            for value in node.values[1:]:
                walk(value, False)
        elif isinstance(node, gast.IfExp):
            walk(node.test, certain)
            walk(node.body, False)
            walk(node.orelse, False)
        else:
            for child in trees.child_nodes(node):
                walk(child, certain)

    walk(test, True)
    return frozenset(bound)


class Liveness(trees.CachedDispatch):
    """Runs on one function; nested functions are analysed on their own.

    A helper the function only calls (activity.called_helpers) reads its
    free variables where it is called, not where it is defined."""

    def __init__(self, helpers=None):
        self.loops = []  # (live after `break`, live after `continue`)
        self.helpers = helpers or {}

    def reads(self, read):
        return activity.helper_reads(read, self.helpers) if self.helpers else read

    def block(self, stmts, live_out, always=_EMPTY):
        live = live_out
        for stmt in reversed(stmts):
            live = self.statement(stmt, live, always)
        return live

    def statement(self, node, live_out, always):
        live_in = self.dispatch(node, live_out, always)
        if always:
            live_in, live_out = live_in | always, live_out | always
        # (frozensets already, but for a set a visitor may give: copied then)
        if live_in.__class__ is not frozenset:
            live_in = frozenset(live_in)
        if live_out.__class__ is not frozenset:
            live_out = frozenset(live_out)
        annotations = anno.annotations(node)
        annotations[_LIVE_OUT] = live_out
        annotations[_LIVE_IN] = live_in
        return live_in

    VISIT_PREFIX = "_"  # `_If(node, live_out, always)`, ...; other statements: `_simple`

    @classmethod
    def default_visitor(cls, node_class):
        return cls._simple

    def _simple(self, node, live_out, always=_EMPTY):
        scope = anno.getanno(node, anno.Static.SCOPE)
        return (live_out - scope.bound) | self.reads(scope.read)

    def _Return(self, node, live_out, always):
        return self.reads(anno.getanno(node, anno.Static.SCOPE).read)  # (of its value)

    def _Raise(self, node, live_out, always):
        # (of its exception and cause)
        return self.reads(anno.getanno(node, anno.Static.SCOPE).read)

    def _Break(self, node, live_out, always):
        return self.loops[-1][0]

    def _Continue(self, node, live_out, always):
        return self.loops[-1][1]

    def _If(self, node, live_out, always):
        branches = self.block(node.body, live_out, always) | self.block(
            node.orelse, live_out, always)
        if any(isinstance(n, gast.NamedExpr) for n in trees.nodes(node.test)):
            # `if (w := f(x)) > 0: use(w)`: the test binds w before either branch
            branches = branches - _bound_before_read(node.test)
        return self.reads(_test_reads(node)) | branches

    def _loop(self, node, live_out, always, head_of):
        """Live at the loop head, where each iteration starts."""
        after_loop = self.block(node.orelse, live_out, always)
        head = after_loop
        while True:
            self.loops.append((live_out, head))
            body_in = self.block(node.body, head, always)
            self.loops.pop()
            new_head = head_of(body_in) | after_loop | always
            if new_head == head:
                anno.setanno(node, anno.Static.BODY_LIVE_IN, frozenset(body_in))
                return head
            head = new_head

    def _While(self, node, live_out, always):
        # A name the test surely binds before reading it (`while (line :=
        # read()):`) is not live at the head: the test, the body and the
        # `else` read the value the test gave it.
        bound = _bound_before_read(node.test)
        test = self.reads(_test_reads(node)) - bound
        if not bound:
            return self._loop(node, live_out, always, lambda body_in: test | body_in)
        after_loop = self.block(node.orelse, live_out, always) - bound
        return self._loop(node, live_out, always,
                          lambda body_in: test | (body_in - bound) | after_loop) - (
                              bound - always)

    def _For(self, node, live_out, always):
        target = activity.expression_scope(node.target)
        # A jump flag's test (EXTRA_TEST) is read at the head of every iteration.
        extra = self.reads(_reads(anno.getanno(node, anno.Basic.EXTRA_TEST, None)))
        target_read = self.reads(target.read)
        head = self._loop(node, live_out, always,
                          lambda body_in: (body_in - target.bound) | target_read | extra)
        return head | extra | self.reads(_reads(node.iter))

    _AsyncFor = _For

    def _With(self, node, live_out, always):
        items = activity.expression_scope(*[i.context_expr for i in node.items],
                                          *[i.optional_vars for i in node.items])
        body_in = self.block(node.body, live_out, always | live_out)  # exits may be suppressed
        return (body_in - items.bound) | self.reads(items.read)

    _AsyncWith = _With

    def _Try(self, node, live_out, always):
        final_in = self.block(node.finalbody, live_out, always)
        after = final_in if node.finalbody else live_out
        handlers_in = _EMPTY
        for handler in node.handlers:
            handler_in = self.block(handler.body, after, always | final_in)
            if handler.name is not None:
                handler_in -= {handler.name.id}
            handlers_in |= handler_in | self.reads(_reads(handler.type))
        may_escape = always | handlers_in | final_in
        orelse_in = self.block(node.orelse, after, always | final_in)
        return self.block(node.body, orelse_in, may_escape) | may_escape

    _TryStar = _Try

    def _Match(self, node, live_out, always):
        live = self.reads(_reads(node.subject)) | live_out  # no case may match
        for case in node.cases:
            live |= self.block(case.body, live_out, always)
            live |= self.reads(_reads(*activity.pattern_values(case.pattern), case.guard))
        return live

    def _FunctionDef(self, node, live_out, always):
        if node.name in self.helpers and not node.decorator_list:
            # (its body reads where it is called; its defaults are read here)
            return (live_out - {node.name}) | _reads(node.args, node.returns)
        return self._simple(node, live_out)

    _AsyncFunctionDef = _ClassDef = _FunctionDef

    def _Assign(self, node, live_out, always):
        value = node.value
        if value.__class__ is gast.Lambda and len(node.targets) == 1 and \
                node.targets[0].__class__ is gast.Name and node.targets[0].id in self.helpers:
            return (live_out - {node.targets[0].id}) | _reads(value.args)
        return self._simple(node, live_out)


def function_liveness(node, may_define_helpers=True):
    """`may_define_helpers`: False when the function surely defines no nested
    function or lambda (activity.may_define_closures): no helper to look for."""
    if isinstance(node.body, list):
        helpers = activity.called_helpers(node.body) if may_define_helpers else None
        Liveness(helpers).block(node.body, _EMPTY)
