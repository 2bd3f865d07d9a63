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

from autograph import errors
from autograph.runtime.backend import Backend

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


_backends = []
_backend_by_type = {}   # type -> backend, or None for "not staged"
_staged_by_type = {}    # type -> bool; the same answer, for is_staged


def register_backend(backend):
    """Adds `backend` (a `Backend`); cached answers are dropped (it may own known types)."""
    if not isinstance(backend, Backend):
        raise errors.BackendProtocolError(errors.backend_protocol_message(backend))
    if any(b is backend for b in _backends):
        return backend
    _backends.append(backend)
    _backend_by_type.clear()
    _staged_by_type.clear()
    return backend


# library -> backend module: the library's presence (in sys.modules) makes the
# backend worth importing.
_KNOWN_BACKENDS = {}


def register_backend_module(library, module_name):
    """Imports `module_name` and registers its `BACKEND` once `library` is imported."""
    _KNOWN_BACKENDS[library] = module_name
    _backend_by_type.clear()  # a type cached as "not staged" may now have an owner
    _staged_by_type.clear()


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
