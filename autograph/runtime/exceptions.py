"""`assert_stmt`: the staged half of a converted `assert`.

Converted code keeps Python's own statement around it:

    assert x > 0, 'x must be positive'
becomes
    assert ag__.assert_stmt(x > 0, lambda: 'x must be positive'), 'x must be positive'

so on Python values it is exactly the original assert (same AssertionError,
raised at the user's line; skipped with its test under `python -O`), and a
staged test adds a run-time assertion to the graph instead.
"""

import contextlib
import dis
import sys
import threading
import types
import weakref

from autograph import errors
from autograph.runtime import staging, structure
from autograph.runtime.registry import backend_of, is_staged


def assert_stmt(test, msg_fn=None):
    """Python meaning, as generated code uses it,
    `assert ag__.assert_stmt(test, msg_fn), msg` is `assert test, msg_fn()`:
    for a Python value it returns `test` unchanged and the enclosing native
    assert checks it.  A staged `test` becomes `backend.assert_(test, msg_fn())`
    (the message is computed once, while tracing) and the result is True; so
    does a failing Python test inside a staged branch being traced, staged and
    ending the branch as `raise_stmt` does a `raise` (`else: assert False, "..."`).
    """
    backend = backend_of(test)
    if backend is None:
        region = staging.innermost_region()
        if region is None or region[1] is None:
            return test
        if test:  # (its truth asked once: the native assert sees a bool)
            return True
        # A failing Python test in a staged branch being traced (`else: assert
        # False, "..."`): Python fails only when the program takes the branch,
        # so it is staged as raise_stmt stages a `raise` there.
        backend, taken = region
        _refuse_if_discardable("assert")
        _refuse_if_suppressed("assert", AssertionError())
        message = None if msg_fn is None else msg_fn()
        backend.raise_(backend.logical_not(taken()),
                       AssertionError if message is None else AssertionError(message))
        raise staging.BranchRaised()  # (the branch ends there, as raise_stmt's)
    _refuse_if_discardable("assert")
    _refuse_if_suppressed("assert", AssertionError())
    backend.assert_(test, None if msg_fn is None else msg_fn())
    return True


def raise_stmt(exception, caught=None):
    """Python meaning: True; generated code reads

        raised = <the user's exception>
        if ag__.raise_stmt(raised, caught):
            raise raised

    (`caught`: None, or for a `raise` in the body of a `try` with handlers,
    a function giving the types they name: an exception one of them catches
    is raised as Python raises it, and Python's handler runs.)

    so on Python paths it is the user's `raise`.  Inside a staged branch
    being traced it stages a run-time check that raises the user's exception
    (type and arguments; `backend.raise_`) when the graph takes the branch,
    the way a staged `assert` is staged, and ends the branch as Python would
    (staging.BranchRaised, which the branch's if_stmt catches)."""
    region = staging.innermost_region()
    if region is None or region[1] is None:
        return True  # Python, or a loop body: Python reached the raise
    if caught is not None and isinstance(exception, caught()):
        return True  # a handler of its `try`, in this branch, catches it
    backend, taken = region
    _refuse_if_discardable("raise")
    _refuse_if_suppressed("raise", exception)
    backend.raise_(backend.logical_not(taken()), exception)
    raise staging.BranchRaised()


def python_try(values, names):
    """Python meaning: nothing.  Runs before a `try` with `except` clauses
    whose body reads `names`: a staged value there is refused (the handlers
    cannot catch what the graph raises when it runs later)."""
    for name, value in zip(names, values):
        leaves = structure.flatten((value,), (name,))
        if any(is_staged(leaf) for leaf in leaves.values):
            raise errors.NotStageableError(errors.staged_try_message(
                name, staging.user_location()))


def reraise_after_finally(jumped, statement):
    """Python meaning: `not jumped`.  Generated code for a `finally` body
    holding a `return` (`break`, `continue`: `statement`), on the path
    where the `try` raised (while tracing):

        if ag__.reraise_after_finally(jumped, 'return'):
            raise

    Python discards the exception when that jump ran.  autograph's own
    errors (a refusal while tracing) always go on.  A staged `jumped`
    cannot decide it: NotStageableError."""
    if isinstance(sys.exc_info()[1], errors.AutoGraphError):
        return True
    if is_staged(jumped):
        raise errors.NotStageableError(errors.staged_finally_jump_message(
            statement, staging.user_location()))
    return not jumped


_discarding = threading.local()  # .depth: `try` bodies whose `finally` jumps out


@contextlib.contextmanager
def finally_jumps():
    """Python meaning: nothing.  Wraps the body of a `try` whose `finally`
    body holds a `return`, `break` or `continue`: Python discards an
    exception the body raises when that jump runs, which a check the graph
    runs later cannot follow, so `raise_stmt` and `assert_stmt` refuse to
    stage one there."""
    _discarding.depth = getattr(_discarding, "depth", 0) + 1
    try:
        yield
    finally:
        _discarding.depth -= 1


def _refuse_if_discardable(statement):
    if getattr(_discarding, "depth", 0):
        raise errors.NotStageableError(errors.staged_check_in_discarding_try_message(
            statement, staging.user_location()))


# .types: the managers of the `with` blocks around whose exit
# may discard them (a contextlib.suppress, a user's manager that may suppress)
_suppressed = threading.local()


class _Suppressing:
    """A manager whose exit may discard an exception, as converted code
    enters it: while its body is traced, a staged `raise` or `assert` of an
    exception it may suppress (`_suppressor`) is refused (its exit runs
    while tracing; the graph raises later)."""

    def __init__(self, manager):
        self.manager = manager

    def __enter__(self):
        entered = type(self.manager).__enter__(self.manager)
        _suppressed.types = getattr(_suppressed, "types", ()) + (self.manager,)
        return entered

    def __exit__(self, *exc_info):
        _suppressed.types = _suppressed.types[:-1]
        suppressed = type(self.manager).__exit__(self.manager, *exc_info)
        # (its exit runs, as Python's; but a refusal, or the end of a staged
        # branch, is autograph's: suppressing it would trace on as if neither)
        return suppressed and not isinstance(exc_info[1], _NOT_SUPPRESSED)


_NOT_SUPPRESSED = (errors.AutoGraphError, staging.BranchRaised)


def with_item(manager):
    """Python meaning: `manager`; generated code reads `with
    ag__.with_item(cm) as v:`.  A manager whose exit may discard an exception
    the graph raises later (contextlib.suppress, a user's `__exit__` that may
    return True, a @contextmanager catching what its `yield` raises, an
    ExitStack) is entered through a wrapper that says so to
    `raise_stmt`/`assert_stmt`."""
    return _Suppressing(manager) if _may_suppress(manager) else manager


def _may_suppress(manager):
    """May `manager`'s exit return a true value (suppress an exception)?  An
    ExitStack is asked at the staged check (`_suppressor`: what it holds
    then)."""
    kind = type(manager)
    if kind is contextlib._GeneratorContextManager:
        return _swallows(manager.gen.gi_code)
    if kind is contextlib.ExitStack:
        return True
    found = _suppressing_classes.get(kind)
    if found is None:  # (no __enter__: left to Python's `with` to refuse)
        found = _suppressing_classes[kind] = hasattr(kind, "__enter__") and \
            _may_return_true(getattr(kind, "__exit__", None))
    return found


_suppressing_classes = weakref.WeakKeyDictionary()  # class -> _may_suppress of its instances


def _may_return_true(function):
    """May `function` (an `__exit__`) return a true value?  A Python function
    may unless every `return` in it returns None or False (falling off its
    end too); one implemented in C (a lock's, a file's) does not: those never
    suppress."""
    if not isinstance(function, types.FunctionType):
        return False
    instructions = list(dis.get_instructions(function.__code__))
    for before, instruction in zip([None, *instructions], instructions):
        if instruction.opname == "RETURN_CONST":  # (3.12)
            returned = (instruction.argval,)
        elif instruction.opname == "RETURN_VALUE":
            returned = (before.argval,) if before is not None and before.opname == "LOAD_CONST" \
                else None
        else:
            continue
        if returned is None or returned[0] not in (None, False):
            return True
    return False


def _swallows(code):
    """May a handler of a @contextmanager's generator `code` end without
    re-raising (`except ...:`, a `with`, `finally: return`), so the manager
    suppresses what its `yield` raised?  Each POP_EXCEPT not followed by
    RERAISE ends one; only those after the first `yield` count (a handler
    of a `try` or `with` around it comes after it, one of a `try` before it,
    `try: setup() except ...:`, before)."""
    found = _swallowing.get(code)
    if found is None:
        instructions = [i.opname for i in dis.get_instructions(code)]
        first_yield = instructions.index("YIELD_VALUE") if "YIELD_VALUE" in instructions \
            else 0
        found = _swallowing[code] = any(
            name == "POP_EXCEPT" and instructions[i + 1:i + 2] != ["RERAISE"]
            for i, name in enumerate(instructions) if i > first_yield)
    return found


_swallowing = weakref.WeakKeyDictionary()  # code -> _swallows(code)


def _suppressor(manager, exception):
    """What may make `manager` suppress `exception`, as it is now: itself,
    or of an ExitStack the manager (from `enter_context`) or `push`ed exit
    it holds that may (a `callback` never does); None when nothing may."""
    if type(manager) is contextlib.suppress:
        return manager if isinstance(exception, manager._exceptions) else None
    if type(manager) is contextlib._GeneratorContextManager:
        return manager if _generator_may_catch(manager.gen, exception) else None
    if type(manager) is not contextlib.ExitStack:
        return manager
    for _, exit_ in manager._exit_callbacks:
        if isinstance(exit_, types.MethodType):  # (enter_context's, push of a manager)
            found = _suppressor(exit_.__self__, exception) \
                if _may_suppress(exit_.__self__) else None
        elif _may_return_true(exit_) or not isinstance(exit_, types.FunctionType):
            found = exit_
        else:
            continue
        if found is not None:
            return found
    return None


def _generator_may_catch(generator, exception):
    """May a handler of the @contextmanager's suspended `generator` catch
    `exception`, thrown in at its `yield`?  Followed through its code: the
    handler around the `yield` (the exception table's), each `except T:`
    clause whose T (a name, an attribute of a module or class, a tuple of
    them, as the generator's frame reads them now) does not match passing it
    on to the next clause or, past the last, to the handler around that;
    out of the generator, it is not caught.  Anything else -- a bare
    `except:`, a `with`, a `finally` (it may `return`), an exception type
    this cannot read -- may catch it."""
    frame, code = generator.gi_frame, generator.gi_code
    parse = getattr(dis, "_parse_exception_table", None)
    if frame is None or parse is None:
        return True
    instructions = list(dis.get_instructions(code))
    at = {instruction.offset: k for k, instruction in enumerate(instructions)}
    table = parse(code)

    def handler_of(offset):
        return next((entry.target for entry in table if entry.start <= offset < entry.end), None)

    pending = [handler_of(i.offset) for i in instructions if i.opname == "YIELD_VALUE"]
    for _ in range(64):  # (each step leaves a handler for an outer one: a bound for safety)
        if not pending:
            return False
        target = pending.pop()
        if target is None:
            continue  # (out of the generator: not caught)
        k = at[target]
        names = [i.opname for i in instructions[k:k + 3]]
        if names == ["COPY", "POP_EXCEPT", "RERAISE"]:  # (a handler's cleanup: passed on)
            pending.append(handler_of(instructions[k + 2].offset))
            continue
        if names[:1] != ["PUSH_EXC_INFO"]:
            return True
        k += 1
        while True:
            types_, k = _exception_types(instructions, k, frame)
            if instructions[k].opname == "RERAISE" and types_ is _NO_TYPES:
                pending.append(handler_of(instructions[k].offset))  # (no clause matched)
                break
            if instructions[k].opname != "CHECK_EXC_MATCH" or types_ is None or \
                    not _exception_classes(types_) or isinstance(exception, types_):
                return True
            jump = instructions[k + 1]
            if "JUMP" not in jump.opname or jump.argval not in at:
                return True
            k = at[jump.argval]  # (the next clause)
    return True


_NO_TYPES = object()  # (_exception_types: no instruction read)


def _exception_types(instructions, k, frame):
    """(what the loads from instruction `k` on make -- an `except` clause's
    exception types, read from `frame` -- or None where one cannot be read
    without running code; the index of the first other instruction)."""
    stack = []
    for k in range(k, len(instructions)):
        instruction = instructions[k]
        name, value = instruction.opname, instruction.argval
        if name == "PUSH_NULL":
            continue
        if name == "LOAD_GLOBAL":
            scope = frame.f_globals if value in frame.f_globals else \
                frame.f_builtins
            stack.append(scope.get(value))
        elif name in ("LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME"):
            stack.append(frame.f_locals.get(value, frame.f_globals.get(value)))
        elif name == "LOAD_ATTR" and stack and isinstance(stack[-1], (types.ModuleType, type)):
            # (read from the dicts, no descriptor or __getattr__ runs)
            owner = stack.pop()
            stack.append(next((vars(c)[value] for c in (
                owner.__mro__ if isinstance(owner, type) else (owner,)) if value in vars(c)),
                None))
        elif name == "BUILD_TUPLE" and len(stack) >= value:
            items = tuple(stack[len(stack) - value:])
            del stack[len(stack) - value:]
            stack.append(items)
        else:
            break
    if not stack:
        return _NO_TYPES, k
    return (stack[0] if len(stack) == 1 else None), k


def _exception_classes(value):
    """Is `value` an exception class or a (nested) tuple of them?"""
    if isinstance(value, tuple):
        return all(_exception_classes(item) for item in value)
    return isinstance(value, type) and issubclass(value, BaseException)


def _refuse_if_suppressed(statement, exception):
    for manager in getattr(_suppressed, "types", ()):
        suppressor = _suppressor(manager, exception)
        if suppressor is None:
            continue
        if type(suppressor) is contextlib.suppress:  # (also one an ExitStack entered)
            raise errors.NotStageableError(errors.staged_check_in_suppress_message(
                statement, type(exception).__name__, staging.user_location()))
        name, where, generator = _deciding(suppressor)
        if suppressor is not manager:
            name = f"{type(manager).__qualname__}(...)` holding `{name}"
        raise errors.NotStageableError(errors.staged_check_in_suppressing_with_message(
            statement, type(exception).__name__, name, where, generator,
            staging.user_location()))


def _deciding(suppressor):
    """(how to name `suppressor` (a manager or an exit an ExitStack holds),
    where it decides to suppress, whether that is a @contextmanager's
    generator)."""
    if type(suppressor) is contextlib._GeneratorContextManager:
        code = suppressor.gen.gi_code
        return (f"{suppressor.gen.__qualname__}(...)",
                errors.where(code.co_filename, code.co_firstlineno), True)
    exit_ = suppressor if callable(suppressor) and not hasattr(type(suppressor), "__exit__") \
        else type(suppressor).__exit__
    code = getattr(exit_, "__code__", None)
    name = getattr(suppressor, "__qualname__", None) or f"{type(suppressor).__qualname__}(...)"
    return (name, "?" if code is None else errors.where(code.co_filename, code.co_firstlineno),
            False)
