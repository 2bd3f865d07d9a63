"""Jump lowering shared by the return, break and continue passes.

Not a pass.  `JumpLowering` rewrites one kind of jump in a block: a jump
becomes `flag = True`; what follows a statement that may have jumped runs
under `if not flag:` (or, when an `if` branch always jumps, moves into the
other branch); a `try` body that may jump guards its `else` clause, as Python
skips it after a jump.  A `finally` body and a `with` block's exit are never
guarded: they run on every path, after the jump as before it.  A jump inside
`finally` wins over a pending exception and a pending jump of another kind
(`_lower_jump_in_finally`).  `find_jumps` finds the jumps that leave a block.
"""

import gast

from autograph import anno, errors, templates, trees
from autograph.trees import child_nodes

# On a `try` whose body (or handlers, or `else`) holds jumps: the flags the
# earlier jump passes lowered them into, which a jump in `finally` cancels.
_PENDING = "jumps.pending_flags"

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
LOOPS = (gast.For, gast.AsyncFor, gast.While)


# Statements holding no statement (and no handler or case): `x = ...`, `return`, ...
SIMPLE_STATEMENTS = frozenset(
    cls for cls in vars(gast).values() if isinstance(cls, type) and issubclass(cls, gast.stmt)
    and cls is not gast.stmt and not set(cls._fields) & set(trees.STATEMENT_LISTS))


def scope_nodes(stmts):
    """Every node under `stmts` in their own scope (not in nested defs, lambdas, classes)."""
    stack = [s for s in stmts if not isinstance(s, SCOPES)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in child_nodes(node) if not isinstance(c, SCOPES))


def find_jumps(stmts, jump_type, loops_are_boundaries):
    """The `jump_type` statements under `stmts` that leave `stmts`' scope (or
    loop).  Jumps are statements: only statement lists are searched."""
    found, stack = [], list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, SCOPES):
            continue
        if isinstance(node, jump_type):
            found.append(node)
        elif loops_are_boundaries and isinstance(node, LOOPS):
            stack.extend(node.orelse)  # a loop's `else` jumps on behalf of the outer loop
        elif node.__class__ in SIMPLE_STATEMENTS:
            continue
        elif isinstance(node, gast.stmt) or isinstance(node, gast.excepthandler):
            stack.extend(trees.statement_children(node))
        elif isinstance(node, gast.match_case):
            stack.extend(node.body)
    return found


def if_not(flag, body, origin):
    """`if not flag: body`, located at `origin`."""
    test = templates.replace_as_expression("not flag", origin=origin, flag=flag)
    return gast.copy_location(gast.If(test=test, body=body, orelse=[]), origin)


def _is_bool(test):
    """Whether `test` surely gives a bool (a comparison, `not`, True/False)."""
    return (isinstance(test, gast.Compare)
            or isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)
            or isinstance(test, gast.Constant) and type(test.value) is bool
            or isinstance(test, gast.BoolOp) and all(_is_bool(v) for v in test.values))


def stop_loop_unless(loop, keep_going):
    """Makes `loop` stop once `keep_going` (a flag test such as `not break_`)
    is false: folded into a `while` test, or into a `for` loop's extra test
    (anno EXTRA_TEST, checked before each item is fetched)."""
    if isinstance(loop, gast.While):
        # `ag__.while_test(test)`: a staged test holding several values is refused
        # naming the `while` test, not the generated `and` it is now part of
        test = loop.test
        if not (isinstance(test, gast.Constant) or isinstance(test, gast.UnaryOp)
                and isinstance(test.op, gast.Not)):
            test = gast.copy_location(templates.replace_as_expression(
                "ag__.while_test(test)", origin=test, test=test), test)
        if not _is_bool(loop.test):
            # `while n:` (an int, a list): the `and` must give a bool on every path,
            # as a staged `and` gives both sides one dtype; `not not n` is bool(n).
            test = gast.copy_location(gast.UnaryOp(op=gast.Not(), operand=gast.copy_location(
                gast.UnaryOp(op=gast.Not(), operand=test), test)), test)
        loop.test = gast.BoolOp(op=gast.And(), values=[keep_going, test])
        gast.copy_location(loop.test, loop)
        return
    extra = anno.getanno(loop, anno.Basic.EXTRA_TEST, None)
    if extra is not None:
        keep_going = gast.BoolOp(op=gast.And(), values=[extra, keep_going])
        gast.copy_location(keep_going, loop)
    anno.setanno(loop, anno.Basic.EXTRA_TEST, keep_going)


def is_docstring(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)
            and isinstance(stmt.value.value, str))


class _Dropper(gast.NodeTransformer):
    def __init__(self, ids):
        self.ids = ids

    def block(self, stmts):
        kept = [self.visit(s) for s in stmts if id(s) not in self.ids]
        return kept

    def generic_visit(self, node):
        if isinstance(node, SCOPES):
            return node
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                kept = self.block(stmts)
                setattr(node, field, kept or ([gast.Pass()] if field == "body" else []))
        for child in getattr(node, "handlers", []) + getattr(node, "cases", []):
            child.body = self.block(child.body) or [gast.Pass()]
        return node


class JumpLowering:
    """Rewrites one kind of jump in a block into `flag = True` plus guards.

    before_flag(jump) -> statements to run before the flag is set (a return's
    value); lower_loop(loop, lowering) -> (statements, code that now follows
    the loop) for loops the jump crosses (only `return` does; break/continue
    stop at loops).  `drop_unread_flag` removes the flag when no guard ended up
    reading it (every jump was the last thing on its path).
    """

    def __init__(self, ctx, jump_type, flag, statement, before_flag=None, lower_loop=None):
        self.ctx, self.jump_type, self.flag, self.statement = ctx, jump_type, flag, statement
        self.before_flag, self.lower_loop = before_flag or (lambda jump: []), lower_loop
        self.reads, self._flag_sets = 0, set()

    def replace(self, jump):
        flag_set = templates.replace("flag = True", origin=jump, flag=self.flag)
        self._flag_sets.add(id(flag_set[0]))
        return self.before_flag(jump) + flag_set

    def drop_unread_flag(self, stmts):
        if self.reads:
            return stmts
        dropper = _Dropper(self._flag_sets)
        return dropper.block(stmts) or [gast.Pass()]

    def contains(self, stmts):
        return bool(find_jumps(stmts, self.jump_type, self.lower_loop is None))

    def always_jumps(self, stmts):
        return any(isinstance(s, self.jump_type)
                   or (isinstance(s, gast.If) and self.always_jumps(s.body)
                       and self.always_jumps(s.orelse))
                   for s in stmts)

    def not_flag(self, origin):
        self.reads += 1
        return templates.replace_as_expression("not flag", origin=origin, flag=self.flag)

    def guard(self, stmts):
        """`if not flag: <stmts, lowered>`."""
        body = self.lower_block(stmts)
        return gast.copy_location(gast.If(test=self.not_flag(stmts[0]), body=body, orelse=[]),
                                  stmts[0])

    def lower_block(self, stmts):
        pending, out = list(stmts), []
        while pending:
            stmt = pending.pop(0)
            if isinstance(stmt, self.jump_type):
                out.extend(self.replace(stmt))
                break  # what follows is dead code; it stays, guarded (its names stay local)
            if not self.contains([stmt]):
                out.append(stmt)
                continue
            if isinstance(stmt, gast.If) and pending:
                if self.always_jumps(stmt.body):
                    stmt.orelse, pending = stmt.orelse + pending, []
                elif stmt.orelse and self.always_jumps(stmt.orelse):
                    stmt.body, pending = stmt.body + pending, []
            lowered, after = self._lower_compound(stmt)
            out.extend(lowered)
            pending = after + pending
            break
        if pending:
            out.append(self.guard(pending))
        return out

    def _lower_compound(self, stmt):
        if isinstance(stmt, LOOPS):
            if self.lower_loop is not None:
                return self.lower_loop(stmt, self)
            stmt.orelse = self.lower_block(stmt.orelse)
        elif isinstance(stmt, (gast.Try, gast.TryStar)):
            if self.contains(stmt.finalbody):
                return self._lower_jump_in_finally(stmt), []
            may_jump = self.contains(stmt.body)
            if may_jump or self.contains(stmt.orelse) or any(
                    self.contains(handler.body) for handler in stmt.handlers):
                # a jump in `finally` (a later pass) cancels this one
                anno.setanno(stmt, _PENDING, anno.getanno(stmt, _PENDING, ()) + (self.flag,))
            stmt.body = self.lower_block(stmt.body)
            for handler in stmt.handlers:
                handler.body = self.lower_block(handler.body)
            if stmt.orelse:
                stmt.orelse = [self.guard(stmt.orelse)] if may_jump else self.lower_block(stmt.orelse)
        elif isinstance(stmt, gast.Match):
            for case in stmt.cases:
                case.body = self.lower_block(case.body)
        else:  # If, With, AsyncWith
            stmt.body = self.lower_block(stmt.body)
            if isinstance(stmt, gast.If):
                stmt.orelse = self.lower_block(stmt.orelse)
        return [stmt], []

    def _lower_jump_in_finally(self, stmt):
        """A `finally` body holding this pass's jump, which wins: over a
        pending exception (discarded) and over a pending jump of another
        kind (a `return`'s flag, put down by a `break` or `continue` there):

            try:                        fjump = raised = False
                B                       try:
            finally:          ==>           with ag__.finally_jumps():
                F                               B             (lowered)
                                        except BaseException:
                                            raised = True
                                            F                 (its own flag `fjump`)
                                            if ag__.reraise_after_finally(fjump, 'return'):
                                                raise
                                        finally:
                                            if not raised:
                                                F             (the same, again)
                                            if fjump:
                                                do_return = True   (break_ = True; do_return = False)

        F runs inside the handler on the exception path, so an exception F
        raises chains to the pending one as in Python, and a bare `raise`
        re-raises it with its own traceback.  On the other paths F stays in a
        `finally` clause, which later jump passes never guard (a `break` in B
        still runs it).  `except`/`else` clauses stay in an inner `try`.
        `ag__.finally_jumps` refuses a staged `raise` or `assert` in B: the
        graph would raise it where Python discards it.  The `try` is marked
        SKIP: try_statements.py refuses staged values only around the user's
        own `except` clauses."""
        self._refuse_mixed_jumps(stmt.finalbody)
        if self.jump_type is not gast.Return:
            native = find_jumps(stmt.body + stmt.orelse + [h for h in stmt.handlers],
                                gast.Return, loops_are_boundaries=False)
            if native:  # a generator's `return` stays native: it cannot be cancelled
                jumps = find_jumps(stmt.finalbody, self.jump_type, loops_are_boundaries=True)
                raise errors.ConversionError(errors.jump_in_finally_over_return_message(
                    self.statement, self.ctx.where(jumps[0]), self.ctx.where(native[0])))
        finalbody, stmt.finalbody = stmt.finalbody, []
        origin = finalbody[0]
        cancelled = anno.getanno(stmt, _PENDING, ())
        body = self.lower_block([stmt] if stmt.handlers or stmt.orelse else stmt.body)
        jumped = self.ctx.namer.new("fjump")
        inner = JumpLowering(self.ctx, self.jump_type, jumped, self.statement,
                             self.before_flag, self.lower_loop)
        final = inner.lower_block(finalbody)
        raised = self.ctx.namer.new("raised_in_try")
        lowered = templates.replace(
            """
            jumped = False
            raised = False
            try:
                with ag__.finally_jumps():
                    body
            except BaseException:
                raised = True
                final_on_raise
                if ag__.reraise_after_finally(jumped, statement):
                    raise
            finally:
                if not raised:
                    final
                if jumped:
                    flag = True
            """, origin=origin, raised=raised, body=body, final_on_raise=trees.clone(final),
            final=final, jumped=jumped, flag=self.flag, BaseException="BaseException",
            statement=gast.Constant(value=self.statement, kind=None))
        try_node = lowered[2]
        anno.setanno(try_node, anno.Basic.SKIP, True)  # not the user's `except`
        # Native `if`s (their tests are Python bools): the bare `raise` must run
        # in the handler's own frame to re-raise with the traceback as it was.
        anno.setanno(try_node.handlers[0].body[-1], anno.Basic.SKIP, True)
        anno.setanno(try_node.finalbody[0], anno.Basic.SKIP, True)
        flag_up = try_node.finalbody[-1]
        self._flag_sets.add(id(flag_up.body[0]))
        for other in cancelled:
            flag_up.body += templates.replace("other = False", origin=origin, other=other)
        return lowered

    def _refuse_mixed_jumps(self, finalbody):
        """Jumps of two kinds in one `finally` body: each pass would lower its
        own, and neither would discard a pending exception for the other."""
        kinds = [(kind, word) for kind, word in ((gast.Return, "return"), (gast.Break, "break"),
                                                 (gast.Continue, "continue"))
                 if find_jumps(finalbody, kind, kind is not gast.Return)]
        if len(kinds) > 1:
            jumps = find_jumps(finalbody, kinds[1][0], kinds[1][0] is not gast.Return)
            raise errors.ConversionError(errors.mixed_jumps_in_finally_message(
                [word for _, word in kinds], self.ctx.where(jumps[0])))
