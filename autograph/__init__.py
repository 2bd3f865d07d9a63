"""autograph: write plain Python control flow; stage it into a graph when the
operands are graph values, run it as ordinary Python when they are not."""

from autograph.api import convert, do_not_convert, to_code, to_graph
from autograph.errors import AutoGraphError
from autograph.graph import (Function, TensorSpec, Variable, function,
                             run_functions_eagerly)
from autograph.runtime import set_element_type, set_loop_options, stack
from autograph.graph.gradients import grad, value_and_grad

__all__ = [
    "AutoGraphError",
    "Function",
    "TensorSpec",
    "Variable",
    "convert",
    "do_not_convert",
    "function",
    "grad",
    "run_functions_eagerly",
    "set_element_type",
    "set_loop_options",
    "stack",
    "to_code",
    "to_graph",
    "value_and_grad",
]
