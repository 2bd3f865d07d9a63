"""What a function whose loops call_only.py kept as Python loops calls at
its top (converted code reads them as `ag__.iterates_staged`,
`ag__.pipeline_version`):

    if ag__.iterates_staged(params):
        return ag__.pipeline_version(ag__function, fscope)(params, lr)

Its loops iterate its parameters (or a dict parameter's `.items()`,
`.keys()`, `.values()`), which it never rebinds: the values at the call are
the values each loop iterates.  A Python value makes the pipeline's
`ag__.for_stmt` run the very loop that was kept; a staged one needs the
staged loop, which only the pipeline's version has.
"""

from autograph.runtime import call
from autograph.runtime.registry import backend_of


def iterates_staged(*iterated, dicts=()):
    """Python meaning: False -- True when one of `iterated` (what the
    function's loops iterate) is a staged value, whose `for` stages, or one
    of `dicts` (whose `.items()`, `.keys()` or `.values()` they iterate) is
    not a dict (another object's method may return a staged value)."""
    for value in iterated:
        if backend_of(value) is not None:
            return True
    for value in dicts:
        if type(value) is not dict:
            return True
    return False


def pipeline_version(function, fscope):
    """Python meaning: `function()` -- the function the weak reference
    `function` holds, converted by the pass pipeline (with `fscope`'s
    options): the version whose loops stage."""
    return call.converter.convert(function(), fscope.options, python_loops=False)
