"""Finds the source of a function and parses it into a gast tree.

Works for every function whose source `linecache` can give: module functions,
nested functions and closures, methods, lambdas (several on one line are told
apart by the column of their code), and functions defined by `exec` of a
string or typed into a REPL when `linecache` holds their text.  Locations in
the returned tree are the user's own (file line numbers and columns).
"""

import ast
import inspect
import linecache
import types

import gast

from autograph import context, errors
from autograph import trees

_PARSED_FILES = {}  # filename -> (lines tuple, gast module): for lambdas only


def lines_of(fn):
    """The lines of `fn`'s file, as linecache has them now: what conversion reads."""
    code = fn.__code__
    linecache.checkcache(code.co_filename)  # the file may have been edited since
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines or code.co_firstlineno > len(lines):
        raise errors.SourceNotFoundError(errors.no_source_message(fn))
    return lines


def _indented_block(lines, first):
    """The lines of the definition starting at line `first` by indentation
    alone: up to the next line that holds code at the definition's
    indentation or less (blank and comment lines do not count, trailing ones
    are left out).  A line inside a bracket or a string can be less indented;
    cut there, the block does not parse, and the caller falls back on the
    tokenizer (inspect.getblock)."""
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    end = first  # one past the last line of code in the block, 0-based
    # The body starts with the first more indented line after the `def` line
    # (a decorator's arguments may continue on more indented lines above it).
    seen_def = head.lstrip().startswith(("def ", "async def "))
    body_started = False
    for k in range(first, len(lines)):
        line = lines[k]
        stripped = line.lstrip()
        if not stripped or stripped[0] == "#":
            continue
        if len(line) - len(stripped) <= indent:
            if body_started:
                break
            seen_def = seen_def or stripped.startswith(("def ", "async def "))
        elif seen_def:
            body_started = True
        end = k + 1
    return lines[first - 1:end]


def _parse_block(lines, first):
    """Parses the block starting at line `first` (1-based), keeping locations."""
    found = _parse_lines(_indented_block(lines, first), first)
    if found is not None:
        return found
    try:
        block = inspect.getblock(lines[first - 1:])
    except (SyntaxError, IndentationError, TypeError):  # tokenizer quirks
        return None
    return _parse_lines(block, first)


def _placed(text, first):
    """(the text to parse, indented, offset): `text`, the block starting at
    line `first`, placed so that it parses at its own positions.  Blank lines
    in front put it on its own line numbers (no pass over the tree to move
    them afterwards; `offset` < 0: the lines still to move).  An indented
    block (a method, a nested def) parses under `if 1:` with its own columns
    intact, so carets in tracebacks stay right."""
    indented = text[:1] in (" ", "\t")
    offset = first - 1 - (1 if indented else 0)
    padding = "\n" * offset if offset > 0 else ""
    return padding + ("if 1:\n" + text if indented else text), indented, offset


def _statements(tree, indented):
    """The statements `_placed`'s text parsed to, under the `if 1:`."""
    return tree.body[0].body if indented and tree.body else tree.body


def _parse_lines(block, first):
    text = "".join(block)
    placed, indented, offset = _placed(text, first)
    try:
        tree = trees.parse(placed)
    except SyntaxError:
        return None
    statements = _statements(tree, indented)
    if len(statements) != 1:
        # none: the file changed since the code was compiled; more than one:
        # the block ran on past the definition (a one-line `def f(): ...`)
        return None
    node = statements[0]
    if offset < 0:
        gast.increment_lineno(node, offset)
    return node, text


def parsed_def(fn, lines=None):
    """The stdlib FunctionDef of plain function `fn` (user positions), parsed
    from its indented block alone; None where that does not parse to it
    (get_entity's fallbacks then apply).  `lines`: lines_of(fn), when read
    already (the conversion cache hashed them: conversion reads those)."""
    if lines is None:
        try:
            lines = lines_of(fn)
        except errors.SourceNotFoundError:
            return None
    first = fn.__code__.co_firstlineno
    placed, indented, offset = _placed("".join(_indented_block(lines, first)), first)
    if offset < 0:
        return None
    try:
        tree = ast.parse(placed)
    except SyntaxError:
        return None
    statements = _statements(tree, indented)
    if len(statements) != 1 or statements[0].__class__ is not ast.FunctionDef \
            or statements[0].name != fn.__code__.co_name:
        return None
    return statements[0]


def _parsed_file(filename, lines):
    cached = _PARSED_FILES.get(filename)
    key = tuple(lines)
    if cached is None or cached[0] != key:
        cached = _PARSED_FILES[filename] = (key, trees.parse("".join(lines)))
    return cached[1]


def _first_instruction_position(code):
    """(line, col) of the first instruction that has a source position."""
    for line, _, col, _ in code.co_positions():
        if line is not None and col is not None and line >= code.co_firstlineno and (line, col) != (code.co_firstlineno, 0):
            return line, col
    return code.co_firstlineno, 0


def _span(node):
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _find_lambda(fn, lines):
    code = fn.__code__
    tree = _parsed_file(code.co_filename, lines)
    candidates = [n for n in gast.walk(tree)
                  if isinstance(n, gast.Lambda) and n.lineno == code.co_firstlineno]
    if len(candidates) > 1:
        position = _first_instruction_position(code)
        inside = [n for n in candidates
                  if _span(n.body)[0] <= position <= _span(n.body)[1]]
        # The innermost lambda whose body holds the first instruction; with
        # no column positions (`-X no_debug_ranges`), the one that compiles
        # to the same constants and names (none, or two written differently:
        # refused, not a guess).
        candidates = sorted(inside, key=lambda n: _span(n)[0], reverse=True)[:1] or \
            [n for n in candidates if _lambda_signature(n, code) == _code_signature(code)]
        if len({gast.dump(n) for n in candidates}) != 1:
            raise errors.SourceNotFoundError(errors.ambiguous_lambda_message(fn))
    if not candidates:
        raise errors.SourceNotFoundError(errors.no_source_message(fn))
    node = trees.clone(candidates[0])  # passes mutate it; the parse is cached
    text = ast.get_source_segment("".join(lines), trees.gast_to_ast(node)) or ""
    return node, text


def _code_signature(code):
    """A lambda's constants (by type and value) and every name it uses."""
    return (tuple((type(c), c) for c in code.co_consts if not isinstance(c, types.CodeType)),
            frozenset(code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars))


def _lambda_signature(node, code):
    """_code_signature of gast Lambda `node` compiled on its own (its free
    variables become globals: the names are the same), or None."""
    try:
        expression = ast.Expression(body=trees.gast_to_ast(trees.clone(node)))
        compiled = compile(ast.fix_missing_locations(expression), code.co_filename, "eval")
    except Exception:  # noqa: BLE001 (a lambda that compiles only in place: not this one)
        return None
    inner = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)), None)
    return None if inner is None else _code_signature(inner)


def _find_def(fn, lines):
    code = fn.__code__
    found = _parse_block(lines, code.co_firstlineno)
    if found is not None and isinstance(found[0], (gast.FunctionDef, gast.AsyncFunctionDef)) \
            and found[0].name == code.co_name:
        return found
    # Fall back on the whole file: the definition whose first line matches.
    tree = _parsed_file(code.co_filename, lines)
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if first == code.co_firstlineno:
                text = ast.get_source_segment("".join(lines), trees.gast_to_ast(node)) or ""
                return trees.clone(node), text
    raise errors.SourceNotFoundError(errors.source_changed_message(fn))


namespace_of = context.namespace_of  # (its home: context, beside the Facts that read it)


def get_entity(fn, parsed=None, lines=None, namespace=None):
    """Returns (gast FunctionDef/AsyncFunctionDef/Lambda node, EntityInfo).
    `parsed`: `parsed_def(fn)` when the caller has it already; its parse
    (the one `_find_def` would make) is translated, not made again.
    `lines`: lines_of(fn), when read already; `namespace`: namespace_of(fn)."""
    if not isinstance(getattr(fn, "__code__", None), types.CodeType):
        raise errors.SourceNotFoundError(errors.no_source_message(fn))
    if lines is None:
        lines = lines_of(fn)
    if parsed is not None:
        node = trees.parsed_to_gast(parsed)
        text = "".join(_indented_block(lines, fn.__code__.co_firstlineno))
    else:
        finder = _find_lambda if fn.__code__.co_name == "<lambda>" else _find_def
        node, text = finder(fn, lines)
    info = context.EntityInfo(
        name=fn.__name__, filename=fn.__code__.co_filename,
        lineno=fn.__code__.co_firstlineno, source=text,
        namespace=namespace_of(fn) if namespace is None else namespace,
        closure_names=frozenset(fn.__code__.co_freevars))
    return node, info
