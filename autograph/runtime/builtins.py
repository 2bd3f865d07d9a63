"""Builtins as converted code calls them: `print_`, `len_`, `range_`,
`enumerate_`, `zip_`, and `user_locals` (what `locals()` shows).

With Python arguments each calls the builtin itself, with the same arguments,
so results and exceptions are the builtin's.  A staged argument goes to its
backend: a staged print runs every time the graph runs; `range` with a staged
bound is a `StagedRange`, which `for_stmt` stages as one loop (`for_range`).
"""

import builtins

from autograph import errors
from autograph.runtime import control_flow, registry, staging
from autograph.runtime.backend import Backend
from autograph.runtime.special_values import Undefined


def _first_backend(values):
    for value in values:
        backend = registry.backend_of(value)
        if backend is not None:
            return backend
    return None


def print_(*values, **kwargs):
    """Python meaning: `print(*values, **kwargs)`.  Inside a staged branch or
    loop body even a print of Python values is staged (it runs when the graph
    takes that path, as often as it does)."""
    backend = _first_backend(values)
    if backend is None and kwargs.get("file") is None:
        backend = staging.region_backend()
    if backend is None:
        return builtins.print(*values, **kwargs)
    if kwargs.get("file") is not None:
        raise errors.StagingError(errors.staged_print_file_message(errors.where_user()))
    sep, end = kwargs.get("sep"), kwargs.get("end")
    backend.print_(*values, sep=" " if sep is None else sep, end="\n" if end is None else end)
    return None


def len_(*args, **kwargs):
    """Python meaning: `len(*args, **kwargs)` (one argument: `len(obj)`)."""
    backend = registry.backend_of(args[0]) if len(args) == 1 and not kwargs else None
    if backend is None:
        return len(*args, **kwargs)  # wrong arguments: Python's own TypeError
    return backend.len_(args[0])


class StagedRange:
    """`range(start, stop, step)` where a bound is a staged value of `backend`.

    `for_stmt` stages a loop over it with `backend.for_range`.
    """

    __slots__ = ("start", "stop", "step", "backend")

    def __init__(self, start, stop, step, backend):
        self.start, self.stop, self.step, self.backend = start, stop, step, backend

    def __repr__(self):
        return f"StagedRange({self.start!r}, {self.stop!r}, {self.step!r})"


class _StagedRangeOwner(Backend):
    """Owns StagedRange values in the registry; hands each operation to the
    backend of the range's bounds (the registry caches owners per type)."""

    name = "staged range"

    def owns(self, value):
        return type(value) is StagedRange

    def for_range(self, start, stop, step, body_fn, state, names, opts, target=None,
                  extra_test=None):
        backend = _first_backend((start, stop, step))
        return backend.for_range(start, stop, step, body_fn, state, names, opts,
                                 target=target, extra_test=extra_test)

    def len_(self, staged_range):
        return staged_range.backend.range_len(
            staged_range.start, staged_range.stop, staged_range.step)


registry.register_backend(_StagedRangeOwner())
control_flow.register_range_type(StagedRange)


def range_(*args, **kwargs):
    """Python meaning: `range(*args, **kwargs)`."""
    backend = _first_backend(args)
    if backend is None or kwargs:
        return builtins.range(*args, **kwargs)
    if len(args) == 1:
        return StagedRange(0, args[0], 1, backend)
    if len(args) == 2:
        return StagedRange(args[0], args[1], 1, backend)
    if len(args) == 3:
        return StagedRange(*args, backend)
    return builtins.range(*args)  # raises Python's own TypeError


def enumerate_(*args, **kwargs):
    """Python meaning: `enumerate(*args, **kwargs)`."""
    backend = _first_backend(args[:1])
    if backend is None:
        return builtins.enumerate(*args, **kwargs)
    return backend.enumerate_(*args, **kwargs)


def zip_(*iterables, **kwargs):
    """Python meaning: `zip(*iterables, **kwargs)`."""
    backend = _first_backend(iterables)
    if backend is None:
        return builtins.zip(*iterables, **kwargs)
    return backend.zip_(*iterables, **kwargs)


_HIDDEN = frozenset({"ag__", "fscope"})


def user_locals(local_vars, fscope):
    """Python meaning: `locals()`; `local_vars` is the converted frame's
    `locals()`, shown without the names the converters generated and without
    variables that are still unbound (`Undefined`)."""
    hidden = fscope.internal_names
    return {name: value for name, value in local_vars.items()
            if name not in hidden and name not in _HIDDEN and type(value) is not Undefined}
