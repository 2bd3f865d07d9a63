"""Variables a user closure reads stay the function's own in generated code.

A nested function, lambda or class body that reads `t` sees the enclosing
function's variable `t`, with the value it has when it runs.  The functional
forms carry `t` through branch and loop functions as parameters and locals,
so a closure would see the value from before the statement.  In every
generated function that binds such a name this pass declares it `nonlocal`
(the enclosing function's own cell) and renames a parameter of that name,
assigning it on entry:

    t = a                                   t = a
    def scaled(z):                          def scaled(z):
        return z + t                            return z + t
    def loop_body(i, t, s):        ==>      def loop_body(i, t_1, s):
        t = t + 1.0                             nonlocal t
        s = s + scaled(s)                       t = t_1
        return (t, s)                           t = t + 1.0
                                                s = s + scaled(s)
                                                return (t, s)

so `scaled` sees the current iteration's `t` (the value a traced body holds
while it is traced), as Python does.  The functional forms still take and
return the state, so staging is unchanged.  A function defined inside a
staged statement and reading what it assigns is covered the same way.
"""

import gast

from autograph import anno, templates, trees
from autograph.converters.support import base, staging
from autograph.converters.support.jumps import SCOPES as _USER_SCOPES


class Transformer(base.Converter):

    STATEMENTS_ONLY = True  # every tree has a function: no HANDLES check
    CREATES = (gast.If,)  # `if ag__.is_undefined(y): del y`
    NAMES_WHAT_IT_CREATES = False  # (that `if` comes without a new name)

    @classmethod
    def transform(cls, node, ctx):
        generated = ctx.namer.generated
        if not generated or not base.may_define_closures(ctx):
            return node  # no functional form or no closure: nothing to share
        read = staging.closure_reads(node.body, generated)
        if not read:
            return node
        functions = _generated_functions(node.body, generated)
        for fn in functions:
            _share(fn, read, ctx.namer)
        _unbind_undefined([node] + functions, read)
        return node


_FORMS = frozenset({"if_stmt", "while_stmt", "for_stmt"})


def _unbind_undefined(functions, read):
    """After a functional form assigns a variable a closure reads, an
    `Undefined` (the path Python took left it unbound) unbinds it again, so
    the closure raises Python's own NameError for a free variable."""
    for fn in functions:
        stack = [fn]
        while stack:
            parent = stack.pop()
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(parent, field, None)
                if not isinstance(stmts, list):
                    continue
                out = []
                for stmt in stmts:
                    out.append(stmt)
                    for name in (n for n in _form_targets(stmt) if n in read):
                        unbind = templates.replace(
                            """
                            if ag__.is_undefined(name):
                                del name
                            """, origin=stmt, name=name)
                        anno.setanno(unbind[0].test, anno.Basic.SKIP, True)  # no ag__.ld
                        out += unbind
                stmts[:] = out
            stack.extend(child for child in trees.child_nodes(parent)
                         if isinstance(child, (gast.stmt, gast.excepthandler))
                         and not isinstance(child, _USER_SCOPES))


def _form_targets(stmt):
    """The names `stmt` assigns if it is `(...) = ag__.if_stmt/while_stmt/for_stmt(...)`,
    in the order it assigns them (so the generated code does not depend on
    the order of a set, which varies from one process to the next)."""
    if not isinstance(stmt, gast.Assign) or not isinstance(stmt.value, gast.Call):
        return []
    func = stmt.value.func
    if not (isinstance(func, gast.Attribute) and func.attr in _FORMS
            and isinstance(func.value, gast.Name) and func.value.id == "ag__"):
        return []
    return list(dict.fromkeys(n.id for target in stmt.targets for n in _names_in_order(target)))


def _names_in_order(target):
    """The Name nodes of an assignment target, left to right."""
    if isinstance(target, gast.Name):
        return [target]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for elt in target.elts for n in _names_in_order(elt)]
    if isinstance(target, gast.Starred):
        return _names_in_order(target.value)
    return [n for n in trees.nodes(target) if isinstance(n, gast.Name)]


def _generated_functions(stmts, generated):
    found = []
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, _USER_SCOPES):
            if not (isinstance(node, gast.FunctionDef) and node.name in generated):
                continue
            found.append(node)
        stack.extend(trees.child_nodes(node))
    return found


def _bound_here(fn):
    """Names `fn`'s own body binds (not nested functions', nor a
    comprehension's targets: `k` of `[lambda: k for k in ks]` is the
    comprehension's own; a walrus in it binds here)."""
    bound = set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bound.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bound.add(node.name)
            stack.extend(node.decorator_list)
            continue
        elif isinstance(node, gast.Lambda):
            continue
        elif isinstance(node, gast.comprehension):
            stack.append(node.iter)
            stack.extend(node.ifs)
            continue
        stack.extend(trees.child_nodes(node))
    return bound


def _share(fn, read, namer):
    params = {p.id: p for p in fn.args.args}
    shared = sorted((set(params) | _bound_here(fn)) & read
                    - anno.getanno(fn, anno.Basic.KEPT_CLOSURE_NAMES, frozenset()))
    if not shared:
        return
    entry = [gast.Nonlocal(names=shared)]
    for name in shared:
        if name in params:
            renamed = namer.new(name)
            params[name].id = renamed
            entry += templates.replace("name = renamed", origin=fn, name=name,
                                       renamed=renamed)
    fn.body[:0] = base.copy_location(entry, fn)
