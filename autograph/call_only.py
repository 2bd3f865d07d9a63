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
import re

from autograph import context, naming, source, templates

_FLAGS_NOT_PLAIN = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
# Any jump opcode, as a regular expression: _has_jump searches in C.
_JUMP = re.compile(b"[%s]" % re.escape(bytes(sorted(set(dis.hasjrel) | set(dis.hasjabs)))))
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
    return not _has_jump(code)


def _has_jump(code):
    """Whether `code` has a jump instruction: a jump opcode at an even
    offset of its wordcode (an odd one holds an argument)."""
    return _JUMP.search(code.co_code[::2]) is not None


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
    staged = _staged_body(parsed.body, facts or context.Facts(None))
    if staged is None:
        return None
    return _module(parsed, staged, factory_params, entity_name)  # (decorators were applied already)


def _staged_body(body, facts):
    """The statements of `body` (after its docstring) with their calls
    wrapped, checked and wrapped in one walk; None when `body` is not
    call-only."""
    staged = []
    for i, stmt in enumerate(body):
        cls = stmt.__class__
        if cls is ast.Assign:
            if len(stmt.targets) != 1 or not _assigned_names(stmt.targets[0]):
                return None
        elif cls is ast.Return:
            if i != len(body) - 1:
                return None
            if stmt.value is None:
                staged.append(stmt)
                continue
        elif cls is ast.Expr:  # a docstring only: a call statement may be a directive
            if i != 0 or not (stmt.value.__class__ is ast.Constant
                              and isinstance(stmt.value.value, str)):
                return None
            continue
        else:
            return None
        value = _staged(stmt.value, facts)
        if value is None:
            return None
        staged.append(stmt if value is stmt.value else _copy(stmt, value=value))
    return staged


def _assigned_names(target):
    if target.__class__ is ast.Name:
        return True
    return target.__class__ is ast.Tuple and all(e.__class__ is ast.Name for e in target.elts)


_UNARY = (ast.UAdd, ast.USub, ast.Invert)  # (`not` is the logical pass's)
# The fields of the expression classes call-only takes (but calls) that
# hold expressions; names and constants hold none.
_FIELDS = {ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",),
           ast.Subscript: ("value", "slice"), ast.Slice: ("lower", "upper", "step"),
           ast.Attribute: ("value",), ast.Tuple: ("elts",)}


def _staged(node, facts):
    """Expression `node` with its calls wrapped: a copy of each node on the
    way to a call, the rest shared with the plain body (compile() only reads
    trees); None when it is not call-only's (what else the pipeline's passes
    would rewrite)."""
    cls = node.__class__
    if cls is ast.Name or cls is ast.Constant:
        return node
    if cls is ast.Call:
        return _staged_call(node, facts)
    fields = _FIELDS.get(cls)
    if fields is None:  # Starred, BoolOp, Compare, IfExp, Lambda, comprehensions, f-strings, ...
        return None
    if cls is ast.BinOp:
        if node.op.__class__ is ast.Mod and node.left.__class__ is ast.Constant \
                and type(node.left.value) is str:
            return None  # (`'%d' % k`: the formatted strings pass's)
    elif cls is ast.UnaryOp and not isinstance(node.op, _UNARY):
        return None
    attrs = node.__dict__  # (the parser's: every field is there)
    changed = {}
    for field in fields:
        value = attrs[field]
        if value.__class__ in _LEAVES:
            continue
        if value.__class__ is list:  # (a tuple's elements)
            new = []
            for item in value:
                item_staged = item if item.__class__ in _LEAVES else _staged(item, facts)
                if item_staged is None:
                    return None
                new.append(item_staged)
            if any(map(_is_not, new, value)):
                changed[field] = new
            continue
        new = _staged(value, facts)
        if new is None:
            return None
        if new is not value:
            changed[field] = new
    return _copy(node, **changed) if changed else node


# what holds no call (a missing part of a slice: None); checked before a call
# of _staged, which takes them too
_LEAVES = frozenset({ast.Name, ast.Constant, type(None)})


def _is_not(a, b):
    return a is not b


def _staged_call(node, facts):
    """`f(a, k=b)` as `ag__.converted(f, fscope)(a, k=b)`, the calls in `f`,
    `a` and `b` wrapped too; the wrapper where templates.replace puts it.
    None when the call is not call-only's."""
    func = node.func
    if func.__class__ is ast.Name:
        # (read now, as the pipeline's call_trees reads it: a name
        # may become a builtin after import, `gettext.install`'s `_`)
        if facts.ask("is_a_builtin_name", func.id):
            return None
    elif func.__class__ is ast.Attribute:
        if func.attr in _LIST_METHODS:
            return None
    elif func.__class__ is not ast.Call:  # (`ag.value_and_grad(f)(x)`)
        return None
    keywords = node.keywords
    if any(k.arg is None for k in keywords):
        return None
    func = _staged(func, facts)
    args = [_staged(a, facts) for a in node.args]
    staged_keywords = [_copy(k, value=_staged(k.value, facts)) for k in keywords]
    if func is None or None in args or any(k.value is None for k in staged_keywords):
        return None
    at = templates.first_line_span(node)
    wrapper = _new(ast.Call, at, func=_new(ast.Attribute, at, value=_new(ast.Name, at, id="ag__", ctx=_LOAD),
                                           attr="converted", ctx=_LOAD),
                   args=[func, _new(ast.Name, at, id="fscope", ctx=_LOAD)], keywords=[])
    return _copy(node, func=wrapper, args=args, keywords=staged_keywords)


_LOAD = ast.Load()  # (one serves every tree, as in ast.parse)
_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _new(cls, at, **fields):
    """A `cls` node of `fields` at `at` (lineno, col_offset, end_lineno,
    end_col_offset): set in its __dict__, where ast nodes keep them, without
    the constructor's checks of its arguments."""
    node = cls.__new__(cls)
    attrs = node.__dict__
    attrs.update(fields)
    attrs["lineno"], attrs["col_offset"], attrs["end_lineno"], attrs["end_col_offset"] = at
    return node


def _copy(node, **changed):
    """A copy of parsed `node` (its fields and positions) with `changed` fields."""
    cls = node.__class__
    copy = cls.__new__(cls)
    copy.__dict__.update(node.__dict__, **changed)
    return copy


def _position(node):
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def _module(node, staged, factory_params, entity_name):
    """The factory module of parsed def `node`, whose statements after the
    docstring are `staged` with their calls wrapped."""
    at, guard_at = _position(node), templates.first_line_span(node)
    body = node.body
    docstring = body[:1] if body and body[0].__class__ is ast.Expr else []
    # (a `pass` the guard's template adds takes the guard's position)
    plain = body[len(docstring):] or [_new(ast.Pass, guard_at)]
    guard = _new(ast.If, guard_at, test=_new(
        ast.Attribute, guard_at, value=_new(ast.Name, guard_at, id="ag__", ctx=_LOAD),
        attr="tracing", ctx=_LOAD), body=staged or [_new(ast.Pass, guard_at)], orelse=plain)
    entity = _new(ast.FunctionDef, at, name=entity_name, args=node.args, body=docstring + [guard],
                  decorator_list=[], returns=node.returns, type_comment=None, **_NO_TYPE_PARAMS)
    params = _new_unlocated(
        ast.arguments, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[], args=[_new(ast.arg, at, arg=name, annotation=None, type_comment=None)
                           for name in factory_params])
    factory = _new(ast.FunctionDef, at, name="ag__factory", args=params,
                   body=[entity, _new(ast.Return, at, value=_new(ast.Name, at, id=entity_name,
                                                                  ctx=_LOAD))],
                   decorator_list=[], returns=None, type_comment=None, **_NO_TYPE_PARAMS)
    return _new_unlocated(ast.Module, body=[factory], type_ignores=[])


def _new_unlocated(cls, **fields):
    node = cls.__new__(cls)
    node.__dict__.update(fields)
    return node


_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
