"""The check shared by the tests of state a traced function reads without
taking it as an argument: changed between calls, the staged function must
give Python's result, never the value its first graph baked in.  (Imported by
file name, like grad_check.py: pytest puts this directory on sys.path.)"""

import numpy as np

import autograph as ag


def assert_follows_python(f, args, change, calls=2):
    """Calls ag.function(f)(*args) `calls` times (from the second call on it
    takes the compiled fast path), applies change(), then calls it `calls`
    times more; each result must equal Python's f(*args).  Returns the staged
    function for further checks."""
    staged = ag.function(f)
    for _ in range(calls):
        np.testing.assert_array_equal(staged(*args), f(*args))
    change()
    for _ in range(calls):
        np.testing.assert_array_equal(staged(*args), f(*args))
    return staged
