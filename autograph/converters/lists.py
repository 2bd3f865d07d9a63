"""List mutations as statements rebind the list, so it can be loop state.

    lst.append(x)          ==>   lst = ag__.list_append(lst, x)
    y = lst.pop(i)         ==>   (lst, y) = ag__.list_pop(lst, i)
    lst.pop()              ==>   lst = ag__.list_pop(lst)[0]
    lst[i] = v             ==>   lst = ag__.list_setitem(v, lst, i)
    d['k'].append(x)       ==>   d['k'] = ag__.list_append(d['k'], x)   (d a local dict)
    total += lst.pop()     ==>   total += [(lst := popped[0], popped[1])[1]
                                           for popped in (ag__.list_pop(lst),)][0]

A pop inside an expression rebinds the list where it stands (an assignment
expression; the one-item comprehension holds the pair without a new local
variable, which a staged loop would have to carry), so operands are still
evaluated in Python's order and a pop that is short-circuited away does not
happen.  Lambdas, comprehensions and class bodies keep Python's `pop` (an
assignment expression there would bind in the wrong scope).

Item assignment is rewritten only on a list the function appends to (only
those can be staged lists; other containers keep their items as loop state).
Only for receivers that are local variables of the function being converted
(parameters or assigned in it): rebinding an attribute, a global or a
closure variable would change what the code means.  Whether `lst` really is
a list is decided at run time: `list_append` on any other object calls that
object's own `append` and returns it, so user classes keep their behaviour.
"""

import gast

from autograph import templates, trees
from autograph.converters.support import base
from autograph.converters.support.local_names import LazyLocalNames

_METHODS = ("append", "pop")


def _appended_names(fn, local):
    """Names in `local` that function `fn` calls `.append(...)` on: only
    those can be staged lists (any other receiver keeps its item assignment)."""
    return frozenset(
        n.func.value.id for n in trees.nodes(fn)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
        and n.func.attr == "append" and isinstance(n.func.value, gast.Name)
        and n.func.value.id in local)


def _dict_names(fn, local):
    """Names in `local` that function `fn` binds only by assigning a new dict
    (`hist = {"loss": []}`, a dict comprehension, `dict(...)`): a list held at
    a constant key of one is appended to through its item (a user's mapping
    could do more on `d[k] = v`, which the rewrite below stores back)."""
    stores, made = {}, {}
    for n in trees.nodes(fn):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(
                n.targets[0], gast.Name) and _makes_dict(n.value, local):
            made[n.targets[0].id] = made.get(n.targets[0].id, 0) + 1
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            stores.update((name, -1) for name in n.names)
    return frozenset(name for name, count in made.items()
                     if stores.get(name) == count and name in local)


def _makes_dict(value, local):
    return isinstance(value, (gast.Dict, gast.DictComp)) or (
        isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
        and value.func.id == "dict" and "dict" not in local)


class Transformer(base.Converter):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.function = None
        self.locals = frozenset()
        self.appended = frozenset()
        self.dicts = frozenset()

    @classmethod
    def transform(cls, node, ctx):
        if not any(method in ctx.info.source for method in _METHODS) or not any(
                n.__class__ is gast.Attribute and n.attr in _METHODS for n in trees.nodes(node)):
            return node  # no `.append`/`.pop` anywhere: nothing to rewrite
        return super().transform(node, ctx)

    def visit_FunctionDef(self, node):
        outer, self.locals = self.locals, LazyLocalNames(node)
        # Before the appends in the body are rewritten:
        outer_appended, self.appended = self.appended, _appended_names(node, self.locals)
        outer_dicts, self.dicts = self.dicts, None  # (found on first use: _held_list_append)
        outer_function, self.function = self.function, node
        node.body = [self.visit(s) for s in node.body]  # decorators and defaults: outer scope
        node.body = [s for item in node.body for s in (item if isinstance(item, list) else [item])]
        self.locals, self.appended, self.dicts = outer, outer_appended, outer_dicts
        self.function = outer_function
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


    def visit_Lambda(self, node):
        return node

    def _skip_comprehension(self, node):
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip_comprehension

    def visit_Call(self, node):
        self.generic_visit(node)
        name = self._method_call(node, "pop", 1)
        if name is None or any(isinstance(n, gast.NamedExpr) for n in trees.nodes(node)):
            return node  # (no assignment expression may stand in a comprehension's iterable)
        popped = self.ctx.namer.new("popped")
        return templates.replace_as_expression(
            "[(target := popped[0], popped[1])[1] for popped in (ag__.list_pop(target, index),)][0]",
            origin=node, target=name, popped=popped, index=node.args or [])

    def _method_call(self, call, method, max_args):
        """The receiver's name when `call` is `<local name>.<method>(<= max_args args)`."""
        if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr == method and isinstance(call.func.value, gast.Name)
                and not call.keywords and len(call.args) <= max_args
                and not any(isinstance(a, gast.Starred) for a in call.args)
                and call.func.value.id in self.locals):
            return call.func.value.id
        return None

    def visit_Expr(self, node):
        call = node.value
        self.generic_visit(call if isinstance(call, gast.Call) else node)
        name = self._method_call(call, "append", 1)
        if name is not None and len(call.args) == 1:
            return templates.replace("target = ag__.list_append(target, item)", origin=node,
                                     target=name, item=call.args[0])
        held = self._held_list_append(call)
        if held is not None:
            return templates.replace("target = ag__.list_append(target, item)", origin=node,
                                     target=held, item=call.args[0])
        name = self._method_call(call, "pop", 1)
        if name is not None:
            return templates.replace("target = ag__.list_pop(target, index)[0]", origin=node,
                                     target=name, index=call.args or [])
        return node

    def _held_list_append(self, call):
        """`d['k']` (a copy, to store into) when `call` is `d['k'].append(x)`
        on a local `d` with a constant key: the item then is state like a
        variable (an item part, converters/support/staging.py), so a list
        held in a dict can collect a staged loop's values as a local list does."""
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr == "append" and len(call.args) == 1 and not call.keywords
                and not isinstance(call.args[0], gast.Starred)):
            return None
        target = call.func.value
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and target.value.id in self.locals and isinstance(target.slice, gast.Constant)
                and type(target.slice.value) in (str, int)):
            return None
        if self.dicts is None:
            self.dicts = _dict_names(self.function, self.locals)
        return trees.clone(target) if target.value.id in self.dicts else None

    def _item_assignment(self, node):
        """`lst = ag__.list_setitem(value, lst, index)` for `lst[index] = value`
        on a local list this function appends to, else None."""
        if len(node.targets) != 1:
            return None
        target = node.targets[0]
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and not any(isinstance(n, gast.Slice) for n in trees.nodes(target.slice))
                and target.value.id in self.appended):
            return None
        self.generic_visit(node)
        return templates.replace("target = ag__.list_setitem(value, target, index)",
                                 origin=node, target=target.value.id, value=node.value,
                                 index=target.slice)

    def visit_Assign(self, node):
        rewritten = self._item_assignment(node)
        if rewritten is not None:
            return rewritten
        name = self._method_call(node.value, "pop", 1)
        if name is None or len(node.targets) != 1:
            self.generic_visit(node)
            return node
        node.targets = [self.visit(t) for t in node.targets]
        self.generic_visit(node.value)
        return templates.replace("target, popped = ag__.list_pop(target, index)", origin=node,
                                 target=name, popped=node.targets[0], index=node.value.args or [])
