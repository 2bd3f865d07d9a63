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
