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
import sys
import threading

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


_suppressed = threading.local()  # .types: the exception types of the suppress blocks around


class _Suppressing:
    """A `contextlib.suppress` as converted code enters it: while its body is
    traced, a staged `raise` or `assert` of an exception it suppresses is
    refused (its exit runs while tracing; the graph raises later)."""

    def __init__(self, manager):
        self.manager = manager

    def __enter__(self):
        entered = self.manager.__enter__()
        types = getattr(self.manager, "_exceptions", (BaseException,))
        _suppressed.types = getattr(_suppressed, "types", ()) + (types,)
        return entered

    def __exit__(self, *exc_info):
        _suppressed.types = _suppressed.types[:-1]
        return self.manager.__exit__(*exc_info)


_WITH_ITEMS = {contextlib.suppress: _Suppressing}  # (type -> how converted code enters it)


def with_item(manager):
    """Python meaning: `manager`; generated code reads `with
    ag__.with_item(cm) as v:`.  A manager whose exit may discard an exception
    the graph raises later (contextlib.suppress) is entered through a wrapper
    that says so to `raise_stmt`/`assert_stmt`."""
    wrapper = _WITH_ITEMS.get(type(manager))
    return manager if wrapper is None else wrapper(manager)


def _refuse_if_suppressed(statement, exception):
    for types in getattr(_suppressed, "types", ()):
        if isinstance(exception, types):
            raise errors.NotStageableError(errors.staged_check_in_suppress_message(
                statement, type(exception).__name__, staging.user_location()))
