"""autograph: write plain Python control flow; stage it into a graph when the
operands are graph values, run it as ordinary Python when they are not.

A tour. A small function with an `if`:

>>> import numpy as np
>>> import autograph as ag
>>> def clip(x, limit):
...     if x > limit:
...         x = limit
...     return x

Converted, it is the same function on Python values:

>>> ag.to_graph(clip)(5, 3)
3

`ag.to_code` shows the Python that runs: the original body while nothing is
traced, and a converted body in which the `if` calls the runtime, which
stages it when its test is a graph value:

>>> print(*[line.strip() for line in ag.to_code(clip).splitlines() if "if_stmt" in line])
x, = ag__.if_stmt(x > limit, if_true, None, (x,), ('x',))

`ag.function` traces it into a graph of the built-in engine, where the `if`
is one `cond` op, and runs that graph:

>>> staged = ag.function(clip)
>>> print(staged(np.float64(5.0), np.float64(3.0)), staged(np.float64(1.0), np.float64(3.0)))
3.0 1.0
>>> print(staged.get_concrete_function(np.float64(5.0), np.float64(3.0)).graph)
graph clip(x: float64[], limit: float64[]) -> (x_1)
  greater: bool[] = np.greater(x, limit)  # ...
  x_1: float64[] = cond(greater)  # ...
    graph cond_true(captures limit) -> (limit)
      return (limit)
    graph cond_false(captures x) -> (x)
      return (x)
  return (x_1)

How it is built: docs/ARCHITECTURE.md; what converted code looks like:
docs/GENERATED_CODE.md; adding a backend: docs/BACKENDS.md.
"""

from autograph.api import convert, do_not_convert, to_code, to_graph
from autograph.errors import AutoGraphError
from autograph.graph import (Function, TensorSpec, Variable, function,
                             run_functions_eagerly)
from autograph.graph.gradients import grad, value_and_grad
from autograph.graph.loading import load
from autograph.runtime import set_element_type, set_loop_options, stack
from autograph import wiring  # noqa: F401  (sets the hooks between the layers)

__all__ = [
    "AutoGraphError",
    "Function",
    "TensorSpec",
    "Variable",
    "convert",
    "do_not_convert",
    "function",
    "grad",
    "load",
    "run_functions_eagerly",
    "set_element_type",
    "set_loop_options",
    "stack",
    "to_code",
    "to_graph",
    "value_and_grad",
]
