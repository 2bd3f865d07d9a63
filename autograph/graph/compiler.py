"""Compiles a graph into Python source that calls the numpy kernels directly.

    def graph_fn(x, w):
        v0 = x @ w                      # one line per node, program order
        v1 = k_tanh(v0)
        if v1.sum() > 0: ...            # cond: an inline if/else
        while True: ...                 # while_loop: a real Python loop
        return (v1,)

Kernels and non-literal constants are globals of the generated module.  The
source is registered with `linecache`, so tracebacks and debuggers show the
generated line.  Building the source is linear in the number of nodes.
"""

import itertools
import linecache
import math

import numpy as np

from autograph.graph import core
from autograph.graph.tensor import Tensor

_module_ids = itertools.count()


class Context:
    """Names and globals of one generated module."""

    def __init__(self):
        self.globals = {"np": np}
        self.names = {}  # id(Tensor) -> source expression
        self._global_ids = {}  # id(object) -> global name
        self._keep = []
        self._counter = itertools.count()

    def fresh(self, prefix="v"):
        return f"{prefix}{next(self._counter)}"

    def bind_global(self, value, prefix="c"):
        name = self._global_ids.get(id(value))
        if name is None:
            name = self._global_ids[id(value)] = self.fresh(prefix)
            self.globals[name] = value
            self._keep.append(value)
        return name

    def kernel(self, op):
        name = self._global_ids.get(id(op.kernel))
        if name is None:
            base = "".join(c if c.isalnum() else "_" for c in op.name.split(".")[-1])
            name = self._global_ids[id(op.kernel)] = f"k_{base}_{next(self._counter)}"
            self.globals[name] = op.kernel
            self._keep.append(op.kernel)
        return name

    def literal(self, value):
        """Source text for a static value: a literal when exact, else a global."""
        kind = type(value)
        if kind in (int, bool, str, type(None)):
            return repr(value)
        if kind is float and math.isfinite(value):
            return repr(value)
        if kind is tuple and all(type(v) in (int, bool, str, type(None)) for v in value):
            return repr(value)
        return self.bind_global(value)

    def arg(self, value):
        if isinstance(value, Tensor):
            return self.names[id(value)]
        return self.literal(value)

    def emit_graph(self, graph):
        """Lines (unindented) computing every node of `graph` in order."""
        lines = []
        for node in graph.nodes:
            op = node.op
            if op is core.PLACEHOLDER:
                continue
            if op is core.CONST:
                self.names[id(node.outputs[0])] = self.bind_global(node.attrs["value"])
                continue
            outs = [self.fresh() for _ in node.outputs]
            for tensor, name in zip(node.outputs, outs):
                self.names[id(tensor)] = name
            args = [self.arg(a) for a in node.args]
            emitted = op.emit(node, outs, args, self) if op.emit is not None else None
            if emitted is None:
                call_args = args + [f"{k}={self.literal(v)}" for k, v in node.attrs.items()]
                call = f"{self.kernel(op)}({', '.join(call_args)})"
                emitted = [f"{', '.join(outs)} = {call}" if outs else call]
            lines.extend(emitted)
        return lines

    def output(self, value):
        if not isinstance(value, Tensor):
            return self.literal(value)
        expr = self.names[id(value)]
        if value.shape == () and value.dtype.kind != "O":
            # A scalar result is a numpy scalar, as eager numpy gives, whichever
            # kernel, constant, input or variable it comes from (a scalar is
            # immutable, so no copy either).
            return f"_scalar({expr})"
        if value.node.op.aliasing:  # callers must not be able to mutate graph state
            return f"_copy({expr})"
        return expr


def indent(lines, prefix="    "):
    return [prefix + line for line in lines]


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _scalar(value):
    return value[()] if type(value) is np.ndarray else value


def compile_graph(graph, name="graph_fn", arg_names=None):
    """Python function computing `graph.outputs` (a tuple) from its inputs."""
    ctx = Context()
    ctx.globals["_copy"] = _copy
    ctx.globals["_scalar"] = _scalar
    params = []
    for i, tensor in enumerate(graph.inputs):
        param = f"a{i}"
        params.append(param)
        ctx.names[id(tensor)] = param
    body = ctx.emit_graph(graph)
    outputs = [ctx.output(t) for t in graph.outputs]
    body.append(f"return ({', '.join(outputs)}{',' if len(outputs) == 1 else ''})")
    source = "\n".join([f"def {name}({', '.join(params)}):"] + indent(body)) + "\n"
    filename = f"<autograph graph {name} #{next(_module_ids)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(ctx.globals)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    function.__source__ = source
    return function, source
