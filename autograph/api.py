"""The public conversion API: to_graph, to_code, convert, do_not_convert."""

import functools
import types

from autograph import errors, transpiler
from autograph.context import ConversionOptions
from autograph.runtime import call, registry

call.set_converter(transpiler)  # the runtime converts callees through this hook


def _options(recursive, strict=None):
    if strict is None:
        return ConversionOptions(recursive=recursive)
    return ConversionOptions(recursive=recursive, strict=strict)


def _convert_function(fn, options):
    if transpiler.is_converted_code(fn.__code__) or getattr(fn, call.DO_NOT_CONVERT, False):
        return fn
    return transpiler.convert(fn, options)


def _convert_method(method, options):
    return types.MethodType(_convert_entity(method.__func__, options), method.__self__)


def _convert_partial(p, options):
    return functools.partial(_convert_entity(p.func, options), *p.args, **p.keywords)


def _convert_wrapped(descriptor, options):
    """staticmethod/classmethod objects (as found in a class __dict__)."""
    return type(descriptor)(_convert_entity(descriptor.__func__, options))


def _convert_builtin(fn, options):
    raise errors.ConversionError(errors.not_convertible_message(
        fn, f"{type(fn).__name__} objects are implemented in C and have no Python source"))


def _convert_callable_object(obj, options):
    call_method = getattr(type(obj), "__call__", None)
    if isinstance(obj, type) or type(call_method) is not types.FunctionType:
        raise errors.ConversionError(errors.not_convertible_message(
            obj, f"{errors.article(type(obj).__name__)} {type(obj).__name__} object is not "
                 "a Python function"))
    return types.MethodType(_convert_function(call_method, options), obj)


_CONVERTERS = call.dispatch_table({  # the runtime's table of callable kinds
    "function": _convert_function,
    "method": _convert_method,
    "partial": _convert_partial,
    "static_or_class_method": _convert_wrapped,
    "builtin": _convert_builtin,
    "class": _convert_callable_object,  # raises: a class is not a function
    "slot": _convert_builtin,
    "cached": _convert_callable_object,
})


# Wrappers whose Python function is what to convert (`ag.function` objects):
# type -> the function inside.  autograph/wiring.py fills it (api does not
# import the graph engine).
WRAPPED_FUNCTION = {}


def _unwrapped(entity):
    unwrap = WRAPPED_FUNCTION.get(type(entity))
    return entity if unwrap is None else unwrap(entity)


def _convert_entity(entity, options):
    registry.load_backends()  # e.g. the JAX backend, which must see jax.jit's tracing
    entity = _unwrapped(entity)
    converter = _CONVERTERS.get(type(entity), _convert_callable_object)
    return converter(entity, options)


def to_graph(entity, *, recursive=True):
    """Returns the converted version of `entity`.

    `entity` is a function, lambda, method, functools.partial or callable
    object. Called on plain Python values, the result behaves exactly like
    `entity`; on staged values (graph tensors) its control flow is staged.
    With recursive=True, functions it calls are converted as they are met.
    """
    return _convert_entity(entity, _options(recursive))


def to_code(entity, *, recursive=True):
    """Returns the source code `to_graph(entity)` runs, as a string."""
    options = _options(recursive)
    target = _unwrapped(entity)
    while type(target) in (types.MethodType, functools.partial):
        target = target.__func__ if type(target) is types.MethodType else target.func
    if type(target) is not types.FunctionType:
        converted = _convert_entity(target, options)  # raises the right error
        target = converted.__func__
    return transpiler.converted_source(target, options) + "\n"


def convert(recursive=True, strict=None):
    """Decorator form of `to_graph`: `@ag.convert()`, or bare `@ag.convert`.

    strict=True (or AUTOGRAPH_STRICT=1) makes a callee that cannot be
    converted an error instead of a logged warning.
    """
    if callable(recursive):  # bare `@ag.convert`: the function came as `recursive`
        return _convert_entity(recursive, _options(True, strict))
    options = _options(recursive, strict)

    def decorator(fn):
        return _convert_entity(fn, options)

    return decorator


def do_not_convert(fn):
    """Marks `fn` to be called as is, never converted (e.g. from converted code)."""
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    setattr(target, call.DO_NOT_CONVERT, True)
    return fn
