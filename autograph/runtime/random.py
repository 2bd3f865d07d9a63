"""numpy random numbers as converted code calls them.

    np.random.rand()        ->  ag__.converted(np.random.rand, fscope)()
                                = draw_(np.random.rand)      (call.py's dispatch)
    rng.normal(size=n)      ->  draw_(rng.normal, size=n)
    np.random.default_rng(0) -> make_generator_(np.random.default_rng, 0)

Outside tracing each operator calls numpy's own function, with the same
arguments: plain Python is exact.  While a backend traces, a draw from a
generator that lives outside the call (numpy's global RandomState behind
`np.random.rand`, a `Generator` or `RandomState` made outside the traced
function) is handed to the backend (`Backend.random_draw`), which stages it
as an op calling the same bound method on every run, so the stream is
consumed as eager numpy would consume it.  A draw run while tracing would
be baked into the graph as a constant: the same "random" number on every
call.  Making or reseeding a generator inside the traced function, and
changing an array in place (`shuffle`), cannot be staged faithfully and are
refused at trace time.
"""

import functools

import numpy as np

from autograph import errors
from autograph.runtime import registry, staging
from autograph.runtime.structure import flatten

# the classes whose bound methods draw from a stream that outlives the call
GENERATOR_TYPES = (np.random.Generator, np.random.RandomState)

# methods that set or read a generator's state, or change their argument in
# place: never staged (name -> the fix the refusal gives)
_REFUSED_METHODS = {
    "seed": "seed it once, outside the function",
    "set_state": "set its state outside the function",
    "__setstate__": "set its state outside the function",
    "get_state": "read its state outside the function",
    "shuffle": "use permutation(x) (or rng.permuted(x)), which returns a new array; a "
               "staged array is a value and cannot be changed in place",
    "spawn": "spawn the child generators outside the function and pass them in",
}


def _tracing_backend(args, kwargs):
    """The backend tracing this call, or None (plain Python, or a trace no
    backend is making: the runtime's `staging` used on Python values)."""
    if not registry.tracing:
        return None
    for value in flatten((args, kwargs), ("args", "kwargs")).values:
        backend = registry.backend_of(value)
        if backend is not None:
            return backend
    backend = staging.region_backend()
    if backend is not None:
        return backend
    for backend in registry.registered_backends():
        if backend.is_tracing():
            return backend
    return None


def call_text(method):
    """How the user wrote the call, for messages: `np.random.rand()`, `Generator.normal()`."""
    owner = getattr(method, "__self__", None)
    if owner is np.random.mtrand._rand:
        return f"np.random.{method.__name__}()"
    if owner is not None:
        return f"{type(owner).__name__}.{method.__name__}()"
    return f"np.random.{getattr(method, '__name__', method)}()"


def draw_(method, *args, **kwargs):
    """Python meaning: `method(*args, **kwargs)`, where `method` is a bound
    method of a numpy Generator or RandomState (`np.random.rand` is one, of
    numpy's global RandomState)."""
    backend = _tracing_backend(args, kwargs)
    if backend is None:
        return method(*args, **kwargs)
    fix = _REFUSED_METHODS.get(method.__name__)
    if fix is None and kwargs.get("out") is not None:
        fix = "drop out= and use the returned array"
    if fix is not None:
        raise errors.StagingError(errors.random_state_in_trace_message(
            call_text(method), errors.where_user(), fix))
    return backend.random_draw(method, args, kwargs)


def make_generator_(maker, *args, **kwargs):
    """Python meaning: `maker(*args, **kwargs)`, where `maker` makes or seeds a
    numpy generator (`np.random.default_rng`, `np.random.Generator`,
    `np.random.RandomState`, `np.random.seed`)."""
    if _tracing_backend(args, kwargs) is None:
        return maker(*args, **kwargs)
    name = getattr(maker, "__name__", repr(maker))
    raise errors.StagingError(errors.random_generator_in_trace_message(
        f"np.random.{name}()", errors.where_user()))


# the module-level makers and seeders (call.py's table of overrides reads this)
MAKERS = (np.random.default_rng, np.random.Generator, np.random.RandomState, np.random.seed)


def target_for(method):
    """What converted code calls for the bound method `method`: `draw_` bound
    to it when it belongs to a numpy generator, else None."""
    if isinstance(getattr(method, "__self__", None), GENERATOR_TYPES):
        # (a bound method is a new object on every attribute read: nothing to cache)
        return functools.partial(draw_, method)
    return None
