"""The names a function binds locally: parameters, assignments, `for`
targets, imports, nested defs and classes, walrus targets, `match` captures,
less its `global`/`nonlocal` declarations; comprehension targets stay the
comprehension's.  For

    def f(x, items):
        y = x
        def g(): pass

`local_names(f)` is {'x', 'items', 'y', 'g'}.  What the lists pass may
rebind and what the directives and function-scope passes treat as the
function's own.  Not a pass: a helper the passes share (found once per
function, kept on its node as anno.Basic.LOCAL_NAMES).
"""

import gast

from autograph import anno, trees

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def local_names(fn):
    """Names local to function `fn` (parameters, assigned, imported, defined).

    Found once per function node and kept on it (anno LOCAL_NAMES): the
    passes that ask (function_scope, directives, lists, call_trees) run
    before control flow moves statements into generated functions, and
    between them only fresh generated names (which no user code spells, so
    no membership test asks about them) become bound."""
    names = anno.getanno(fn, anno.Basic.LOCAL_NAMES, None)
    if names is None:
        names = frozenset(_local_names(fn))
        anno.setanno(fn, anno.Basic.LOCAL_NAMES, names)
    return names


# Node types that bind a name otherwise than as a Name stored or deleted in
# the function's own scope: nested scopes (whose names are their own; a
# nested `def` is told by the source text), imports, `match` captures,
# declarations.
_NOT_BOUND_BY_NAMES = frozenset((gast.Lambda, gast.ClassDef, gast.alias, gast.Global,
                                 gast.Nonlocal, gast.MatchAs, gast.MatchStar,
                                 gast.MatchMapping) + _COMPREHENSIONS)


def note_from_walk(fn, types, bound, source_text):
    """Keeps `bound` as function `fn`'s local names (anno LOCAL_NAMES) when
    they are them: `types` and `bound`, the node types in `fn` and the
    identifiers of its Names not loaded, from the transpiler's first walk
    (trees.node_types_and_names), show no nested scope, import, capture or
    declaration -- then parameters and stored or deleted names are all the
    function binds, and no second walk is needed to find them."""
    if (fn.__class__ in (gast.FunctionDef, gast.AsyncFunctionDef)
            and source_text.count("def") == 1 and types.isdisjoint(_NOT_BOUND_BY_NAMES)):
        anno.setanno(fn, anno.Basic.LOCAL_NAMES, frozenset(bound))


# What `_local_names` does with a node, by its class (all leaf classes of
# gast): most nodes bind nothing and are only searched.
_DEF, _SKIP, _COMPREHENSION, _DECLARATION, _NAME, _ALIAS, _MATCH_NAME, _MATCH_REST = range(8)
_KINDS = {gast.FunctionDef: _DEF, gast.AsyncFunctionDef: _DEF, gast.ClassDef: _DEF,
          gast.Lambda: _SKIP, gast.Global: _DECLARATION, gast.Nonlocal: _DECLARATION,
          gast.Name: _NAME, gast.alias: _ALIAS, gast.MatchAs: _MATCH_NAME,
          gast.MatchStar: _MATCH_NAME, gast.MatchMapping: _MATCH_REST}
_KINDS.update(dict.fromkeys(_COMPREHENSIONS, _COMPREHENSION))
_BINDING_CONTEXTS = (gast.Store, gast.Del)
_AST = gast.AST


def _local_names(fn):
    args = fn.args
    params = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    names = {p.id for p in params if p is not None}
    declared = set()
    kinds = _KINDS
    stack = list(fn.body)
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        kind = kinds.get(node.__class__)
        if kind is None:
            if not isinstance(node, _AST):
                continue  # a name in a list of names (MatchClass.kwd_attrs)
        elif kind is _NAME:
            if node.ctx.__class__ in _BINDING_CONTEXTS:
                names.add(node.id)
            if node.annotation is None:
                continue  # (its ctx holds nothing)
        elif kind is _DEF:
            names.add(node.name)
            continue
        elif kind is _SKIP:
            continue
        elif kind is _COMPREHENSION:  # only a walrus binds outside of them
            names.update(n.target.id for n in trees.nodes(node) if isinstance(n, gast.NamedExpr))
            continue
        elif kind is _DECLARATION:
            declared.update(node.names)
            continue
        elif kind is _ALIAS:
            names.add((node.asname or node.name).split(".")[0])
        elif kind is _MATCH_NAME:
            if node.name:
                names.add(node.name)
        elif node.rest:  # _MATCH_REST
            names.add(node.rest)
        attrs = node.__dict__
        for field in node._fields:
            value = attrs.get(field)
            if value.__class__ is list:
                extend(value)
            elif isinstance(value, _AST):
                push(value)
    return names - declared


class LazyLocalNames:
    """`local_names(fn)`, computed on the first membership test: most
    functions call no `append`/`pop` on a name."""

    def __init__(self, fn):
        self._fn = fn
        self._names = None

    def __contains__(self, name):
        if self._names is None:
            self._names = local_names(self._fn)
        return name in self._names
