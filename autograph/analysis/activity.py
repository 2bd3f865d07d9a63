"""Activity: the names each statement reads and modifies.

Annotates every statement with Static.SCOPE, and compound statements with
BODY_SCOPE / ORELSE_SCOPE (and COND_SCOPE for an if/while test).  Nested
functions, lambdas and classes count as reading their free names where they
are defined; their own locals are not the enclosing function's.  Comprehension
targets are the comprehension's; walrus targets bind in the enclosing function
(Python 3.11 scoping).
"""

import typing

import gast

from autograph import anno, trees

_EMPTY = frozenset()
_AST = gast.AST


class Scope(typing.NamedTuple):
    """What a statement (or block, or expression) does to names.  A tuple:
    built for every statement, so it is made at tuple speed."""

    read: frozenset = _EMPTY
    modified: frozenset = _EMPTY
    bound: frozenset = _EMPTY      # definitely (re)bound by a simple statement
    declared: frozenset = _EMPTY   # global/nonlocal names of the enclosing function

    def __or__(self, other):
        return Scope(self.read | other.read, self.modified | other.modified,
                     _EMPTY, self.declared | other.declared)


class _Names(trees.CachedDispatch, gast.NodeVisitor):
    """Reads and writes of one expression (or assignment target)."""

    def __init__(self):
        self.read, self.modified, self.bound = set(), set(), set()

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.read.add(node.id)
        elif isinstance(node.ctx, gast.Store):
            self.modified.add(node.id)
            self.bound.add(node.id)
        else:  # Del: must be bound, becomes unbound
            self.read.add(node.id)
            self.modified.add(node.id)

    def generic_visit(self, node):
        # `ast.NodeVisitor.generic_visit` without its generic field iteration:
        # this visits every expression of every statement.  Nodes without
        # fields (contexts, operators) hold no name: not visited.
        visit = self.visit
        attrs = node.__dict__
        for field in node._fields:
            value = attrs.get(field)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, _AST) and item._fields:
                        visit(item)
            elif isinstance(value, _AST) and value._fields:
                visit(value)

    def visit_Call(self, node):
        loaded = anno.getanno(node, anno.Basic.LOADS, None)
        if loaded is not None:
            self.read.add(loaded)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        self.modified.add(node.target.id)  # conditional (and/or): not surely bound

    def visit_Lambda(self, node):
        self.visit(node.args)
        inner = _Names()
        inner.visit(node.body)
        local = _params(node.args) | inner.modified
        self.read |= inner.read - local

    def _comprehension(self, node, elements):
        first, *rest = node.generators
        self.visit(first.iter)
        inner = _Names()
        for gen in node.generators:
            inner.visit(gen.target)
            if gen is not first:
                inner.visit(gen.iter)
            for cond in gen.ifs:
                inner.visit(cond)
        for element in elements:
            inner.visit(element)
        targets = inner.bound
        self.read |= inner.read - targets
        self.modified |= inner.modified - targets  # walrus targets leak out

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_arguments(self, node):
        for default in node.defaults + [d for d in node.kw_defaults if d is not None]:
            self.visit(default)


def _params(args):
    params = args.posonlyargs + args.args + args.kwonlyargs
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {p.id for p in params}


def expression_scope(*nodes):
    names = _Names()
    for node in nodes:
        if node is not None:
            names.visit(node)
    return Scope(frozenset(names.read), frozenset(names.modified), frozenset(names.bound))


class Activity(trees.CachedDispatch):
    """Annotates the statements of one function (not of nested functions)."""

    def __init__(self, declared):
        self.declared = frozenset(declared)

    def block(self, stmts):
        total = Scope(declared=self.declared)
        for stmt in stmts:
            total = total | self.statement(stmt)
        return total

    def statement(self, node):
        scope = self.dispatch(node)
        scope = Scope(scope.read, scope.modified, scope.bound, self.declared)
        anno.setanno(node, anno.Static.SCOPE, scope)
        return scope

    VISIT_PREFIX = "_"  # `_If(node)`, ...; other statements: `_simple`

    @classmethod
    def default_visitor(cls, node_class):
        return cls._simple

    def _simple(self, node):
        return expression_scope(node)

    def _AugAssign(self, node):
        scope = expression_scope(node)
        return scope._replace(read=scope.read | scope.modified)

    def _AnnAssign(self, node):
        if node.value is None:
            return Scope()
        return expression_scope(node.target, node.value)

    def _Import(self, node):
        names = frozenset((a.asname or a.name).split(".")[0] for a in node.names)
        return Scope(modified=names, bound=names)

    _ImportFrom = _Import

    def _FunctionDef(self, node):
        outer = expression_scope(*node.decorator_list, node.args, node.returns)
        body = function_scope(node)
        name = frozenset([node.name])
        return Scope(outer.read | body.read, outer.modified | body.modified | name, name)

    _AsyncFunctionDef = _FunctionDef

    def _ClassDef(self, node):
        outer = expression_scope(*node.decorator_list, *node.bases, *node.keywords)
        body = Activity(()).block(node.body)
        name = frozenset([node.name])
        return Scope(outer.read | (body.read - body.modified), outer.modified | name, name)

    def _compound(self, node, head, blocks):
        total = head
        for key, stmts in blocks:
            scope = self.block(stmts)
            if key is not None:
                anno.setanno(node, key, scope)
            total = total | scope
        return Scope(total.read, total.modified)

    def _If(self, node):
        cond = expression_scope(node.test)
        anno.setanno(node, anno.Static.COND_SCOPE, cond)
        return self._compound(node, cond, self._bodies(node))

    _While = _If

    def _For(self, node):
        return self._compound(node, expression_scope(node.target, node.iter), self._bodies(node))

    _AsyncFor = _For

    def _With(self, node):
        head = expression_scope(*[i.context_expr for i in node.items],
                                *[i.optional_vars for i in node.items])
        return self._compound(node, head, self._bodies(node))

    _AsyncWith = _With

    def _Try(self, node):
        head = Scope()
        for handler in node.handlers:
            head = head | expression_scope(handler.type) | self.block(handler.body)
            if handler.name is not None:
                head = head | Scope(modified=frozenset([handler.name.id]))
        return self._compound(node, head, self._bodies(node) + [(None, node.finalbody)])

    _TryStar = _Try

    def _Match(self, node):
        head = expression_scope(node.subject)
        for case in node.cases:
            head = head | expression_scope(*pattern_values(case.pattern), case.guard)
            head = head | Scope(modified=pattern_captures(case.pattern)) | self.block(case.body)
        return Scope(head.read, head.modified)

    def _bodies(self, node):
        orelse = getattr(node, "orelse", [])
        return [(anno.Static.BODY_SCOPE, node.body), (anno.Static.ORELSE_SCOPE, orelse)]


def pattern_captures(pattern):
    """Names a match pattern binds."""
    names = set()
    for n in trees.nodes(pattern):
        if isinstance(n, (gast.MatchAs, gast.MatchStar)) and n.name:
            names.add(n.name)
        elif isinstance(n, gast.MatchMapping) and n.rest:
            names.add(n.rest)
    return frozenset(names)


def pattern_values(pattern):
    return [n.value for n in gast.walk(pattern) if isinstance(n, gast.MatchValue)]


_SCOPE_STATEMENTS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def declared_names(body):
    """Names a function declares global/nonlocal (not looking into nested
    scopes): (all of them, the global ones).  Declarations are statements,
    so only statement lists are searched, not expressions."""
    found, global_names = set(), set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            found.update(node.names)
            if isinstance(node, gast.Global):
                global_names.update(node.names)
        elif not isinstance(node, _SCOPE_STATEMENTS):
            attrs = node.__dict__
            for field in trees.STATEMENT_LISTS:
                value = attrs.get(field)
                if value.__class__ is list:
                    stack.extend(value)
    return found, global_names


def function_scope(node):
    """Annotates a (nested) function's statements; returns what it does to the
    enclosing function: its free reads, and its nonlocal writes."""
    body = node.body if isinstance(node.body, list) else [gast.Return(value=node.body)]
    declared, global_names = declared_names(body)
    scope = Activity(declared).block(body)
    local = (_params(node.args) | scope.modified) - declared
    return Scope(frozenset(scope.read - local - global_names),
                 frozenset((scope.modified & declared) - global_names))
