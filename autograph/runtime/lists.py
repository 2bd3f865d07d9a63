"""List operators: `list_append`, `list_pop`, `list_setitem`, `stack`, `set_element_type`.

Converted code rebinds the list (`lst = ag__.list_append(lst, x)`), so a list
can be loop state.  For anything that is not a staged list of some backend --
Python lists and any other object with `append`/`pop` -- the operator calls
the object's own method, exactly as the original statement did.  A change
to a staged list rebinds the one variable it is written on, so a change that
another holder of the same list (an alias, a container item, a caller's
variable) would not see is refused (runtime/aliases.py).
"""

import collections

import numpy as np

from autograph import errors
from autograph.runtime import aliases, registry, staging
from autograph.runtime.registry import backend_of


def list_append(target, item):
    """Python meaning: `target.append(item); return target`."""
    backend = backend_of(target)
    if backend is None:
        if type(target) is collections.deque:
            _refuse_deque_change(target.append)
        target.append(item)
        if aliases.watched_arguments:  # an ag.function's argument: refused (aliases.py)
            aliases.argument_changed(target, "`.append(...)`")
        return target
    if callable(item) and backend_of(item) is None:
        raise errors.StagingError(errors.staged_list_function_message(errors.where_user()))
    _refuse_unheld_item(item, "`.append(...)`", target)
    _check_sole_holder(target, "append")
    return backend.list_append(target, item)


def list_pop(target, index=None):
    """Python meaning: `(target, target.pop() if index is None else target.pop(index))`."""
    backend = backend_of(target)
    if backend is None:
        if type(target) is collections.deque:
            _refuse_deque_change(target.pop)
        popped = target.pop() if index is None else target.pop(index)
        if aliases.watched_arguments:  # an ag.function's argument: refused (aliases.py)
            aliases.argument_changed(target, "`.pop(...)`")
        return target, popped
    _check_sole_holder(target, "pop")
    return backend.list_pop(target, index)


def list_setitem(value, target, index):
    """Python meaning: `target[index] = value; return target` (the arguments
    in the order Python evaluates them).  A staged list gets a new list from
    its backend; anything else is assigned to as written."""
    backend = backend_of(target)
    if backend is None or backend.list_element_type(target) is None:
        if type(target) is collections.deque:
            _refuse_deque_change(target.__setitem__)
        target[index] = value
        if aliases.watched_arguments:  # an ag.function's argument: refused (aliases.py)
            aliases.argument_changed(target, "an item assignment")
        return target
    _refuse_unheld_item(value, "an item assignment", target)
    _check_sole_holder(target, "item assignment")
    return backend.list_setitem(target, index, value)


def _holds_as_it_is(item):
    """A staged list holds `item` as Python's list would: anything but a
    container or text, which it would turn into an array (a tuple or list
    stacked, a string as np.str_) or hold with the trace's values inside (a
    dict); a numpy array or scalar of numbers, not of text or objects."""
    if backend_of(item) is not None:
        return True
    if isinstance(item, (np.ndarray, np.generic)):
        return item.dtype.kind in "biufc"
    return not isinstance(item, _HELD_OTHERWISE)


_HELD_OTHERWISE = (tuple, list, dict, set, frozenset, str, bytes, collections.deque)


def _refuse_unheld_item(item, change, target):
    """A staged list is one array per item: a tuple, list or dict item would be
    stacked into an array or held as an opaque constant, and read back as
    something else than Python's list gives (a tuple as an array, a dict's
    tensors as they were while tracing).  The message names the user's
    variable holding `target`, the list."""
    if not _holds_as_it_is(item):
        frame = errors.user_frame(2, _want_frame=True)
        name = next((key for key, held in staging.user_variables(frame) if held is target),
                    None) if frame is not None else None
        raise errors.StagingError(errors.staged_list_item_message(
            type(item).__name__, change, errors.where_user(),
            staging.user_spelling(frame, name) if name is not None else None))


def _refuse_deque_change(method):
    """A deque is never staged as a list is: changing one that predates the
    staged branch or loop body it is changed in would happen once, while
    tracing (aliases.check_container_change refuses it, as for `.appendleft`)."""
    outside = staging.frames_outside_region()
    if outside is not None:
        aliases.check_container_change(method, outside)


def _check_sole_holder(target, change):
    """Refuses to change staged list `target` if a user variable or container
    other than the one the change is written on holds it (runtime/aliases.py):
    the change would rebind that one alone."""
    holders, changed = aliases.other_holders(target, skip_depth=2)
    if holders:
        path, at = holders[0]
        raise errors.StagingError(errors.staged_list_alias_message(
            changed, path, at, errors.where_user(), f"the staged list gets {_CHANGES[change]}",
            False))


_CHANGES = {"append": "an item appended (`.append`)", "pop": "an item popped (`.pop`)",
            "item assignment": "an item assigned (`lst[i] = v`)"}


def stack(items):
    """Python meaning: `items` (a no-op), unless it holds staged values: then
    the owning backend stacks them into one staged value.

    A staged list (of a backend that has them) is stacked by its backend.
    A list holding numpy arrays or scalars is stacked by `np.stack`, so a
    function gives the same type run eagerly as staged (where those arrays
    are staged values).
    """
    backend = backend_of(items)
    if backend is not None:
        return backend.stack(items)
    holds_arrays = False
    for item in items:
        backend = backend_of(item)
        if backend is not None:
            return backend.stack(items)
        holds_arrays = holds_arrays or isinstance(item, (np.ndarray, np.generic))
    return np.stack(items) if holds_arrays else items


def set_element_type(target, dtype, shape=None):
    """Python meaning: `target` (a no-op).

    A directive, `lst = ag__.set_element_type(lst, dtype, shape)` in converted
    code: a staged list gets its element dtype/shape from its backend; a Python
    list may become a staged list of a backend that is tracing right now (each
    backend's `python_list_element_type` decides; outside tracing they return
    it unchanged).
    """
    backend = backend_of(target)
    if backend is not None:
        return backend.set_element_type(target, dtype, shape)
    for backend in registry.registered_backends():
        result = backend.python_list_element_type(target, dtype, shape)
        if result is not target:
            holders, changed = aliases.other_holders(target, skip_depth=1)
            if holders:
                path, at = holders[0]
                raise errors.StagingError(errors.staged_list_alias_message(
                    changed, path, at, errors.where_user(),
                    "ag.set_element_type makes it a staged list", True))
            return result
    return target


def staged_loop(run, state, names, backend, location, loop):
    """`run(state)`: a backend's staged loop over `state` (control_flow.py).

    A Python list that held items before the loop and that the body grows
    (or shrinks) -- `losses = [first]; while ...: losses.append(loss)` -- is
    traced again as the backend's staged list, pre-filled with those items,
    when they and what the loop appends are arrays or numbers of one dtype
    and shape (so stacking or indexing it gives eager numpy's values).  Other
    items keep the body check's refusal; a dtype or shape that differs is
    refused naming the item.  An alias of such a list is refused, as for a
    list that starts empty (runtime/aliases.py)."""
    state, staged = tuple(state), set()
    while True:
        try:
            return run(state)
        except errors.GrowingListError as e:
            if e.index in staged:
                raise
            name, python_list = names[e.index], state[e.index]
            item_type = _prefill_type(e, python_list, backend, name, location, loop)
            holders, _ = aliases.other_holders(python_list, name, skip_depth=1)
            if holders:
                path, at = holders[0]
                raise errors.StagingError(errors.staged_list_alias_message(
                    name, path, at, location, f"the staged `{loop}` loop that starts "
                    "there makes it a staged list", True)) from None
            prefilled = backend.set_element_type(list(python_list), *item_type)
            if backend.list_element_type(prefilled) is None:
                raise  # a backend without staged lists
            staged.add(e.index)
            state = state[:e.index] + (prefilled,) + state[e.index + 1:]


def _prefill_type(error, prefix, backend, name, location, loop):
    """(dtype, shape) that the list's items before the loop (`prefix`) and the items
    the loop appends all have (dims only known at run time are None); raises
    `error` if an item is not an array or number, or the new refusal if
    their dtypes or shapes differ."""
    if type(error.grown) is list:
        appended = [_item_type(v) for v in error.grown]
        if None in appended:
            raise error
        appended = appended[0] if appended else None
    else:
        appended = backend.list_element_type(error.grown)
        appended = None if appended is None or appended[0] is None else appended
    dtype, shape = appended if appended is not None else (None, None)
    for index, item in enumerate(prefix):
        item_type = _item_type(item)
        if item_type is None:
            raise error
        if dtype is None:
            dtype, shape = item_type
            continue
        if item_type[0] != dtype or shape is None or len(item_type[1]) != len(shape) or any(
                a is not None and b is not None and a != b for a, b in zip(item_type[1], shape)):
            raise errors.StagingError(errors.prefilled_list_type_message(
                name, location, loop, index, _described(item_type),
                _described((dtype, shape)))) from None
        shape = tuple(a if a == b else None for a, b in zip(shape, item_type[1]))
    return dtype, shape


def _item_type(value):
    """(dtype, shape) of an item a staged list can hold -- an array, a numpy
    scalar, a Python number (numpy's dtype for it) or a staged value -- else None."""
    if staging.list_element_type(value) is not None:
        return None  # a staged list inside a list
    if type(value) in (bool, int, float, complex):
        value = np.asarray(value)
    found = staging.array_type(value)
    if found is None or found[0].kind not in "biufc":
        return None
    return found[0], tuple(found[1])


def _described(item_type):
    dtype, shape = item_type
    return f"dtype {dtype}, shape {tuple('?' if d is None else d for d in shape)}"
