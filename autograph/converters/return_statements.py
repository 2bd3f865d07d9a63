"""Lowers `return` into the flags `do_return` / `retval_`, in the whole function.

    def f(x):                           def f(x):
        for i in x:                         do_return = False
            if i > 2:                       retval_ = ag__.UndefinedReturnValue()
                return i            ==>     for i in x:        # EXTRA_TEST: not do_return
            print(i)                            if i > 2:
        return -1                                   retval_ = i
                                                    do_return = True
                                                else:
                                                    print(i)
                                            if not do_return:
                                                retval_ = -1
                                                do_return = True
                                            return retval_

The value is computed before the flag is set (a raising `return g()` inside a
`try` leaves the flag down).  What follows a statement that may have returned
runs under `if not do_return:`; when an `if` branch always returns, the rest
goes into the other branch instead.  A `while` test becomes
`not do_return and test`; a `for` gets `not do_return` as its EXTRA_TEST.
A loop `else` runs under the flag too.  A function that may fall off its end
returns None explicitly, so `retval_` is set on every path (not after a final
`raise`, or `while True:` without a break of its own, which only a return leaves).

Left native: functions whose only `return` is their last statement (also
through `with` blocks), and generators.  Nested functions get their own flags.
"""

import gast

from autograph import templates, trees
from autograph.converters.support import base
from autograph.converters.support.jumps import (JumpLowering, find_jumps, is_docstring, scope_nodes,
                                        stop_loop_unless)


def _tail_returns(body):
    last = body[-1] if body else None
    while isinstance(last, (gast.With, gast.AsyncWith)):
        last = last.body[-1]
    return {id(last)} if isinstance(last, gast.Return) else set()


def _needs_lowering(body):
    returns = find_jumps(body, gast.Return, loops_are_boundaries=False)
    return any(id(r) not in _tail_returns(body) for r in returns)


def _nested_functions(node):
    """The functions defined directly in `node` (not in nested functions or
    classes), in the order `generic_visit` meets them.  A `def` is a
    statement: only statement lists are searched, not expressions."""
    found = []
    stack = trees.statement_children(node)[::-1]
    while stack:
        child = stack.pop()
        if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef)):
            found.append(child)
        elif not isinstance(child, gast.ClassDef):
            stack.extend(trees.statement_children(child)[::-1])
    return found


def _never_ends(stmt):
    """A `raise`, or `while True:` without a break of its own (only a return or
    an exception leaves it): a function ending with it does not fall off its
    end (a `retval_ = None` after it would be a second, never taken, kind of
    value that a staged test of the flag could not tell apart)."""
    return isinstance(stmt, gast.Raise) or (
        isinstance(stmt, gast.While) and isinstance(stmt.test, gast.Constant)
        and bool(stmt.test.value)
        and not find_jumps(stmt.body, gast.Break, loops_are_boundaries=True))


def _is_generator(node):
    return any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in scope_nodes(node.body))


class Transformer(base.Converter):
    HANDLES = (gast.Return,)
    # Try, With, Raise: a `finally` body holding a `return` (jumps.py)
    CREATES = (gast.If, gast.UnaryOp, gast.Not, gast.BoolOp, gast.And, gast.Return, gast.Try,
               gast.With, gast.Raise)
    STATEMENTS_ONLY = True

    def visit_FunctionDef(self, node):
        # (first, each with its own flags; without a nested def in the
        # source there is none: no pass before this one writes a function)
        for nested in _nested_functions(node) if base.may_define_closures(self.ctx) else ():
            self.visit_FunctionDef(nested)
        if not _needs_lowering(node.body) or _is_generator(node):
            return node
        do_return = self.ctx.namer.new("do_return")
        retval = self.ctx.namer.new("retval_")
        lowering = JumpLowering(self.ctx, gast.Return, do_return, "return",
                                before_flag=lambda ret: self._set_value(ret, retval),
                                lower_loop=self._lower_loop)
        docstring = node.body[:1] if is_docstring(node.body[0]) else []
        body = node.body[len(docstring):]
        if not lowering.always_jumps(body) and not _never_ends(body[-1]):
            fall_off = gast.Return(value=None)
            gast.copy_location(fall_off, body[-1])
            body = body + [fall_off]
        body = lowering.lower_block(body)
        prologue = templates.replace("retval = ag__.UndefinedReturnValue()",
                                     origin=node.body[len(docstring)], retval=retval)
        if lowering.reads:
            prologue = templates.replace("do_return = False", origin=prologue[0],
                                         do_return=do_return) + prologue
        epilogue = templates.replace("return retval", origin=body[-1], retval=retval)
        node.body = docstring + prologue + lowering.drop_unread_flag(body) + epilogue
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _set_value(self, node, retval):
        value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
        return templates.replace("retval = value", origin=node, retval=retval, value=value)

    def _lower_loop(self, loop, lowering):
        """A loop that may return: stop it on the flag; returns (stmts, code after it)."""
        loop.body = lowering.lower_block(loop.body)
        stop_loop_unless(loop, lowering.not_flag(loop))
        orelse, loop.orelse = loop.orelse, []
        if not orelse:
            return [loop], []
        if find_jumps(loop.body, gast.Break, loops_are_boundaries=True):
            loop.orelse = [lowering.guard(orelse)]  # the break pass moves it out later
            return [loop], []
        return [loop], orelse  # without a break, `else` is simply the code after the loop
