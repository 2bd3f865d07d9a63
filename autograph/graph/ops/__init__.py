"""Graph ops: each registered op pairs a numpy kernel with a shape and dtype
rule (see core.register).  Modules group them by kind."""

from autograph.graph.ops import (  # noqa: F401
    base, control, elementwise, indexing, linalg, lists, misc, python_ints, random,
    reductions, shaping, state)
