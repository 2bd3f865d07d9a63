"""Loop directives become annotations on their loop.

    while i < n:                                 while i < n:       # DIRECTIVES:
        ag.set_loop_options(maximum_iterations=10) ==>  i += 1      #  {'maximum_iterations': 10}
        i += 1

`set_loop_options` is recognised by what it is (autograph's function, found
through the function's globals and closure, however it was imported or
renamed), not by its spelling.  It must be a statement directly in a loop
body, with keyword arguments only; misuse is a ConversionError naming the
line.  Its keyword values (gast expressions) land in the loop's
`anno.Basic.DIRECTIVES` dict, which the loop passes turn into options.
`ag.set_element_type(lst, dtype, shape)` on a local variable stays a run-time
call that rebinds it, `lst = ag__.set_element_type(lst, dtype, shape)`: a
backend that is tracing may turn the list into a staged list.
"""

import gast

from autograph import anno, errors, templates, trees
from autograph.converters.support import base
from autograph.converters.support.local_names import LazyLocalNames, local_names

_LOOPS = (gast.For, gast.AsyncFor, gast.While)
# What autograph.runtime.directives defines (converters do not import the runtime).
_MODULES = {"set_loop_options": "autograph.runtime.directives",
            "set_element_type": "autograph.runtime.lists"}
LOOP_OPTIONS = ("maximum_iterations", "shape_invariants")


def _dotted_names(node):
    """('ag', 'set_loop_options') for the expression `ag.set_loop_options`;
    None for anything but names and attributes of names."""
    names = []
    while isinstance(node, gast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    names.append(node.id)
    return tuple(reversed(names))


class _NamesBoundInTree:
    """Names bound in any function of `tree`, computed on the first
    membership test: only a call that might be a directive asks."""

    def __init__(self, tree):
        self._tree = tree
        self._names = None

    def __contains__(self, name):
        if self._names is None:
            self._names = set()
            for child in trees.nodes(self._tree):
                if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef)):
                    self._names |= local_names(child)
        return name in self._names


class Transformer(base.Converter):
    # A directive is a call standing alone as a statement: a function without
    # an expression statement has none (only function_scope runs before).
    HANDLES = (gast.Expr,)

    def visit_FunctionDef(self, node):
        # a name bound anywhere in the converted function may shadow a global
        self.locals = _NamesBoundInTree(node)
        self.function_locals = [LazyLocalNames(node)]
        node.body = self._block(node.body, loop=None)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _block(self, stmts, loop):
        """`stmts` without their directives; `loop` is the loop they are the body of."""
        out = []
        for stmt in stmts:
            if self._is_directive(stmt, "set_loop_options"):
                self._apply(stmt, loop)
            elif self._is_directive(stmt, "set_element_type"):
                out.append(self._rebind_element_type(stmt))
            else:
                out.append(self._visit_stmt(stmt))
        return out or ([gast.copy_location(gast.Pass(), stmts[0])] if stmts else [])

    def _visit_stmt(self, stmt):
        if isinstance(stmt, gast.ClassDef):
            return stmt
        if self.seeking is not None:  # (base.Converter.SEEKS: its parse held no `Expr`)
            held = anno.getanno(stmt, anno.Basic.NODE_TYPES, None)
            if held is not None and held.isdisjoint(self.seeking):
                return stmt
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
            self.function_locals.append(LazyLocalNames(stmt))
            stmt.body = self._block(stmt.body, loop=None)
            self.function_locals.pop()
            return stmt
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block:
                is_loop_body = field == "body" and isinstance(stmt, _LOOPS)
                setattr(stmt, field, self._block(block, stmt if is_loop_body else None))
        for child in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
            child.body = self._block(child.body, loop=None)
        return stmt

    def _is_directive(self, stmt, name):
        if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
            return False
        names = _dotted_names(stmt.value.func)
        # Resolved without the local names first (a local name could only make
        # it None): the names bound in the tree are then needed only for a
        # call that is the directive, not for every call statement.  (A
        # question to the namespace: recorded, context.Facts.)
        return (names is not None
                and self.ctx.facts.ask("what_dotted_names_are", names) == (_MODULES[name], name)
                and names[0] not in self.locals)

    def _rebind_element_type(self, stmt):
        """`ag.set_element_type(lst, ...)` -> `lst = ag__.set_element_type(lst, ...)`."""
        call = stmt.value
        if not (call.args and isinstance(call.args[0], gast.Name)
                and call.args[0].id in self.function_locals[-1]):
            return stmt  # not a local variable: nothing to rebind
        new = templates.replace("target = ag__.set_element_type()", origin=stmt,
                                target=call.args[0].id)
        new[0].value.args, new[0].value.keywords = call.args, call.keywords
        return new[0]

    def _apply(self, stmt, loop):
        call, name = stmt.value, "set_loop_options"
        if loop is None:
            raise errors.ConversionError(errors.directive_outside_loop_message(
                name, self.where(stmt)))
        allowed = LOOP_OPTIONS
        if call.args or any(k.arg not in allowed for k in call.keywords):
            raise errors.ConversionError(errors.directive_arguments_message(
                name, self.where(stmt), allowed))
        options = anno.getanno(loop, anno.Basic.DIRECTIVES, {})
        options.update({k.arg: k.value for k in call.keywords})
        anno.setanno(loop, anno.Basic.DIRECTIVES, options)
