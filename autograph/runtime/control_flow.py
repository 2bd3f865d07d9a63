"""Control-flow operators: `if_stmt`, `while_stmt`, `for_stmt`.

For Python values each runs exactly the statement it replaces.  For a staged
test/iterable it checks the branch outputs / loop state (the checks every
backend shares: same structure, nothing undefined) and calls the owning
backend's `cond` / `while_loop` / `for_range` / `for_each`.  Dtype and shape
checks are the backend's.
"""

import functools

from autograph import errors
from autograph.runtime.registry import backend_of, is_staged
from autograph.runtime.special_values import Undefined, UndefinedReturnValue

_range_types = {}  # type of a staged range object -> fn(obj) -> (start, stop, step)


def register_range_type(cls, parts=lambda r: (r.start, r.stop, r.step)):
    """Makes `for_stmt` stage loops over `cls` objects with `backend.for_range`."""
    _range_types[cls] = parts


def python_only(value, construct):
    """Python meaning: `value`.  The test or iterable of a statement that can
    only run as Python; a staged value raises NotStageableError."""
    if is_staged(value):
        raise errors.NotStageableError(errors.not_stageable_message(construct, _user_location()))
    return value


def if_stmt(cond, if_true, if_false, state, names):
    """Python meaning: `if_true(*state) if cond else if_false(*state)`.

    Branches return a tuple of outputs; `names` are the outputs' variable names.
    `if_false` None: an `if` without `else` whose outputs are its state.
    """
    if if_false is None:
        if_false = _unchanged
    backend = backend_of(cond)
    if backend is None:
        return if_true(*state) if cond else if_false(*state)
    location = _user_location()
    outputs = {}

    def checked(branch, side):
        def run(*args):
            result = branch(*args)
            outputs[side] = result
            if len(outputs) == 2:
                _check_branches(outputs[True], outputs[False], names, location)
            return result
        return run

    return backend.cond(cond, checked(if_true, True), checked(if_false, False), state, names)


def while_stmt(loop_test, loop_body, state, names, opts=None):
    """Python meaning: `while loop_test(*state): state = loop_body(*state)`;
    returns the final state.  A test that becomes staged (e.g. a flag set by a
    staged `break`) hands the remaining iterations to the backend."""
    while True:
        test = loop_test(*state)
        backend = backend_of(test)
        if backend is not None:
            location = _user_location()
            _check_defined(state, names, location, "while")
            body = _checked_body(loop_body, state, names, location, "while", with_item=False)
            return backend.while_loop(loop_test, body, state, names, opts)
        if not test:
            return state
        state = loop_body(*state)


def for_stmt(iterated, loop_body, state, names, opts=None, extra_test=None, target=None):
    """Python meaning:

        for item in iterated:
            state = loop_body(item, *state)
            if extra_test is not None and not extra_test(*state): break
        return state

    (with `extra_test` also checked before the first item, so the loop never
    fetches an item once it is false).  Over a Python iterable, a staged
    extra_test keeps unrolling with each body guarded by it.
    """
    backend = backend_of(iterated)
    if backend is None:
        return _python_for(iterated, loop_body, state, names, extra_test)
    location = _user_location()
    _check_defined(state, names, location, "for")
    if target is None:
        target = _loop_target(loop_body)  # read before the body gets wrapped
    if target is not None:
        opts = dict(opts or {}, target=target)
    body = _checked_body(loop_body, state, names, location, "for", with_item=True)
    if extra_test is not None:
        if getattr(_owner_of_bounds(iterated, backend), "folds_extra_test", False):
            opts = dict(opts or {}, extra_test=extra_test)  # the backend tests it each iteration
        else:
            body = _guarded_body(body, extra_test, names)
    parts = _range_types.get(type(iterated))
    if parts is not None:
        start, stop, step = parts(iterated)
        return backend.for_range(start, stop, step, body, state, names, opts)
    return backend.for_each(iterated, body, state, names, opts)


def _loop_target(loop_body):
    """The user's loop variable (`for c in ...` -> 'c'): the converters name the
    generated loop body's first parameter after it; a tuple target (`for a, b
    in ...`) comes in as a generated `itr...` parameter, so there is none."""
    code = getattr(loop_body, "__code__", None)
    if code is None or not code.co_argcount or not code.co_name.startswith("loop_body"):
        return None  # not a generated body (the runtime called directly)
    name = code.co_varnames[0]
    return None if name.startswith("itr") else name


def _owner_of_bounds(iterated, backend):
    return getattr(iterated, "backend", backend) if type(iterated) in _range_types else backend


def _python_for(iterated, loop_body, state, names, extra_test):
    if extra_test is None:
        for item in iterated:
            state = loop_body(item, *state)
        return state
    keep_going = extra_test(*state)
    if not is_staged(keep_going) and not keep_going:
        return state
    for item in iterated:
        if is_staged(keep_going):
            state = if_stmt(keep_going, functools.partial(loop_body, item), _unchanged, state, names)
        else:
            state = loop_body(item, *state)
        keep_going = extra_test(*state)
        if not is_staged(keep_going) and not keep_going:
            break
    return state


def _unchanged(*state):
    return state


def _guarded_body(body, extra_test, names):
    """A staged loop cannot stop early: iterations after the stop do nothing."""
    def guarded(item, *state):
        return if_stmt(extra_test(*state), functools.partial(body, item), _unchanged, state, names)
    return guarded


# --- the checks shared by all backends ---------------------------------------

def _user_location():
    filename, lineno, _ = errors.user_frame(2)
    return errors.where(filename, lineno)


def _structure(value):
    """Containers down to their leaves; leaves are all alike (None)."""
    kind = type(value)
    if kind is Undefined:
        return "undefined"
    if kind is tuple or kind is list:
        return (kind, tuple(_structure(v) for v in value))
    if kind is dict:
        return (dict, tuple((k, _structure(v)) for k, v in value.items()))
    return None


def _describe(value):
    kind = type(value)
    if kind is Undefined:
        return "undefined"
    if kind is tuple or kind is list:
        return f"{kind.__name__} of length {len(value)}"
    if kind is dict:
        return f"dict with keys {sorted(map(repr, value))}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _return_pending(a, b):
    """A `return` that ran on one side only: the backend gives the other side
    a stand-in (the do_return flag says which value is real)."""
    return type(a) is UndefinedReturnValue or type(b) is UndefinedReturnValue


def _check_branches(true_out, false_out, names, location):
    for name, a, b in zip(names, true_out, false_out):
        if type(a) is Undefined or type(b) is Undefined:
            raise errors.StagingError(errors.undefined_branch_message(
                name, location, _describe(a), _describe(b)))
        if _structure(a) != _structure(b) and not _return_pending(a, b):
            raise errors.StagingError(errors.branch_structure_message(
                name, location, _describe(a), _describe(b)))


def _check_defined(state, names, location, loop):
    for name, value in zip(names, state):
        if type(value) is Undefined:
            raise errors.StagingError(errors.undefined_loop_state_message(name, location, loop))


def _checked_body(loop_body, initial, names, location, loop, with_item):
    # Compared with the state the body is given, taken before the body runs
    # (which may mutate it): a backend may carry a value in its own form,
    # e.g. an empty Python list as a staged list.
    def run_checked(state, run):
        expected = [_structure(v) for v in state]
        result = run()
        for name, before, value, shape in zip(names, state, result, expected):
            if type(value) is Undefined or (_structure(value) != shape
                                            and not _return_pending(before, value)):
                raise errors.StagingError(errors.loop_structure_message(
                    name, location, loop, _describe(before), _describe(value)))
        return result

    if with_item:
        return lambda item, *state: run_checked(state, lambda: loop_body(item, *state))
    return lambda *state: run_checked(state, lambda: loop_body(*state))
