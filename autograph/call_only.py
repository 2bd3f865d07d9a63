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
attributes, tuples and calls of anything but
a builtin's name (no `print`, `len`, `range`, ...; no list method, no
starred or `**` argument): every pass but call_trees leaves them as they
are, and call_trees wraps each call.  Model layers and losses written in
numpy are often like that.  The module is the one the pipeline gives, node
for node and position for position (tests/test_call_only.py compares them
for every such function of the corpus, the examples and the benchmarks), at
less than half the cost: no gast translation either way, no passes.
Anything else gives None, and the transpiler takes the pipeline.
"""

import ast
import dis

from autograph import context, naming, source, templates

_FLAGS_NOT_PLAIN = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
# Methods the lists pass rewrites on a list (`lst.append(x)`): not wrapped alone.
_LIST_METHODS = frozenset({"append", "pop"})


def _may_be_call_only(code):
    """A cheap test of the bytecode before parsing: no jump (no `if`, loop,
    `and`/`or`, conditional expression), no nested code (no lambda,
    comprehension, nested def), no `try`/`with`, not a generator."""
    # (co_exceptiontable: Python 3.11+; before, a `try`/`with` shows as a jump)
    if code.co_flags & _FLAGS_NOT_PLAIN or getattr(code, "co_exceptiontable", b""):
        return False
    # (a variable of the user's named like a cell, `fscope` or `ag__`, read,
    # bound or closed over: only the pipeline's transform renames those)
    if any(name in code.co_names or name in code.co_varnames or name in code.co_freevars
           for name in naming.GENERATED_NAMES):
        return False
    if any(type(c) is type(code) for c in code.co_consts):
        return False
    jumps = _JUMPS
    raw = code.co_code
    return not any(raw[i] in jumps for i in range(0, len(raw), 2))


def module_for(fn, factory_params, entity_name):
    """The module the transpiler compiles for `fn` (a FunctionDef `ag__factory`
    with parameters `factory_params` returning the converted function named
    `entity_name`), or None when `fn` is not call-only."""
    parsed = candidate(fn)
    return None if parsed is None else module_of(parsed, factory_params, entity_name)


def candidate(fn, lines=None):
    """`fn`'s stdlib FunctionDef (source.parsed_def) when its bytecode may be
    call-only's, else None.  The transpiler hands a parse that module_of
    declines on to source.get_entity: the function is parsed once.
    `lines`: source.lines_of(fn), when read already."""
    return source.parsed_def(fn, lines) if _may_be_call_only(fn.__code__) else None


def module_of(parsed, factory_params, entity_name, facts=None):
    """module_for's module from `parsed`, candidate's result; or None.
    `facts`: the conversion's context.Facts, which records what it asks."""
    if not _call_only_body(parsed.body, facts or context.Facts(None)):
        return None
    return _module(parsed, factory_params, entity_name)  # (decorators were applied already)


def _call_only_body(body, facts):
    for i, stmt in enumerate(body):
        cls = stmt.__class__
        if cls is ast.Assign:
            if len(stmt.targets) != 1 or not _assigned_names(stmt.targets[0]):
                return False
            if not _plain_expression(stmt.value, facts):
                return False
        elif cls is ast.Return:
            if i != len(body) - 1 or stmt.value is not None and not _plain_expression(stmt.value, facts):
                return False
        elif cls is ast.Expr:  # a docstring only: a call statement may be a directive
            if i != 0 or not (stmt.value.__class__ is ast.Constant
                              and isinstance(stmt.value.value, str)):
                return False
        else:
            return False
    return True


def _assigned_names(target):
    if target.__class__ is ast.Name:
        return True
    return target.__class__ is ast.Tuple and all(e.__class__ is ast.Name for e in target.elts)


_UNARY = (ast.UAdd, ast.USub, ast.Invert)  # (`not` is the logical pass's)


def _plain_expression(node, facts):
    stack = [node]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is ast.Name or cls is ast.Constant:
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
        elif cls is ast.Tuple:
            stack += node.elts
        elif cls is ast.Call:
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
    if cls is ast.Tuple:
        elts = [_wrapped(e) for e in node.elts]
        if all(a is b for a, b in zip(elts, node.elts)):
            return node
        changed = {"elts": elts}
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


def _module(node, factory_params, entity_name):
    at, guard_at = _position(node), templates.first_line_span(node)
    body = node.body
    docstring = body[:1] if body and body[0].__class__ is ast.Expr else []
    statements = body[len(docstring):]
    # (a `pass` the guard's template adds takes the guard's position)
    staged = [_wrapped(stmt) for stmt in statements] or [_located(ast.Pass(), guard_at)]
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
