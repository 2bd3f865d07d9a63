"""Functions whose conversion only routes their calls through
`ag__.converted`: their module is built from the stdlib parse, without the
pass pipeline.

    def logits(params, x):                   def logits(params, x):
        h = np.tanh(x @ params['w'])   ==>       if ag__.tracing:
        return h @ params['v']                       h = ag__.converted(np.tanh, fscope)(x @ params['w'])
                                                     return h @ params['v']
                                                 else:
                                                     h = np.tanh(x @ params['w'])
                                                     return h @ params['v']

Straight-line functions -- an optional docstring, assignments to names and
one `return` at the end -- whose expressions are names, constants,
arithmetic (not `'%d' % k` of a literal template), subscripts, slices,
attributes, tuple, list, set and dict displays and calls of anything but
a builtin's name (no `print`, `len`, `range`, ...; no list method, no
starred or `**` argument): every pass but call_trees leaves them as they
are, and call_trees wraps each call.  Model layers and losses written in
numpy are often like that.  The module is the one the pipeline gives, node
for node and position for position (tests/test_call_only.py compares them
for every such function of the corpus, the examples and the benchmarks), at
less than half the cost: no gast translation either way, no passes.
Anything else gives None, and the transpiler takes the pipeline.

With `loops`, a function may also hold `for` loops over its own parameters
(`for k in params:`, `for k, v in params.items():` -- `.keys()`, `.values()`
--, not nested, no `else`, `break`, `continue` or `return` inside, one
name as target or two over `.items()`) whose bodies assign names or items
(`new[k] = ...`).  Over a Python
iterable, the pipeline's `ag__.for_stmt` runs exactly that loop; so the
loops stay as written, and a check at the top sends a call whose iterated
parameter holds a staged value to the pipeline's version:

    def adam(params, lr):                      def adam(params, lr):
        new = {}                          ==>      if ag__.tracing:
        for k in params:                               if ag__.iterates_staged(params):
            new[k] = params[k] * lr                        return ag__.pipeline_version(ag__function, fscope)(params, lr)
        return new                                     new = {}
                                                       for k in params:
                                                           new[k] = params[k] * lr
                                                       return new
                                                   else: ...

(`ag__function`: a cell per function object, holding a weak reference to
the original.)  A name a loop body binds that was not bound before the loop
is read only after its binding in the same iteration, and never after the
loop: the pipeline would load it as Undefined where Python raises.
`to_code` shows the pipeline's version (the general one).
"""

import ast
import dis

from autograph import context, naming, source, templates

_FLAGS_NOT_PLAIN = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
# The jumps of a plain `for` loop (3.11: FOR_ITER and JUMP_BACKWARD)
_LOOP_JUMPS = frozenset(dis.opmap[name] for name in ("FOR_ITER", "JUMP_BACKWARD", "JUMP_ABSOLUTE")
                        if name in dis.opmap)
# The factory's cell holding (weakly) the original function, in a function
# whose loops are kept: its way to the pipeline's version
FUNCTION_CELL = "ag__function"
# Methods the lists pass rewrites on a list (`lst.append(x)`): not wrapped alone.
_LIST_METHODS = frozenset({"append", "pop"})


def _may_be_call_only(code, loops=False):
    """A cheap test of the bytecode before parsing: no jump (no `if`, loop
    unless `loops`, `and`/`or`, conditional expression), no nested code (no
    lambda, comprehension, nested def), no `try`/`with`, not a generator."""
    # (co_exceptiontable: Python 3.11+; before, a `try`/`with` shows as a jump)
    if code.co_flags & _FLAGS_NOT_PLAIN or getattr(code, "co_exceptiontable", b""):
        return False
    # (a variable of the user's named like a cell, `fscope` or `ag__`, read,
    # bound or closed over: only the pipeline's transform renames those)
    if any(name in code.co_names or name in code.co_varnames or name in code.co_freevars
           for name in naming.GENERATED_NAMES + (FUNCTION_CELL,)):
        return False
    if any(type(c) is type(code) for c in code.co_consts):
        return False
    jumps = _JUMPS - _LOOP_JUMPS if loops else _JUMPS
    raw = code.co_code
    return not any(raw[i] in jumps for i in range(0, len(raw), 2))


def module_for(fn, factory_params, entity_name, loops=False):
    """The module the transpiler compiles for `fn` (a FunctionDef `ag__factory`
    with parameters `factory_params` -- and FUNCTION_CELL when loops are kept
    -- returning the converted function named `entity_name`), or None when
    `fn` is not call-only."""
    parsed = candidate(fn, loops=loops)
    return None if parsed is None else module_of(parsed, factory_params, entity_name,
                                                 loops=loops)


def candidate(fn, lines=None, loops=False):
    """`fn`'s stdlib FunctionDef (source.parsed_def) when its bytecode may be
    call-only's, else None.  The transpiler hands a parse that module_of
    declines on to source.get_entity: the function is parsed once.
    `lines`: source.lines_of(fn), when read already."""
    return source.parsed_def(fn, lines) if _may_be_call_only(fn.__code__, loops) else None


def module_of(parsed, factory_params, entity_name, facts=None, loops=False):
    """module_for's module from `parsed`, candidate's result; or None.
    `facts`: the conversion's context.Facts, which records what it asks;
    `loops`: keep `for` loops over parameters (see above)."""
    iterated = _call_only_body(parsed, facts or context.Facts(None), loops)
    if iterated is None:
        return None
    if iterated:
        factory_params = (*factory_params, FUNCTION_CELL)
    # (decorators were applied already)
    return _module(parsed, factory_params, entity_name, iterated)


def _call_only_body(fn_node, facts, loops):
    """The parameters `fn_node`'s loops iterate (empty: none), or None when
    its body is not call-only's."""
    body = fn_node.body
    params = _parameter_names(fn_node.args) if loops else ()
    iterated, bound, loop_locals, stored = [], set(params), [], set()
    for i, stmt in enumerate(body):
        cls = stmt.__class__
        if cls is ast.Assign:
            if len(stmt.targets) != 1 or not _assigned_names(stmt.targets[0]):
                return None
            reads = set()
            if not _plain_expression(stmt.value, facts, reads):
                return None
            if not reads.isdisjoint(loop_locals):
                return None
            names = _names_in(stmt.targets[0])
            bound.update(names)
            stored.update(names)
        elif cls is ast.Return:
            reads = set()
            if i != len(body) - 1 or stmt.value is not None and not _plain_expression(
                    stmt.value, facts, reads):
                return None
            if not reads.isdisjoint(loop_locals):
                return None
        elif cls is ast.Expr:  # a docstring only: a call statement may be a directive
            if i != 0 or not (stmt.value.__class__ is ast.Constant
                              and isinstance(stmt.value.value, str)):
                return None
        elif cls is ast.For and loops:
            source = _iterated_parameter(stmt.iter, params)
            if source is None or stmt.orelse or not _plain_target(stmt):
                return None
            local = _loop_locals(stmt, bound, loop_locals, facts)
            if local is None:
                return None
            loop_locals.extend(local)
            stored.update(_names_in(stmt.target))
            stored.update(_bound_in(stmt.body))
            if source not in iterated:
                iterated.append(source)
        else:
            return None
    if stored.intersection(name for name, _ in iterated):
        return None  # (checked at the top: the loop must iterate what the call passed)
    return tuple(iterated)


_DICT_VIEWS = frozenset({"items", "keys", "values"})


def _plain_target(loop):
    """A name; or two names over a dict's `.items()`, which are Python
    pairs: the pipeline's `ag__.unpack_target` splits a staged item, which
    Python's unpacking would refuse."""
    target = loop.target
    if target.__class__ is ast.Name:
        return True
    return (target.__class__ is ast.Tuple and len(target.elts) == 2
            and all(e.__class__ is ast.Name for e in target.elts)
            and loop.iter.__class__ is ast.Call and loop.iter.func.attr == "items")


def _iterated_parameter(node, params):
    """(name, False) for a loop over parameter `name`, (name, True) over
    `name.items()`, `.keys()` or `.values()`; None for anything else."""
    if node.__class__ is ast.Name:
        return (node.id, False) if node.id in params else None
    if (node.__class__ is ast.Call and not node.args and not node.keywords
            and node.func.__class__ is ast.Attribute and node.func.attr in _DICT_VIEWS
            and node.func.value.__class__ is ast.Name and node.func.value.id in params):
        return node.func.value.id, True
    return None


def _parameter_names(args):
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _names_in(target):
    if target.__class__ is ast.Name:
        return [target.id]
    return [e.id for e in target.elts] if target.__class__ is ast.Tuple else []


def _loop_locals(loop, bound, earlier, facts):
    """The names the body of `loop` binds that were not bound before it
    (its target's included), or None when the body is not one kept loops
    take: assignments to names or to items `d[k]` (no call in `d` or `k`),
    each new name read only after its binding in the iteration, none of
    `earlier` (an earlier loop's such names) read."""
    new = [name for name in _names_in(loop.target) if name not in bound]
    seen_new = set(new)
    if not all(s.__class__ is ast.Assign and len(s.targets) == 1 for s in loop.body):
        return None
    in_body = _bound_in(loop.body)
    for stmt in loop.body:
        target, reads = stmt.targets[0], set()
        if not _plain_expression(stmt.value, facts, reads):
            return None
        if target.__class__ is ast.Subscript:
            if not (_plain_expression(target.value, facts, reads, calls=False)
                    and _plain_expression(target.slice, facts, reads, calls=False)):
                return None
            names = []
        elif _assigned_names(target):
            names = _names_in(target)
        else:
            return None
        if not reads.isdisjoint(earlier) or any(
                name not in bound and name not in seen_new and name in in_body for name in reads):
            return None  # (read before its binding: Undefined in the pipeline's loop)
        for name in names:
            if name not in bound and name not in seen_new:
                seen_new.add(name)
                new.append(name)
    return new


def _bound_in(body):
    return {name for stmt in body for name in _names_in(stmt.targets[0])}


def _assigned_names(target):
    if target.__class__ is ast.Name:
        return True
    return target.__class__ is ast.Tuple and all(e.__class__ is ast.Name for e in target.elts)


_UNARY = (ast.UAdd, ast.USub, ast.Invert)  # (`not` is the logical pass's)


def _plain_expression(node, facts, reads=None, calls=True):
    """Is `node` an expression call-only conversions take (with no call,
    unless `calls`)?  The names it reads go into the set `reads`, if given."""
    stack = [node]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is ast.Name:
            if reads is not None:
                reads.add(node.id)
            continue
        if cls is ast.Constant:
            continue
        if cls is ast.BinOp:
            if node.op.__class__ is ast.Mod and node.left.__class__ is ast.Constant \
                    and type(node.left.value) is str:
                return False  # (`'%d' % k`: the formatted strings pass's)
            stack += (node.left, node.right)
        elif cls is ast.UnaryOp:
            if not isinstance(node.op, _UNARY):
                return False
            stack.append(node.operand)
        elif cls is ast.Subscript:
            stack += (node.value, node.slice)
        elif cls is ast.Slice:
            stack += [part for part in (node.lower, node.upper, node.step) if part is not None]
        elif cls is ast.Attribute:
            stack.append(node.value)
        elif cls is ast.Tuple or cls is ast.List or cls is ast.Set:
            stack += node.elts  # (a list display: only appends make a list the lists pass's)
        elif cls is ast.Dict:
            if None in node.keys:
                return False  # (`{**d}`)
            stack += node.keys
            stack += node.values
        elif cls is ast.Call:
            if not calls:
                return False
            func = node.func
            if func.__class__ is ast.Name:
                # (read now, as the pipeline's call_trees reads it: a name
                # may become a builtin after import, `gettext.install`'s `_`)
                if facts.ask("is_a_builtin_name", func.id):
                    return False
            elif func.__class__ is ast.Attribute:
                if func.attr in _LIST_METHODS:
                    return False
            elif func.__class__ is not ast.Call:  # (`ag.value_and_grad(f)(x)`)
                return False
            if any(k.arg is None for k in node.keywords):
                return False
            stack.append(func)
            stack += node.args
            stack += [k.value for k in node.keywords]
        else:  # Starred, BoolOp, Compare, IfExp, Lambda, comprehensions, f-strings, ...
            return False
    return True


def _located(node, at):
    node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = at
    return node


def _position(node):
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _wrapped_call(node):
    """`f(a, k=b)` as `ag__.converted(f, fscope)(a, k=b)`, the calls in `f`,
    `a` and `b` wrapped too; the wrapper where templates.replace puts it."""
    at = templates.first_line_span(node)
    wrapper = _located(ast.Call(
        func=_located(ast.Attribute(value=_located(ast.Name(id="ag__", ctx=ast.Load()), at),
                                    attr="converted", ctx=ast.Load()), at),
        args=[_wrapped(node.func), _located(ast.Name(id="fscope", ctx=ast.Load()), at)],
        keywords=[]), at)
    keywords = []
    for keyword in node.keywords:
        copy = ast.keyword(arg=keyword.arg, value=_wrapped(keyword.value))
        keywords.append(_located(copy, _position(keyword)))
    return _located(ast.Call(func=wrapper, args=[_wrapped(a) for a in node.args],
                             keywords=keywords), _position(node))


# The fields of the (checked) node classes that hold expressions.
_FIELDS = {ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",),
           ast.Subscript: ("value", "slice"), ast.Slice: ("lower", "upper", "step"),
           ast.Attribute: ("value",), ast.Assign: ("value",), ast.Return: ("value",)}


def _wrapped(node):
    """`node` with its calls wrapped: a copy of each node on the way to a
    call, the rest shared with the plain body (compile() only reads trees)."""
    cls = node.__class__
    if cls is ast.Call:
        return _wrapped_call(node)
    if cls is ast.Tuple or cls is ast.List or cls is ast.Set:
        elts = [_wrapped(e) for e in node.elts]
        if all(a is b for a, b in zip(elts, node.elts)):
            return node
        changed = {"elts": elts}
    elif cls is ast.Dict:
        keys, values = [_wrapped(k) for k in node.keys], [_wrapped(v) for v in node.values]
        if all(a is b for a, b in zip(keys + values, node.keys + node.values)):
            return node
        changed = {"keys": keys, "values": values}
    else:
        changed = {}
        for field in _FIELDS.get(cls, ()):
            value = getattr(node, field)
            if value is not None:
                new = _wrapped(value)
                if new is not value:
                    changed[field] = new
        if not changed:
            return node
    copy = cls.__new__(cls)
    copy.__dict__.update(node.__dict__)
    copy.__dict__.update(changed)
    return copy


def _kept_loop(loop):
    """`loop` with the calls of its body wrapped (its item targets hold none)."""
    return _located(ast.For(target=loop.target, iter=_wrapped(loop.iter),
                            body=[_wrapped(stmt) for stmt in loop.body], orelse=[],
                            type_comment=None), _position(loop))


def _dispatch(args, iterated, at):
    """`if ag__.iterates_staged(<the iterated parameters>, dicts=(<those whose
    views are iterated>,)): return <the pipeline's version>(<the parameters,
    as passed>)`, all at `at`: the line of the tracing guard,
    where no other call can be under way (errors.without_internal_frames
    hides this call's line: Python shows one frame for the function)."""
    def load(name):
        return _located(ast.Name(id=name, ctx=ast.Load()), at)

    def runtime(attr):
        return _located(ast.Attribute(value=load("ag__"), attr=attr, ctx=ast.Load()), at)

    dicts = [load(name) for name, view in iterated if view]
    keywords = [_located(ast.keyword(arg="dicts", value=_located(
        ast.Tuple(elts=dicts, ctx=ast.Load()), at)), at)] if dicts else []
    test = _located(ast.Call(func=runtime("iterates_staged"),
                             args=[load(name) for name, view in iterated if not view],
                             keywords=keywords), at)
    version = _located(ast.Call(func=runtime("pipeline_version"),
                                args=[load(FUNCTION_CELL), load("fscope")], keywords=[]), at)
    positional = [load(a.arg) for a in (*args.posonlyargs, *args.args)]
    if args.vararg is not None:
        positional.append(_located(ast.Starred(value=load(args.vararg.arg), ctx=ast.Load()), at))
    keywords = [_located(ast.keyword(arg=a.arg, value=load(a.arg)), at) for a in args.kwonlyargs]
    if args.kwarg is not None:
        keywords.append(_located(ast.keyword(arg=None, value=load(args.kwarg.arg)), at))
    call = _located(ast.Call(func=version, args=positional, keywords=keywords), at)
    return _located(ast.If(test=test, body=[_located(ast.Return(value=call), at)], orelse=[]), at)


def _module(node, factory_params, entity_name, iterated=()):
    at, guard_at = _position(node), templates.first_line_span(node)
    body = node.body
    docstring = body[:1] if body and body[0].__class__ is ast.Expr else []
    statements = body[len(docstring):]
    # (a `pass` the guard's template adds takes the guard's position)
    staged = [_kept_loop(stmt) if stmt.__class__ is ast.For else _wrapped(stmt)
              for stmt in statements] or [_located(ast.Pass(), guard_at)]
    if iterated:
        staged.insert(0, _dispatch(node.args, iterated, guard_at))
    plain = statements or [_located(ast.Pass(), guard_at)]
    guard = _located(ast.If(
        test=_located(ast.Attribute(value=_located(ast.Name(id="ag__", ctx=ast.Load()), guard_at),
                                    attr="tracing", ctx=ast.Load()), guard_at),
        body=staged, orelse=plain), guard_at)
    entity = _located(ast.FunctionDef(
        name=entity_name, args=node.args, body=docstring + [guard], decorator_list=[],
        returns=node.returns, type_comment=None, **_NO_TYPE_PARAMS), at)
    params = ast.arguments(
        posonlyargs=[], args=[_located(ast.arg(arg=name, annotation=None, type_comment=None), at)
                              for name in factory_params],
        vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    factory = _located(ast.FunctionDef(
        name="ag__factory", args=params,
        body=[entity, _located(ast.Return(value=_located(
            ast.Name(id=entity_name, ctx=ast.Load()), at)), at)],
        decorator_list=[], returns=None, type_comment=None, **_NO_TYPE_PARAMS), at)
    return ast.Module(body=[factory], type_ignores=[])


_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
