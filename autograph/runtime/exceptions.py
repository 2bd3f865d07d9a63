"""`assert_stmt`: the staged half of a converted `assert`.

Converted code keeps Python's own statement around it:

    assert x > 0, 'x must be positive'
becomes
    assert ag__.assert_stmt(x > 0, lambda: 'x must be positive'), 'x must be positive'

so on Python values it is exactly the original assert (same AssertionError,
raised at the user's line; skipped with its test under `python -O`), and a
staged test adds a run-time assertion to the graph instead.
"""

from autograph.runtime.registry import backend_of


def assert_stmt(test, msg_fn=None):
    """Python meaning, as generated code uses it,
    `assert ag__.assert_stmt(test, msg_fn), msg` is `assert test, msg_fn()`:
    for a Python value it returns `test` unchanged and the enclosing native
    assert checks it.  A staged `test` becomes `backend.assert_(test, msg_fn())`
    (the message is computed once, while tracing) and the result is True.
    """
    backend = backend_of(test)
    if backend is None:
        return test
    backend.assert_(test, None if msg_fn is None else msg_fn())
    return True
