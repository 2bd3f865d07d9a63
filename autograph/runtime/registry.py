"""The backend registry: which backend, if any, owns a value.

Dispatch is a dict lookup on `type(value)`.  A type met for the first time is
offered to every registered backend's `owns(value)`; the answer (a backend or
None) is cached per type, so plain Python values cost one dict lookup.

Backends of libraries the user has imported are registered lazily: the first
time a type misses, each backend module announced with
`register_backend_module(library, module)` (autograph/wiring.py announces
those of autograph/backends/) is imported if its library is in `sys.modules`.
The runtime itself names no backend.
"""

import contextlib
import importlib
import sys
import warnings
from typing import Protocol, runtime_checkable

# What is being traced right now (on any thread): a staged value can only
# exist while this is not empty. Converted functions test it on entry and,
# when it is empty, run the user's original body exactly as written. The
# generated code reads it as `ag__.tracing`.
tracing = []


@contextlib.contextmanager
def staging(marker):
    """Marks `marker` (a graph being traced, ...) as tracing while inside.

    Backends wrap their tracing in it. Tests use it to run the converted body
    of a function on plain Python values."""
    tracing.append(marker)
    try:
        yield marker
    finally:
        tracing.remove(marker)


@runtime_checkable
class Backend(Protocol):
    """What a backend implements (DESIGN.md §3).

    Branch and body functions take the state as positional arguments and
    return a tuple; `names` are the user's variable names (for messages).
    """

    name: str

    def owns(self, value) -> bool:
        """Is `value` a staged value of this backend?"""

    def cond(self, pred, true_fn, false_fn, state, names) -> tuple:
        """Stages `true_fn(*state) if pred else false_fn(*state)`."""

    def while_loop(self, test_fn, body_fn, state, names, opts) -> tuple:
        """Stages `while test_fn(*state): state = body_fn(*state)`."""

    def for_range(self, start, stop, step, body_fn, state, names, opts) -> tuple:
        """Stages `for i in range(start, stop, step): state = body_fn(i, *state)`.
        `opts['target']`, when present, is the user's loop variable name (for
        for_each too); other opts: extra_test, maximum_iterations, shape_invariants."""

    def for_each(self, iterable, body_fn, state, names, opts) -> tuple:
        """Stages `for item in iterable: state = body_fn(item, *state)` (a staged array)."""

    def print_(self, *values, sep=" ", end="\n"):
        """Stages a print that runs every time the graph runs."""

    def assert_(self, pred, message):
        """Stages an assertion that fails when the graph runs."""

    def stack(self, items):
        """Stacks a Python list of staged values into one staged value."""


# library -> backend module: the library's presence (in sys.modules) makes the
# backend worth importing.
_KNOWN_BACKENDS = {}


def register_backend_module(library, module_name):
    """Imports `module_name` and registers its `BACKEND` once `library` is imported."""
    _KNOWN_BACKENDS[library] = module_name
    _backend_by_type.clear()  # a type cached as "not staged" may now have an owner
    _staged_by_type.clear()

_backends = []
_backend_by_type = {}   # type -> backend, or None for "not staged"
_staged_by_type = {}    # type -> bool; the same answer, for is_staged


def register_backend(backend):
    """Adds `backend`; cached answers are dropped (it may own known types)."""
    if any(b is backend for b in _backends):
        return backend
    _backends.append(backend)
    _backend_by_type.clear()
    _staged_by_type.clear()
    return backend


def registered_backends():
    return tuple(_backends)


def _import_known_backends():
    for library, module_name in list(_KNOWN_BACKENDS.items()):
        if library not in sys.modules:
            continue
        del _KNOWN_BACKENDS[library]  # one attempt per library
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                continue  # no backend for this library (yet)
            warnings.warn(f"autograph: backend {module_name} cannot be imported: {e!r}; "
                          f"values of {library} are treated as plain Python values")
            continue
        except ImportError as e:
            warnings.warn(f"autograph: backend {module_name} cannot be imported: {e!r}; "
                          f"values of {library} are treated as plain Python values")
            continue
        backend = getattr(module, "BACKEND", None)
        if backend is not None:
            register_backend(backend)


def _classify(value):
    """Finds and caches the backend owning values of `type(value)`."""
    _import_known_backends()
    owner = None
    for backend in _backends:
        if backend.owns(value):
            owner = backend
            break
    cls = type(value)
    _backend_by_type[cls] = owner
    _staged_by_type[cls] = owner is not None
    return owner


def backend_of(value):
    """The backend whose staged value `value` is, or None for Python values."""
    try:
        return _backend_by_type[type(value)]
    except KeyError:
        return _classify(value)


def is_staged(value):
    """Python meaning: False -- True only for a staged value of a backend."""
    try:
        return _staged_by_type[type(value)]
    except KeyError:
        return _classify(value) is not None
