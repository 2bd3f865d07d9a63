"""Builtins as converted code calls them: `print_`, `len_`, `range_`,
`enumerate_`, `zip_`, and `user_locals` (what `locals()` shows).

With Python arguments each calls the builtin itself, with the same arguments,
so results and exceptions are the builtin's.  A staged argument goes to its
backend: a staged print runs every time the graph runs; `range` with a staged
bound is a `StagedRange`, which `for_stmt` stages as one loop (`for_range`).
"""

import builtins

import numpy as np

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


# --- numpy's creation functions with a staged size --------------------------------
# numpy calls no hook when a size is a staged value (`np.zeros(n)` asks for
# int(n)), so converted code's calls to these go here (runtime/call.py's table
# of overrides): with Python sizes they are numpy's own functions.

def _staged_size_backend(shape, *values):
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return _first_backend((*dims, *values))


def _filled(numpy_function, fill):
    def create(shape, dtype=float, order="C", **kwargs):
        backend = _staged_size_backend(shape)
        if backend is None or order != "C" or kwargs:
            return numpy_function(shape, dtype, order, **kwargs)
        return backend.full(shape, fill, np.dtype(dtype))
    create.__name__ = f"{numpy_function.__name__}_"
    create.__doc__ = f"Python meaning: `np.{numpy_function.__name__}(shape, dtype, order)`."
    return create


zeros_ = _filled(np.zeros, 0)
ones_ = _filled(np.ones, 1)
empty_ = _filled(np.empty, 0)  # (any values will do: zeros)


def full_(shape, fill_value, dtype=None, order="C", **kwargs):
    """Python meaning: `np.full(shape, fill_value, dtype, order)`."""
    backend = _staged_size_backend(shape, fill_value)
    if backend is None or order != "C" or kwargs:
        return np.full(shape, fill_value, dtype, order, **kwargs)
    if dtype is None:
        staged = registry.backend_of(fill_value) is not None
        dtype = fill_value.dtype if staged else np.asarray(fill_value).dtype
    return backend.full(shape, fill_value, np.dtype(dtype))


def arange_(*args, **kwargs):
    """Python meaning: `np.arange(*args, **kwargs)`."""
    backend = _first_backend(args + tuple(v for k, v in kwargs.items() if k != "dtype"))
    if backend is None or not 1 <= len(args) <= 3 or set(kwargs) - {"dtype"}:
        return np.arange(*args, **kwargs)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    return backend.arange(start, stop, step, kwargs.get("dtype"))


# numpy function -> its operator above (call.py's override table reads this)
NUMPY_OVERRIDES = {np.zeros: zeros_, np.ones: ones_, np.empty: empty_, np.full: full_,
                   np.arange: arange_}
