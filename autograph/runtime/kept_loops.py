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

import types
import weakref

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


class Original:
    """What the `ag__function` cell of a function whose loops were kept
    holds: that function, weakly (a strong reference would keep a function
    defined in a traced body alive through runtime.call's table), and what
    makes it again once it is gone -- `ag.to_graph(make_layer())` keeps only
    the converted function -- or once its `__code__` was replaced (the kept
    version runs the code it was converted from; so must the pipeline's).
    The converted function holds all of it already (its globals, closure
    cells and defaults are the original's)."""

    __slots__ = ("ref", "code", "globals", "name", "qualname", "closure", "defaults",
                 "kwdefaults")

    def __init__(self, fn):
        self.ref, self.code, self.globals = weakref.ref(fn), fn.__code__, fn.__globals__
        self.name, self.qualname, self.closure = fn.__name__, fn.__qualname__, fn.__closure__
        self.defaults, self.kwdefaults = fn.__defaults__, fn.__kwdefaults__

    def function(self):
        fn = self.ref()
        if fn is None or fn.__code__ is not self.code:
            fn = types.FunctionType(self.code, self.globals, self.name, self.defaults,
                                    self.closure)
            fn.__qualname__, fn.__kwdefaults__ = self.qualname, self.kwdefaults
        return fn


def pipeline_version(original, fscope):
    """Python meaning: the function `original` (an Original) stands for,
    converted by the pass pipeline (with `fscope`'s options): the version
    whose loops stage."""
    return call.converter.convert(original.function(), fscope.options, python_loops=False)
