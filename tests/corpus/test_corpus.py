"""Runs every corpus case (tests/corpus/programs.py) converted and unconverted
and requires the two runs to be indistinguishable.

What is compared, for each case, mode and run:
  * the result: equal values of identical types, deeply (lists, tuples, dicts
    in key order, sets, user objects by type and `vars()`, numpy arrays by
    dtype, shape and elements, numpy scalars by dtype and value, floats with
    NaN and signed zeros, iterators such as `zip`/`enumerate` objects (at the
    top level or in lists/tuples) by type and the items they yield, taken
    right after the call, functions by qualified name).  A generator
    function's result is consumed with `list()` (an async generator's with
    `async for` under `asyncio.run`) and a coroutine function's is run with
    `asyncio.run`, inside the same capture, so what they print or
    raise is compared too;
  * the arguments after the call (mutations of list/dict/object arguments);
  * stdout and stderr (capsys), exactly;
  * exceptions: the identical type (never a wrapper), `str()`, `args` (deep),
    `vars()` (custom attributes), the standard attributes `name`, `obj`,
    `value`, `errno`, `filename`, `__notes__` where present, and the same for
    `__cause__`/`__context__` (type, message, args) and `__suppress_context__`;
  * the traceback's user frames, i.e. frames for which
    `autograph.errors.is_internal_file(co_filename)` is false, as
    (co_filename, f_lineno, co_name) tuples: the LAST user frame must be
    identical, and so must the whole sequence of user frames (both calls go
    through the same `_invoke` helper, so the harness frames agree too);
  * the kind of callable: generator/coroutine/async-generator function-ness;
  * that autograph logged no warning (a callee it failed to convert and
    called unconverted instead).

Constructs the converters reject on purpose (REJECTED) must instead raise
their catalog error, naming the user's file and a line of the function, at
conversion.

Every case runs twice per mode: the second time through a fresh conversion
that must hit the conversion cache (for `ag.to_graph`: the very same code
object as the first conversion) and give the same outcome again.

Modes: CONVERT_BY_MODE maps each mode to a function `entity -> callable`
giving the callable under test, SCOPE_BY_MODE to the context the call runs
in; MODES lists the modes that run.  By default: "python" (`ag.to_graph`
called normally: the plain path) and "converted" (the same function called
inside `registry.staging(...)`, so its converted body runs, on plain values).
The built-in graph engine via `ag.function` is wired as "graph", opt-in with
AUTOGRAPH_CORPUS_MODES=python,converted,graph.  To plug in a mode (a backend
would be another entry), add its converter (and scope) and its name to the
default MODES once cases that cannot run in it are in SKIP with a reason (say,
"generators cannot be traced") and mode-specific conversion checks are in
check_conversion.  Every (mode, case) pair becomes one test, with id
"<mode>-<case name>[<index>](<args>)".
"""

import asyncio
import contextlib
import copy
import functools
import inspect
import logging
import math
import os
import traceback
import types

import numpy as np
import pytest

import autograph as ag
from autograph import errors, transpiler
from autograph.runtime import registry
from . import programs

# --- modes --------------------------------------------------------------------


def _convert_python(entity):
    return ag.to_graph(entity)


def _convert_graph(entity):
    return ag.function(entity)


CONVERT_BY_MODE = {
    "python": _convert_python,
    # The same converted function, run while tracing is marked: its converted
    # body (not the original one) runs on the plain values, and must give
    # exactly what Python gives too.
    "converted": _convert_python,
    "graph": _convert_graph,
}
# What each mode runs inside (the converted body runs only while tracing).
SCOPE_BY_MODE = {
    "converted": lambda: registry.staging("corpus: run the converted body"),
}
# Modes run by default.  "graph" (the built-in engine, ag.function) is opt-in
# until its SKIP entries (cases whose meaning legitimately differs when traced:
# Python side effects at tracing only, staged numpy values, ...) are settled:
#   AUTOGRAPH_CORPUS_MODES=python,graph python -m pytest tests/corpus
MODES = [m.strip() for m in os.environ.get("AUTOGRAPH_CORPUS_MODES", "python,converted").split(",")
         if m.strip()]
assert set(MODES) <= set(CONVERT_BY_MODE), f"unknown corpus mode in {MODES}"

# (mode, case name or case id) -> reason.  A name skips all of its argument sets.
# Every entry must say why; an entry for a case that does not exist is an error.
SKIP = {}

# (mode, case name or case id) -> reason: known converter bugs, reported to the
# owner, expected to fail (strict: an XPASS fails, so fixed bugs get noticed).
# Temporary only: every entry is listed in the corpus report.
XFAIL = {
    # Known limitation of the converted body (it runs only while tracing; the
    # plain path is the original code and matches exactly): an operand of a
    # multi-line `and` runs in a generated thunk, and CPython records the
    # user frame at the line where the `ag__.and_(...)` call starts, followed
    # by the thunk's frame at the operand's line. Single-line expressions
    # match exactly (the thunk's frame is dropped, runtime/tracebacks.py).
    ("converted", "exception_in_multiline_condition[1]([4,8],0)"):
        "multi-line `and` operand raising: extra frame at the expression's first line",
}

# Constructs the converters reject on purpose (programs.REJECTED, the same in
# every mode since conversion is shared): conversion must raise the named
# catalog error, naming the offending line.
REJECTED = {(mode, name): entry for mode in MODES for name, entry in programs.REJECTED.items()}


def _lookup(table, mode, case):
    return table.get((mode, case.id)) or table.get((mode, case.name))


def _params():
    params = []
    for mode in MODES:
        for case in programs.CASES:
            marks = []
            skip_reason = _lookup(SKIP, mode, case)
            xfail_reason = _lookup(XFAIL, mode, case)
            if skip_reason:
                marks.append(pytest.mark.skip(reason=skip_reason))
            elif xfail_reason:
                marks.append(pytest.mark.xfail(strict=True, reason=xfail_reason))
            test_id = f"{mode}-{case.id}".replace(" ", "_")
            params.append(pytest.param(mode, case, marks=marks, id=test_id))
    return params


def test_skip_and_xfail_tables_are_well_formed():
    known = {c.id for c in programs.CASES} | {c.name for c in programs.CASES}
    for table in (SKIP, XFAIL, REJECTED):
        for (mode, key), reason in table.items():
            assert mode in CONVERT_BY_MODE, f"unknown mode {mode!r}"
            assert key in known, f"no corpus case {key!r}"
            if table is not REJECTED:
                assert isinstance(reason, str) and reason.strip(), f"{key}: give a reason"


def test_corpus_is_large_and_ids_are_unique():
    names = {c.name for c in programs.CASES}
    ids = [c.id for c in programs.CASES]
    assert len(names) >= 90
    assert len(ids) == len(set(ids))


# --- running one side --------------------------------------------------------


class Outcome:
    __slots__ = ("value", "error", "args", "kwargs", "stdout", "stderr")

    def __init__(self, value, error, args, kwargs):
        self.value, self.error, self.args, self.kwargs = value, error, args, kwargs
        self.stdout = self.stderr = None


class Consumed:
    """What an iterator result (zip, enumerate, map, ...) yielded, taken once so
    that comparing two outcomes (and comparing again) does not exhaust it."""

    __slots__ = ("kind", "items")

    def __init__(self, iterator):
        self.kind = type(iterator)
        self.items = [_consume_iterators(item) for item in iterator]

    def __repr__(self):
        return f"<{self.kind.__name__} yielding {self.items!r}>"


def _consume_iterators(value):
    if type(value) in (list, tuple):
        return type(value)(_consume_iterators(v) for v in value)
    if hasattr(type(value), "__next__"):
        return Consumed(value)
    return value


async def _collect_async(agen):
    return [item async for item in agen]


def _invoke(fn, call):
    """Calls fn on fresh copies of the arguments, drives generators/coroutines."""
    args = copy.deepcopy(call.args)
    kwargs = copy.deepcopy(call.kwargs)
    try:
        value = fn(*args, **kwargs)
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        elif inspect.isgenerator(value):
            value = ("<generator items>", list(value))
        elif inspect.isasyncgen(value):
            value = ("<async generator items>", asyncio.run(_collect_async(value)))
        value = _consume_iterators(value)
    except Exception as e:  # noqa: BLE001 - any exception is an outcome to compare
        return Outcome(None, e, args, kwargs)
    return Outcome(value, None, args, kwargs)


def _run(fn, call, capsys, mode=None):
    capsys.readouterr()
    with SCOPE_BY_MODE.get(mode, contextlib.nullcontext)():
        outcome = _invoke(fn, call)
    captured = capsys.readouterr()
    outcome.stdout, outcome.stderr = captured.out, captured.err
    return outcome


# --- comparing ----------------------------------------------------------------------

_EXCEPTION_ATTRIBUTES = ("name", "obj", "value", "errno", "strerror", "filename", "__notes__")


def _fail(path, message):
    raise AssertionError(f"at {path}: {message}")


def assert_same(expected, actual, path="result"):
    """Deep equality with identical types at every level (see module doc)."""
    if type(expected) is not type(actual):
        _fail(path, f"type {type(actual).__name__} (value {actual!r}), "
                    f"expected {type(expected).__name__} (value {expected!r})")
    if isinstance(expected, np.ndarray):
        if expected.dtype != actual.dtype or expected.shape != actual.shape:
            _fail(path, f"array {actual.dtype}{actual.shape}, expected {expected.dtype}{expected.shape}")
        if not np.array_equal(expected, actual, equal_nan=expected.dtype.kind in "fc"):
            _fail(path, f"array {actual!r}, expected {expected!r}")
    elif isinstance(expected, np.generic):
        if expected.dtype != actual.dtype:
            _fail(path, f"dtype {actual.dtype}, expected {expected.dtype}")
        if not (expected == actual or (expected != expected and actual != actual)):
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, float):
        same = (expected == actual and math.copysign(1, expected) == math.copysign(1, actual)) \
            or (math.isnan(expected) and math.isnan(actual))
        if not same:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            _fail(path, f"length {len(actual)} ({actual!r}), expected {len(expected)} ({expected!r})")
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]")
    elif isinstance(expected, dict):
        if list(expected) != list(actual):
            _fail(path, f"keys {list(actual)!r}, expected {list(expected)!r}")
        for key in expected:
            assert_same(expected[key], actual[key], f"{path}[{key!r}]")
    elif isinstance(expected, (set, frozenset)):
        if expected != actual:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, BaseException):
        assert_same_exception(expected, actual, path)
    elif isinstance(expected, (types.FunctionType, types.MethodType)):
        if expected.__qualname__ != actual.__qualname__:
            _fail(path, f"function {actual.__qualname__}, expected {expected.__qualname__}")
    elif isinstance(expected, (int, str, bytes, complex, range, type, type(None))):
        if expected != actual:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, Consumed):  # zip/enumerate/map/... objects
        assert_same(expected.kind, actual.kind, f"type({path})")
        assert_same(expected.items, actual.items, f"list({path})")
    elif hasattr(expected, "__dict__"):
        assert_same(vars(expected), vars(actual), f"vars({path})")
    elif expected != actual:
        _fail(path, f"{actual!r}, expected {expected!r}")


def assert_same_exception(expected, actual, path="exception", depth=0):
    if type(expected) is not type(actual):
        _fail(path, f"raised {type(actual).__qualname__}: {actual}, "
                    f"expected {type(expected).__qualname__}: {expected}")
    if str(expected) != str(actual):
        _fail(path, f"message {str(actual)!r}, expected {str(expected)!r}")
    assert_same(expected.args, actual.args, f"{path}.args")
    assert_same(vars(expected), vars(actual), f"vars({path})")
    for attribute in _EXCEPTION_ATTRIBUTES:
        if hasattr(expected, attribute) or hasattr(actual, attribute):
            assert_same(getattr(expected, attribute, "<missing>"),
                        getattr(actual, attribute, "<missing>"), f"{path}.{attribute}")
    if expected.__suppress_context__ != actual.__suppress_context__:
        _fail(path, f"__suppress_context__ {actual.__suppress_context__}")
    if depth < 3:
        for link in ("__cause__", "__context__"):
            e, a = getattr(expected, link), getattr(actual, link)
            if e is None or a is None:
                if e is not a:
                    _fail(f"{path}.{link}", f"{a!r}, expected {e!r}")
            else:
                assert_same_exception(e, a, f"{path}.{link}", depth + 1)


def user_frames(exc):
    """(file, line, function) of every traceback frame outside the autograph package."""
    return [(frame.f_code.co_filename, lineno, frame.f_code.co_name)
            for frame, lineno in traceback.walk_tb(exc.__traceback__)
            if not errors.is_internal_file(frame.f_code.co_filename)]


def assert_same_traceback(expected, actual):
    expected_frames, actual_frames = user_frames(expected), user_frames(actual)
    assert actual_frames, "the converted run's traceback has no user frame"
    assert actual_frames[-1] == expected_frames[-1], (
        f"last user frame {actual_frames[-1]}, expected {expected_frames[-1]}")
    assert actual_frames == expected_frames, (
        "user frames differ:\n  converted: " + "\n             ".join(map(str, actual_frames))
        + "\n  original:  " + "\n             ".join(map(str, expected_frames)))


def assert_same_outcome(expected, actual):
    if expected.error is not None or actual.error is not None:
        if actual.error is None:
            raise AssertionError(f"expected {type(expected.error).__name__}: {expected.error}, "
                                 f"but the converted run returned {actual.value!r}")
        if expected.error is None:
            raise AssertionError(
                f"the converted run raised {type(actual.error).__name__}: {actual.error}, "
                f"expected a return of {expected.value!r}\n"
                + "".join(traceback.format_exception(actual.error, limit=-12)))
        assert_same_exception(expected.error, actual.error)
        assert_same_traceback(expected.error, actual.error)
    else:
        assert_same(expected.value, actual.value)
    assert_same(expected.args, actual.args, "arguments after the call")
    assert_same(expected.kwargs, actual.kwargs, "keyword arguments after the call")
    assert actual.stdout == expected.stdout, "stdout differs"
    assert actual.stderr == expected.stderr, "stderr differs"


# --- checks of the conversion itself ---------------------------------------------------


def _function_of(entity):
    """The plain function inside a method/partial/callable object."""
    while True:
        if isinstance(entity, types.MethodType):
            entity = entity.__func__
        elif isinstance(entity, functools.partial):
            entity = entity.func
        elif isinstance(entity, types.FunctionType):
            return entity
        else:
            entity = type(entity).__call__


def _kind(fn):
    return (inspect.isgeneratorfunction(fn), inspect.iscoroutinefunction(fn),
            inspect.isasyncgenfunction(fn))


def check_conversion(mode, entity, converted, previous):
    if CONVERT_BY_MODE[mode] is not _convert_python:
        return
    original_fn, converted_fn = _function_of(entity), _function_of(converted)
    assert transpiler.is_converted_code(converted_fn.__code__), "to_graph returned unconverted code"
    assert _kind(converted_fn) == _kind(original_fn), "generator/coroutine kind changed"
    if previous is not None:
        assert _function_of(previous).__code__ is converted_fn.__code__, \
            "second to_graph did not reuse the cached conversion"


def assert_rejected(mode, case, convert):
    error_name, text, marker = REJECTED[(mode, case.name)]
    error_type = getattr(errors, error_name)
    fn = _function_of(case.entity)
    lines, first = inspect.getsourcelines(fn)
    offending = [first + i for i, line in enumerate(lines) if line.strip() == marker]
    assert len(offending) == 1, f"exactly one line of {fn.__name__} must read {marker!r}"
    with pytest.raises(error_type) as info:
        convert(case.entity)
    assert isinstance(info.value, errors.AutoGraphError)
    expected = text.format(where=errors.where(fn.__code__.co_filename, offending[0]))
    assert expected in str(info.value)


# --- the test -------------------------------------------------------------------------


def assert_no_autograph_warnings(caplog):
    """A callee that cannot be converted is logged and called unconverted; in
    the corpus every callee must convert, so such a fallback is a failure."""
    warned = [r.getMessage() for r in caplog.records
              if (r.name == "autograph" or r.name.startswith("autograph."))
              and r.levelno >= logging.WARNING]
    caplog.clear()
    assert not warned, "autograph logged: " + "\n".join(warned)


@pytest.mark.parametrize("mode, case", _params())
def test_converted_matches_original(mode, case, capsys, caplog):
    caplog.set_level(logging.WARNING, logger="autograph")
    convert = CONVERT_BY_MODE[mode]
    expected = _run(case.entity, case.call, capsys)
    if (mode, case.name) in REJECTED:
        assert_rejected(mode, case, convert)
        return

    first = convert(case.entity)
    check_conversion(mode, case.entity, first, None)
    assert_same_outcome(expected, _run(first, case.call, capsys, mode))
    assert_no_autograph_warnings(caplog)

    second = convert(case.entity)  # must come from the conversion cache
    check_conversion(mode, case.entity, second, first)
    assert_same_outcome(expected, _run(second, case.call, capsys, mode))
    assert_no_autograph_warnings(caplog)
