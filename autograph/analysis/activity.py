"""Activity: the names each statement reads and modifies.

Annotates every statement with Static.SCOPE, and compound statements with
BODY_SCOPE / ORELSE_SCOPE (and COND_SCOPE for an if/while test).  Nested
functions, lambdas and classes count as reading their free names where they
are defined; their own locals are not the enclosing function's.  Comprehension
targets are the comprehension's; walrus targets bind in the enclosing function
(Python 3.11 scoping).
"""

import ast
import typing

import gast

from autograph import anno, trees

_EMPTY = frozenset()
_AST = gast.AST
_NAME, _CALL = gast.Name, gast.Call
_LOAD_CTX, _STORE_CTX = gast.Load, gast.Store
_LOADS = anno.Basic.LOADS
_NODE_VISITOR_CONSTANT = ast.NodeVisitor.visit_Constant  # (ast's: see trees.CachedDispatch)
_OWN_VISITOR = ("a node with its own visitor",)


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


# `Scope`s made at C speed, all four fields given: `_scope(Scope, (read, modified,
# bound, declared))` (the NamedTuple's own __new__ is a Python function).
_scope = tuple.__new__


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
        # The nodes below `node`, walked with a stack rather than a visitor
        # call per node (this walks every expression of every statement): a
        # Name is noted where it is met, a node with its own visitor (a
        # lambda, a comprehension, ...) goes to it, any other is walked
        # into, through the fields that may hold a name (_walked_fields).
        # (Sets: the order of the walk does not matter.)
        read, modified, bound = self.read, self.modified, self.bound
        walked = _WALKED_FIELDS
        # (`node` has no visitor of its own, or its own calls this: a Call)
        fields = walked.get(node.__class__) or _walked_fields(node.__class__)
        attrs = node.__dict__
        stack = [attrs.get(field) for field in fields]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            current = pop()
            cls = current.__class__
            if cls is list:
                extend(current)
                continue
            if cls is _NAME:
                ctx = current.ctx.__class__
                if ctx is _LOAD_CTX:
                    read.add(current.id)
                elif ctx is _STORE_CTX:
                    modified.add(current.id)
                    bound.add(current.id)
                else:  # Del: must be bound, becomes unbound
                    read.add(current.id)
                    modified.add(current.id)
                continue
            fields = walked.get(cls)
            if fields is None:
                fields = _walked_fields(cls)
            if not fields:
                continue  # (not a node, or a constant)
            if fields is _OWN_VISITOR:
                self.visit(current)
                continue
            attrs = current.__dict__
            if cls is _CALL:
                annotations = attrs.get(anno.FIELD)
                if annotations is not None and _LOADS in annotations:
                    read.add(annotations[_LOADS])
            for field in fields:
                value = attrs.get(field)
                if value.__class__ is _NAME and value.ctx.__class__ is _LOAD_CTX:
                    read.add(value.id)  # (the most common node, noted without a push)
                else:
                    push(value)

    def visit_Call(self, node):
        # (a Call inside the walked node is noted by generic_visit itself)
        loaded = anno.getanno(node, _LOADS, None)
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


_WALKED_FIELDS = {}  # class -> the fields _Names.generic_visit walks into
# Fields that hold no name: contexts, operators, identifiers and constants.
_NAMELESS_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind", "conversion",
                              "level", "module", "is_async", "simple"})


def _walked_fields(cls):
    """The fields of node class `cls` that _Names.generic_visit walks into:
    () for a value that is not a node, _OWN_VISITOR for a node with its own
    visitor (which _Names then calls)."""
    if not issubclass(cls, _AST):
        fields = ()
    elif getattr(_Names, f"visit_{cls.__name__}", None) not in (None, _NODE_VISITOR_CONSTANT) \
            and cls is not _CALL:
        fields = _OWN_VISITOR
    elif cls is gast.Constant or not cls._fields:
        fields = ()
    else:
        fields = tuple(field for field in cls._fields if field not in _NAMELESS_FIELDS)
    _WALKED_FIELDS[cls] = fields
    return fields


def _params(args):
    params = args.posonlyargs + args.args + args.kwonlyargs
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {p.id for p in params}


def expression_scope(*nodes):
    names = _Names()
    for node in nodes:
        if node is not None:
            names.visit(node)
    return _scope(Scope, (frozenset(names.read), frozenset(names.modified),
                          frozenset(names.bound), _EMPTY))


class Activity(trees.CachedDispatch):
    """Annotates the statements of one function (not of nested functions)."""

    def __init__(self, declared, helper_writes=None):
        self.declared = frozenset(declared)
        self.helper_writes = helper_writes  # (_helper_writes: a call modifies)

    def block(self, stmts):
        # (the union of the statements' scopes, taken once for the block)
        scopes = [self.statement(stmt) for stmt in stmts]
        return _scope(Scope, (_EMPTY.union(*[scope.read for scope in scopes]),
                              _EMPTY.union(*[scope.modified for scope in scopes]),
                              _EMPTY, self.declared))

    def statement(self, node):
        scope = self.dispatch(node)
        modified = scope.modified
        if self.helper_writes is not None and not scope.read.isdisjoint(self.helper_writes):
            modified = modified | writes_of_calls(scope.read, self.helper_writes)
        if modified is not scope.modified or scope.declared is not self.declared:
            scope = _scope(Scope, (scope.read, modified, scope.bound, self.declared))
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


def function_scope(node, helpers=False, declares=True):
    """Annotates a (nested) function's statements; returns what it does to the
    enclosing function: its free reads, and its nonlocal writes.  `helpers`:
    look for helpers it calls that assign its variables (_helper_writes);
    `declares`: False when it surely has no `global`/`nonlocal` statement
    (may_declare), which spares the search."""
    body = node.body if isinstance(node.body, list) else [gast.Return(value=node.body)]
    declared, global_names = declared_names(body) if declares else (_EMPTY, _EMPTY)
    writes = _helper_writes(body, _params(node.args)) if helpers else None
    scope = Activity(declared, writes).block(body)
    local = (_params(node.args) | scope.modified) - declared
    return Scope(frozenset(scope.read - local - global_names),
                 frozenset((scope.modified & declared) - global_names))


_USER_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
                gast.GeneratorExp)
_LASTING = (gast.Yield, gast.YieldFrom, gast.Await)


def only_called(name, parents):
    """Whether the loaded Name `name` is the function of a call: `f(x)`, or as
    the call_trees pass spells it, `ag__.converted(f, fscope)(x)`; `parents`
    maps id(node) to its parent."""
    parent = parents.get(id(name))
    if parent.__class__ is not gast.Call:
        return False
    if parent.func is name:
        return True
    func = parent.func
    return (func.__class__ is gast.Attribute and func.attr == "converted"
            and func.value.__class__ is gast.Name and func.value.id == "ag__"
            and bool(parent.args) and parent.args[0] is name
            and getattr(parents.get(id(parent)), "func", None) is parent)


def is_thunk(node):
    """Is `node` a thunk the converters generated (templates.py: a lambda at
    line 0, `ag__.and_(a, lambda: b)`), which runs at once?"""
    return node.__class__ is gast.Lambda and getattr(node, "lineno", None) == 0


def may_define_closures(source):
    """False when a function's `source` surely defines no nested function,
    lambda or class (a text search, much cheaper than a walk of the tree)."""
    return "lambda" in source or "class" in source or source.count("def") > 1


def may_declare(source):
    """False when a function's `source` surely has no `global` or `nonlocal`
    statement (a text search; the passes that run before the analysis write
    none)."""
    return "global" in source or "nonlocal" in source


def called_helpers(body, generated=frozenset()):
    return helpers_and_scopes(body, generated)[0]


def _helper_writes(body, params):
    """{name: (what it reads, the function's variables it assigns as
    `nonlocal`)} of the helpers in a function's `body` (called_helpers;
    `params`, the function's), or None when none assigns any: a call of
    `bump()` (`nonlocal total; total += x`) changes `total` where the call
    is, so a loop calling it carries `total`.  (A variable of a function
    further out is not the function's to carry.)"""
    effects = helpers_and_scopes(body, effect=_helper_effect)[0]
    if not any(writes for _, writes in effects.values()):
        return None
    own = set(params)
    stack = list(body)
    while stack:
        node = stack.pop()
        if node.__class__ is gast.Name and node.ctx.__class__ is not gast.Load:
            own.add(node.id)
        elif not isinstance(node, _USER_SCOPES):
            stack.extend(trees.child_nodes(node))
    return {name: (reads, writes & own) for name, (reads, writes) in effects.items()}


def _helper_effect(scope):
    if scope.__class__ is gast.Lambda:
        return expression_scope(scope).read, _EMPTY
    found = function_scope(scope)
    return found.read, found.modified


def writes_of_calls(read, effects):
    """What the helpers that a statement reading `read` calls assign as
    `nonlocal` (`effects`: _helper_writes), following calls from helper to
    helper."""
    called = [name for name in read if name in effects]
    done, writes = set(), set()
    while called:
        name = called.pop()
        if name in done:
            continue
        done.add(name)
        reads, written = effects[name]
        writes |= written
        called += [other for other in reads if other in effects]
    return writes


def helpers_and_scopes(body, generated=frozenset(), effect=None):
    """{name: the free names it reads} of the user's helpers in a function's
    statements `body` that run only where the function calls them by name:
    a `def` without decorators, or a lambda assigned to one name, whose body
    makes no closure, generator or coroutine (those could read later), and
    whose name is only ever called here -- by the function itself, its
    comprehensions or other such helpers (not passed, stored, returned,
    read by another nested function, nor declared global/nonlocal).  A call
    of one reads its free variables where the call is (`def g(): return y`
    defined before `y = ...; g()` does not read y before it is assigned):
    `helper_reads` follows calls from helper to helper.  Functions the
    converters generated (`generated`) are part of the function's own code;
    a generated thunk (a lambda at line 0) runs at once.  (helpers_and_scopes
    also gives the ids of the helpers' own nodes; with `effect`, a function
    of a helper's node, each name maps to the union of its pairs instead:
    _helper_writes.)"""
    candidates, parents, loads, declared = {}, {}, [], set()
    stack = [(stmt, ()) for stmt in body]
    while stack:
        node, inside = stack.pop()
        cls = node.__class__
        if cls is gast.Name and node.ctx.__class__ is gast.Load:
            loads.append((node, inside))
        elif cls in (gast.Global, gast.Nonlocal):
            declared.update(node.names)
        children = trees.child_nodes(node)
        if isinstance(node, _USER_SCOPES) and not is_thunk(node) and not (
                cls is gast.FunctionDef and node.name in generated):
            name = helper_name(node, parents.get(id(node))) if not inside else None
            if name is not None:
                candidates.setdefault(name, []).append(node)
            inside = inside + (node,)
        for child in children:
            parents[id(child)] = node
            stack.append((child, inside))
    helper_scopes = {id(scope) for scopes in candidates.values() for scope in scopes}
    escaped = set(declared)
    for node, inside in loads:
        if node.id in candidates and node.id not in escaped and not (
                only_called(node, parents) and all(id(s) in helper_scopes for s in inside)):
            escaped.add(node.id)
    if effect is not None:  # (_helper_writes)
        helpers = {name: _union_of_pairs([effect(s) for s in scopes])
                   for name, scopes in candidates.items() if name not in escaped}
    else:
        helpers = {name: frozenset().union(*(_helper_free_reads(s) for s in scopes))
                   for name, scopes in candidates.items() if name not in escaped}
    return helpers, {id(s) for name in helpers for s in candidates[name]}


def _union_of_pairs(pairs):
    return (frozenset().union(*(a for a, _ in pairs)), frozenset().union(*(b for _, b in pairs)))


def helper_name(scope, parent):
    """The name a user scope is bound to where it is defined (`parent` holds
    it), or None where it may outlive the statement in ways not seen there: a
    decorated `def`, a class, a lambda not assigned to one name, and one whose
    calls give what may read its variables later (a closure or a generator
    expression it makes, a generator; a generated thunk, a lineno 0 lambda,
    runs at once)."""
    if scope.__class__ is gast.FunctionDef:
        name = None if scope.decorator_list else scope.name
    elif scope.__class__ is gast.Lambda and parent.__class__ is gast.Assign and \
            parent.value is scope and len(parent.targets) == 1 and \
            parent.targets[0].__class__ is gast.Name:
        name = parent.targets[0].id
    else:
        return None
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    for stmt in body:
        for node in trees.nodes(stmt):
            if node.__class__ in _LASTING or (isinstance(node, _USER_SCOPES)
                                              and not is_thunk(node)):
                return None
    return name


def _helper_free_reads(scope):
    if scope.__class__ is gast.Lambda:
        return expression_scope(scope).read
    found = anno.getanno(scope, anno.Static.SCOPE, None)
    if found is None:
        found = function_scope(scope)
    return found.read


def helper_reads(read, helpers):
    """`read` (names a statement reads), with what the `helpers` it calls
    (called_helpers) read, and the helpers they call, in turn."""
    called = [name for name in read if name in helpers]
    if not called:
        return read
    read = set(read)
    while called:
        newly = helpers[called.pop()] - read
        read |= newly
        called += [name for name in newly if name in helpers]
    return frozenset(read)
