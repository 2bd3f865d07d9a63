"""Helpers shared by the control-flow converters (if, while, for).

Not a pass.  Builds the pieces of the functional (staged) form of a
statement: its state from the analysis, the nested functions that take the
state as parameters and return it, the staged copy of a body, and the reason
a statement cannot be staged at all.
"""


import gast

from autograph import anno, templates, trees
from autograph.analysis import definedness

_COMPOUND = (gast.If, gast.While, gast.For)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def source_order(node, names):
    """`names` in the order they first appear in `node`'s source."""
    seen = []
    stack = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, gast.Name) and child.id in names and child.id not in seen:
            seen.append(child.id)
        stack.extend(reversed(trees.child_nodes(child)))
    return seen + sorted(set(names) - set(seen))


def live_in(stmts, live_out):
    return anno.getanno(stmts[0], anno.Static.LIVE_IN) if stmts else live_out


def staged_copy(stmts):
    """A copy of `stmts` for a staged path: nested control flow is marked
    STAGED_ONLY (functional form only), and statements already converted to
    the dual form keep only their staged path."""
    stmts = trees.clone(stmts)
    return _StagedOnly().visit(gast.Module(body=stmts, type_ignores=[])).body


class _StagedOnly(gast.NodeTransformer):
    def generic_visit(self, node):
        node = super().generic_visit(node)
        anno.setanno(node, anno.Basic.STAGED_ONLY, True)
        return node

    def visit_If(self, node):
        staged_form = anno.getanno(node, anno.Basic.STAGED_FORM, None)
        if staged_form is not None:
            return [self.visit(stmt) for stmt in staged_form]
        return self.generic_visit(node)

    visit_While = visit_For = visit_If


def is_staged_only(node):
    return anno.hasanno(node, anno.Basic.STAGED_ONLY)


def mark_dual(dispatch, staged_stmts):
    """Records the staged path of a dual-form statement (see staged_copy)."""
    anno.setanno(dispatch, anno.Basic.STAGED_FORM, staged_stmts)
    for stmt in staged_stmts:
        anno.setanno(stmt, anno.Basic.STAGED_ONLY, True)


def unstageable(stmts, modified, kind):
    """Why `stmts` cannot move into a nested function, or None.  `kind` names
    the statement for the message, e.g. "a `while` loop"."""
    declared = anno.getanno(stmts[0], anno.Static.SCOPE).declared if stmts else ()
    assigned = sorted(set(modified) & set(declared))
    if assigned:
        return f"{kind} assigning the global/nonlocal variable '{assigned[0]}'"
    for node, in_loop in _walk(stmts, in_loop=False):
        if isinstance(node, (gast.Yield, gast.YieldFrom, gast.Await, gast.Return)):
            return f"{kind} containing `{type(node).__name__.lower().replace('from', ' from')}`"
        if isinstance(node, (gast.Break, gast.Continue)) and not in_loop:
            return f"{kind} containing `{type(node).__name__.lower()}`"
    return None


def _walk(nodes, in_loop):
    """Nodes outside nested functions/classes, with "inside a nested loop"."""
    for node in nodes:
        yield node, in_loop
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (gast.For, gast.AsyncFor, gast.While)):
            yield from _walk(node.body, True)
            yield from _walk([c for c in trees.child_nodes(node)
                              if c not in node.body], in_loop)
        else:
            yield from _walk(trees.child_nodes(node), in_loop)


def load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def undefined_or_name(name, defined, surely, origin):
    """How the staged path loads state `name` before `origin`: directly when
    surely defined, `ag__.Undefined(name)` when surely undefined, else
    whichever of the two holds (`if c: y = 1` then a staged `if` on `y`)."""
    if name in surely:
        return load(name)
    if name not in defined:
        return templates.replace_as_expression(f"ag__.Undefined({name!r})", origin=origin)
    # A converted body is always a function body, so `locals()` holds every
    # bound local; no runtime call stands between the user's frame and the name.
    return templates.replace_as_expression(
        f"locals().get({name!r}, ag__.Undefined({name!r}))", origin=origin, locals="locals")


def state_tuple(names, defined, origin):
    """The state loaded before `origin`; `defined` are the names possibly
    defined there (Static.DEFINED_IN), the surely defined ones come from
    `origin`'s analysis."""
    surely = definedness.surely_defined(origin)
    node = gast.Tuple(elts=[undefined_or_name(n, defined, surely, origin) for n in names],
                      ctx=gast.Load())
    anno.setanno(node, anno.Basic.SKIP, True)
    return node


def names_tuple(names):
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in names], ctx=gast.Load())


def function(name, params, body, outputs, origin):
    """`def name(*params): body; return (*outputs,)`, marked STAGED_ONLY."""
    returned = templates.replace("return outputs", origin=origin, outputs=list(outputs))
    anno.setanno(returned[0], anno.Basic.SKIP, True)
    body = [stmt for stmt in body if not isinstance(stmt, gast.Pass)]  # the return follows
    fn = templates.replace(
        """
        def fn(params):
            body
        """, origin=origin, fn=name, params=list(params), body=body + returned)
    anno.setanno(fn[0], anno.Basic.STAGED_ONLY, True)
    return fn[0]


def opts_keywords(node):
    """`opts={...}` from the loop options the directives pass recorded."""
    options = anno.getanno(node, anno.Basic.DIRECTIVES, None)
    if not options:
        return []
    if isinstance(options, dict):
        items = list(options.items())
    else:
        items = [(k.arg, k.value) for k in options]
    value = gast.Dict(keys=[gast.Constant(value=k, kind=None) for k, _ in items],
                      values=[trees.clone(v) for _, v in items])
    return [gast.keyword(arg="opts", value=value)]


def python_only(expr, why, origin):
    """`ag__.python_only(expr, why)`: the test (or iterable) of a statement that
    keeps only its Python path; a staged value there raises, naming `why`."""
    return templates.replace_as_expression(
        "ag__.python_only(expr, why)", origin=origin, expr=expr,
        why=gast.Constant(value=why, kind=None))
