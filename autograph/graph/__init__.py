"""The built-in graph engine: symbolic numpy Tensors, graphs of numpy ops,
compilation to straight-line Python, and `function` (tf.function-like).

Engine functions a backend calls while tracing (all record into the current
graph; see each docstring):

    print_op(*values, sep=" ", end="\n", file=None) -> None
    assert_op(pred, message=None) -> None
    cond(pred, true_fn, false_fn, names=None, finish=None) -> tuple
    while_loop(cond_fn, body_fn, loop_vars, maximum_iterations=None,
               shape_invariants=None, names=None) -> tuple
        (`names`: the user's variable names, one per output / loop var; the
        graph listing names tensors after them)
    trace_while_loop(cond_fn, body_fn, loop_vars, shape_invariants=None,
                     names=None) -> LoopTrace
        (while_loop in two steps: test and body traced once; the LoopTrace
        re-types or adds loop vars without tracing again, then .finish())
    list_new(element_dtype=None, element_shape=None) -> TensorList
    list_append(lst, value) -> TensorList
    list_pop(lst) -> (TensorList, Tensor)
    list_stack(lst) -> Tensor
    list_length(lst) -> Tensor            (intp scalar)
    list_from(items, element_dtype=None, element_shape=None) -> TensorList
    current_graph() -> Graph | None       (None: not tracing)

The tracing scope behind `current_graph` is the engine's one documented
exception to "no global context stacks" (thread-local; see core.py).
"""

from autograph.graph.concrete import ConcreteFunction
from autograph.graph.core import Graph, current_graph
from autograph.graph.function import Function, function, run_functions_eagerly
from autograph.graph.ops.control import cond, trace_while_loop, while_loop
from autograph.graph.ops.lists import (
    TensorList, list_append, list_from, list_length, list_new, list_pop, list_stack)
from autograph.graph.ops.state import assert_op, print_op
from autograph.graph.tensor import Tensor, TensorSpec
from autograph.graph.variables import Variable
from autograph.graph import core, listing, numpy_api, ops, tensor

# The lower modules' hooks into the higher ones (so that no import goes both ways).
tensor._numpy_api, tensor._ops = numpy_api, ops
core.format_graph = listing.format_graph

__all__ = ["Tensor", "Graph", "TensorSpec", "function", "Function", "ConcreteFunction",
           "Variable", "run_functions_eagerly"]

# Engine API for backends (not part of the top-level autograph API).
ENGINE_API = ["current_graph", "cond", "while_loop", "trace_while_loop", "print_op", "assert_op", "TensorList",
              "list_new", "list_append", "list_pop", "list_stack", "list_length",
              "list_from"]
