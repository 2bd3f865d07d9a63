"""The error catalog: every error autograph raises on purpose is defined here.

Each error says what went wrong, where (the user's file and line), and how to
fix it.  Message texts are built by the small functions below so tests can pin
them with `re.escape`.
"""

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class AutoGraphError(Exception):
    """Base of every error autograph raises on purpose."""


class ConversionError(AutoGraphError):
    """A function (or a construct in it) cannot be converted."""


class SourceNotFoundError(ConversionError):
    """The source code of a function cannot be found."""


class StagingError(AutoGraphError):
    """Staged control flow is inconsistent (branches/iterations disagree)."""


class TensorUsageError(AutoGraphError, TypeError):
    """A graph tensor was used where Python needs a concrete value."""


class GraphError(AutoGraphError):
    """The graph engine cannot record or run an operation."""


class UnsupportedNumpyFunctionError(GraphError, TypeError):
    """A numpy function outside the supported set was called on a tensor."""


def is_internal_file(filename):
    """True for files of the autograph package itself (not user code)."""
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def user_frame(depth=1):
    """The innermost frame of the caller's stack that is not autograph code.

    Returns (filename, lineno, function name), or ('<unknown>', 0, '?').
    """
    frame = sys._getframe(depth)
    while frame is not None:
        code = frame.f_code
        if not is_internal_file(code.co_filename):
            return code.co_filename, frame.f_lineno, code.co_name
        frame = frame.f_back
    return "<unknown>", 0, "?"


def where(filename, lineno):
    """'file.py:12' for messages."""
    return f"{filename}:{lineno}"


def where_user():
    filename, lineno, _ = user_frame(2)
    return where(filename, lineno)


# --- graph engine (autograph/graph) ---------------------------------------


class RetracingWarning(UserWarning):
    """An ag.function keeps tracing new graphs for changing arguments."""


def tensor_usage_message(what, tensor_name, location):
    return (
        f"{what} of graph tensor '{tensor_name}' at {location}: Python needs a "
        "concrete value here, but a graph tensor only has one when the graph "
        "runs. Let autograph convert the function (ag.function(autograph=True), "
        "the default, or ag.to_graph) so `if`/`while`/`for`/`len` on tensors "
        "are staged, or compute this value outside the function.")


def leaked_tensor_message(tensor_name):
    return (
        f"graph tensor '{tensor_name}' is used outside the graph that made it "
        "(a tensor kept from an earlier trace or another function). Pass it in "
        "as an argument, or return it and use the returned numpy value.")


def unsupported_numpy_function_message(function_name, location):
    return (
        f"{function_name} is not supported on graph tensors (at {location}). "
        "Use one of the supported numpy functions (see autograph.graph."
        "numpy_api.SUPPORTED), or call it outside the ag.function.")


def graph_op_message(op_name, detail, location):
    return f"{op_name}: {detail} (at {location})"


def retracing_message(function_name, count, seconds, argument, hint):
    return (
        f"ag.function '{function_name}' traced {count} new graphs in "
        f"{seconds:.2f} s; argument '{argument}' changed each time ({hint}). "
        "Tracing is expensive: pass an input_signature=[ag.TensorSpec(shape, "
        "dtype), ...] with None for dims that vary, use reduce_retracing=True, "
        "or pass numpy arrays instead of Python scalars.")


# --- conversion (transpiler, source lookup, converted_call) -----------------

def _describe(fn):
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    code = getattr(fn, "__code__", None)
    if code is not None:
        return f"{name} ({code.co_filename}:{code.co_firstlineno})"
    return name


def no_source_message(fn):
    return (f"cannot convert {_describe(fn)}: its source code is not available. "
            "autograph reads the source through linecache: define the function in a "
            "file, or register the text of exec'd code in linecache, or mark it "
            "@autograph.do_not_convert to call it unconverted.")


def not_convertible_message(fn, reason):
    return (f"cannot convert {_describe(fn)}: {reason}. "
            "Pass a Python function, method, lambda, functools.partial or callable object.")


def conversion_failed_message(fn, where_, construct, fix):
    return f"cannot convert {_describe(fn)}: {construct} at {where_}. {fix}"


def internal_conversion_error_message(fn, exc):
    return (f"autograph failed while converting {_describe(fn)}: "
            f"{type(exc).__name__}: {exc}. This is a bug in autograph; "
            "mark the function @autograph.do_not_convert to run it unconverted.")
