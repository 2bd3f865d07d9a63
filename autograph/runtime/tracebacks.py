"""Tracebacks as Python would show them, despite generated thunks.

`a and b` becomes `ag__.and_(a, lambda: b)`: when `b` raises, the traceback
holds the thunk's frame below the user's frame, at the same line and with the
same function name (the transpiler names thunks after their function).
Python would show the user's frame alone, so operators that call thunks
re-raise with those frames removed. This runs only when something raised.
"""

import types

from autograph import errors
from autograph.runtime import call


def without_thunks(exc):
    """`exc` with the thunk entries at the calling user frame's line removed."""
    _, lineno, name = errors.user_frame(2)
    user = (name, lineno)
    entries = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not (call.converter.is_generated_thunk(code) and (code.co_name, tb.tb_lineno) == user):
            entries.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(entries):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return exc.with_traceback(rebuilt)
