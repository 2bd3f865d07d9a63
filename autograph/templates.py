"""Short code templates with checked placeholders.

    templates.replace('''
        (outputs,) = ag__.if_stmt(test, if_true, if_false, names)
    ''', outputs=['y', 'z'], test=node.test, if_true='if_true', ...)

Every name in a template other than `ag__` is a placeholder: a placeholder
without a replacement raises, and so does a replacement the template does not
use. Replacements:
  - str: a name (takes the context -- load/store/param -- of the placeholder);
  - a gast expression node: moved in, not copied (its ctx fixed to the
    placeholder's): the caller hands it over, so it must not stay elsewhere
    in the tree (pass `trees.clone(node)` to keep it); a placeholder used
    twice gets a copy the second time;
  - a list of str or nodes where the placeholder is an element of a tuple,
    a call's arguments or a function's parameters: spliced in place;
  - a list of statements where the placeholder stands alone as a statement.
Generated nodes take the source location of `origin` so tracebacks point at
the user's line (a generated `lambda` itself takes line 0, see `_locate`).
"""

import textwrap

import gast
from autograph import trees

FIXED_NAMES = frozenset({"ag__"})


class TemplateError(AssertionError):
    """A template and its replacements do not match (a bug in a converter)."""


def _as_name(value, ctx):
    return gast.Name(id=value, ctx=ctx, annotation=None, type_comment=None)


def _with_ctx(node, ctx):
    """Sets the ctx of an expression (and of tuple elements) for its position."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = ctx
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ctx
        for elt in node.elts:
            _with_ctx(elt, ctx)
    return node


class _Replacer(trees.CachedDispatch, gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements
        self.used = set()
        self.missing = set()
        self.inserted = set()  # ids of user nodes spliced in: they keep their locations

    def _insert(self, node):
        self.inserted.add(id(node))  # the root: _locate does not descend into it
        return node

    def _splice(self, value, ctx):
        """A replacement node, moved into the template (the caller hands it
        over); copied if the template uses it a second time."""
        if id(value) in self.inserted:
            value = trees.clone(value)
        return self._insert(_with_ctx(value, ctx))

    def visit(self, node):
        if id(node) in self.inserted:  # spliced user code holds no placeholders
            return node
        return trees.CachedDispatch.visit(self, node)

    def _value_for(self, name):
        if name in FIXED_NAMES:
            return None
        if name not in self.replacements:
            self.missing.add(name)
            return None
        self.used.add(name)
        return self.replacements[name]

    def _expand(self, nodes, ctx_of):
        """Splices list replacements into a list of expressions."""
        out = []
        for node in nodes:
            if isinstance(node, gast.Name):
                value = self._value_for(node.id)
                if isinstance(value, (list, tuple)):
                    for item in value:
                        out.append(_as_name(item, ctx_of(node)) if isinstance(item, str)
                                   else self._splice(item, ctx_of(node)))
                    continue
            out.append(self.visit(node))
        return out

    def visit_Name(self, node):
        value = self._value_for(node.id)
        if value is None:
            return node
        if isinstance(value, str):
            return _as_name(value, node.ctx)
        if isinstance(value, (list, tuple)):
            return gast.Tuple(elts=[_as_name(v, node.ctx) if isinstance(v, str)
                                    else self._splice(v, node.ctx)
                                    for v in value], ctx=node.ctx)
        return self._splice(value, node.ctx)

    def visit_Tuple(self, node):
        node.elts = self._expand(node.elts, lambda n: n.ctx)
        return node

    visit_List = visit_Tuple

    def visit_Call(self, node):
        node.func = self.visit(node.func)
        node.args = self._expand(node.args, lambda n: n.ctx)
        node.keywords = [self.visit(k) for k in node.keywords]
        return node

    def visit_arguments(self, node):
        node.args = self._expand(node.args, lambda n: gast.Param())
        node.defaults = [self.visit(d) for d in node.defaults]
        return node

    def visit_FunctionDef(self, node):
        if node.name in self.replacements:
            self.used.add(node.name)
            node.name = self.replacements[node.name]
        elif node.name not in FIXED_NAMES:
            self.missing.add(node.name)
        node.args = self.visit(node.args)
        node.body = self._visit_body(node.body)
        return node

    def _visit_body(self, stmts):
        out = []
        for stmt in stmts:
            if (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name)
                    and stmt.value.id in self.replacements
                    and isinstance(self.replacements[stmt.value.id], list)):
                self.used.add(stmt.value.id)
                for user_stmt in self.replacements[stmt.value.id]:
                    out.append(self._insert(user_stmt))
                continue
            result = self.visit(stmt)
            out.extend(result if isinstance(result, list) else [result])
        return out

    def generic_visit(self, node):
        bodies = {}
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(node, field, None), list):
                bodies[field] = self._visit_body(getattr(node, field))
                setattr(node, field, [])  # visited once: not again below
        node = self._visit_fields(node)
        for field, stmts in bodies.items():
            setattr(node, field, stmts)
        return node


    def _visit_fields(self, node):
        """`ast.NodeTransformer.generic_visit`, without its generic field iteration."""
        attrs = node.__dict__
        for field in node._fields:
            value = attrs.get(field, _MISSING)
            if value is _MISSING:
                continue
            if isinstance(value, list):
                if not value:
                    continue
                new_values = []
                for item in value:
                    if isinstance(item, _AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, _AST):
                            new_values.extend(item)
                            continue
                    new_values.append(item)
                value[:] = new_values
            elif isinstance(value, _AST):
                new_node = self.visit(value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node


_AST = gast.AST
_MISSING = object()
_LOCATED = (gast.expr, gast.stmt, gast.excepthandler)


def _locate(nodes, origin, inserted):
    """Template-born nodes take `origin`'s location; spliced user nodes keep theirs."""
    if origin is None or not hasattr(origin, "lineno"):
        return
    # One line: CPython 3.11 puts a method call (`ag__.f(...)`) on the END line
    # of its attribute, so a multi-line span would move tracebacks off the
    # origin's first line.
    lineno = origin.lineno
    col_offset = origin.col_offset
    one_line = getattr(origin, "end_lineno", lineno) == lineno
    end_col_offset = getattr(origin, "end_col_offset", col_offset) if one_line else col_offset
    stack = list(nodes)
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if id(node) in inserted:
            continue  # spliced user code keeps its own locations
        attrs = node.__dict__
        for field in node._fields:
            value = attrs.get(field)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
        if node.__class__ is gast.Lambda:
            # A lambda a template writes is a generated thunk (`lambda: b` of
            # `a and b`): line 0, which no user code has, lets the transpiler
            # find its code after compiling and give its frames the user
            # function's name. Its body keeps `origin`'s location.
            node.lineno = node.end_lineno = node.col_offset = node.end_col_offset = 0
        elif isinstance(node, _LOCATED):
            node.lineno = node.end_lineno = lineno
            node.col_offset = col_offset
            node.end_col_offset = end_col_offset


_parsed = {}  # template text -> its parsed statements (cloned per use)


def _parse(template):
    parsed = _parsed.get(template)
    if parsed is None:
        parsed = _parsed[template] = gast.parse(textwrap.dedent(template))
    return trees.clone(parsed)


def replace(template, origin=None, **replacements):
    """Parses `template`, fills its placeholders; returns a list of statements."""
    tree = _parse(template)
    replacer = _Replacer(replacements)
    body = replacer._visit_body(tree.body)
    if replacer.missing:
        raise TemplateError(f"template placeholders without replacement: {sorted(replacer.missing)}")
    extra = set(replacements) - replacer.used
    if extra:
        raise TemplateError(f"replacements not used by the template: {sorted(extra)}")
    _locate(body, origin, replacer.inserted)
    return body


def replace_as_expression(template, origin=None, **replacements):
    """Like `replace`, for a template that is a single expression."""
    body = replace(template, origin=origin, **replacements)
    if len(body) != 1 or not isinstance(body[0], gast.Expr):
        raise TemplateError("replace_as_expression needs a single-expression template")
    return body[0].value
